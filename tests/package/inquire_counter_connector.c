/* A connector that sees the file's inquiries (table version 2's `inquire`):
 * it counts them and forwards each to the layer below; every other call is
 * NULL (forwarded by exacdf). Settings:
 *   log=PATH      when a file is released, append "rank R inquiries N last CALL"
 *                 to PATH.R (run_connector_test.sh checks N against the
 *                 inquiries inquire_user.c makes);
 *   refuse=CALL   answer the inquiry named CALL itself, with NC_ENOTSUPPORT
 *                 (not forwarded);
 *   drop=CALL     return NC_NOERR for CALL without forwarding it (a wrong
 *                 connector: exacdf must turn it into NC_EINTERNAL). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <exacdf_connector.h>

typedef struct counter_connector {
  exacdf_lower_connector below;
  char *log, *refuse, *drop;
} counter_connector;

typedef struct counter_file {
  counter_connector *connector;
  exacdf_lower_file lower;
  MPI_Comm comm;
  long inquiries;
  char last[64];
} counter_file;

static int set_text(char **slot, const char *value) {
  free(*slot);
  *slot = strdup(value);
  return *slot != NULL ? NC_NOERR : NC_ENOMEM;
}

static void counter_term(void *connector) {
  counter_connector *c = connector;
  free(c->log);
  free(c->refuse);
  free(c->drop);
  free(c);
}

static int counter_init(const exacdf_lower_connector *below, const exacdf_setting *settings, int n,
                        void **connector) {
  counter_connector *c = calloc(1, sizeof *c);
  if (c == NULL) return NC_ENOMEM;
  c->below = *below;
  for (int i = 0; i < n; i++) {
    int err = NC_EINVAL;
    if (strcmp(settings[i].key, "log") == 0) err = set_text(&c->log, settings[i].value);
    else if (strcmp(settings[i].key, "refuse") == 0) err = set_text(&c->refuse, settings[i].value);
    else if (strcmp(settings[i].key, "drop") == 0) err = set_text(&c->drop, settings[i].value);
    if (err != NC_NOERR) {
      counter_term(c);
      return err;
    }
  }
  *connector = c;
  return NC_NOERR;
}

static int counter_create_or_open(void *connector, int create, MPI_Comm comm, const char *path, int mode,
                                  MPI_Info info, void **file) {
  counter_connector *c = connector;
  counter_file *f = calloc(1, sizeof *f);
  if (f == NULL) return NC_ENOMEM;
  f->connector = c;
  int err = create ? c->below.create(c->below.connector, comm, path, mode, info, &f->lower)
                   : c->below.open(c->below.connector, comm, path, mode, info, &f->lower);
  if (f->lower.file == NULL) {
    free(f);
    return err;
  }
  f->comm = comm;
  *file = f;
  return err;
}

static int counter_create(void *c, MPI_Comm comm, const char *path, int cmode, MPI_Info info, void **file) {
  return counter_create_or_open(c, 1, comm, path, cmode, info, file);
}

static int counter_open(void *c, MPI_Comm comm, const char *path, int omode, MPI_Info info, void **file) {
  return counter_create_or_open(c, 0, comm, path, omode, info, file);
}

static void counter_release_file(void *connector, void *file) {
  counter_connector *c = connector;
  counter_file *f = file;
  if (c->log != NULL) {
    int rank = 0;
    if (MPI_Comm_rank(f->comm, &rank) != MPI_SUCCESS) rank = -1;
    char path[4096];
    snprintf(path, sizeof path, "%s.%d", c->log, rank);
    FILE *out = fopen(path, "a");
    if (out != NULL) {
      fprintf(out, "rank %d inquiries %ld last %s\n", rank, f->inquiries, f->last[0] ? f->last : "-");
      fclose(out);
    }
  }
  free(f);
}

static int counter_inquire(void *file, const char *call, exacdf_inquiry *inquiry) {
  counter_file *f = file;
  counter_connector *c = f->connector;
  f->inquiries++;
  snprintf(f->last, sizeof f->last, "%s", call);
  if (c->refuse != NULL && strcmp(call, c->refuse) == 0) return NC_ENOTSUPPORT;
  if (c->drop != NULL && strcmp(call, c->drop) == 0) return NC_NOERR;
  return f->lower.ops->inquire(f->lower.file, call, inquiry);
}

static const exacdf_connector_class counter_class = {
    .version = EXACDF_CONNECTOR_VERSION,
    .size = sizeof(exacdf_connector_class),
    .name = "inquire_counter",
    .init = counter_init,
    .term = counter_term,
    .create = counter_create,
    .open = counter_open,
    .release_file = counter_release_file,
    .ops = {.inquire = counter_inquire},
};

EXACDF_CONNECTOR_EXPORT const exacdf_connector_class *exacdf_connector_info(void) { return &counter_class; }
