/*
 * passthrough_c: an exacdf connector written in C, built outside exacdf as
 * libexacdf_connector_passthrough_c.so (include/exacdf_connector.h). It
 * forwards every call to the layer below through its own per-file object,
 * and counts the calls it saw.
 *
 * Use: EXACDF_PLUGIN_PATH=<dir of the library> EXACDF_CONNECTORS=passthrough_c
 * Setting log=PATH: when a file is released, each rank appends one line
 * "rank R calls N data D" to PATH.R (N: calls on the file, create/open
 * included; D: of them put/get/post/wait).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <exacdf_connector.h>

/* One stack (one file's). */
typedef struct pt_connector {
  exacdf_lower_connector below;
  char *log; /* NULL: no log */
} pt_connector;

/* The connector's own per-file object: the lower file and the counts. */
typedef struct pt_file {
  pt_connector *connector;
  exacdf_lower_file lower;
  MPI_Comm comm;
  long calls;
  long data_calls;
} pt_file;

#define LOWER(f) (((pt_file *)(f))->lower)
#define COUNT(f) (((pt_file *)(f))->calls++)
#define COUNT_DATA(f) (((pt_file *)(f))->calls++, ((pt_file *)(f))->data_calls++)

static int pt_init(const exacdf_lower_connector *below, const exacdf_setting *settings, int n,
                   void **connector) {
  pt_connector *c = calloc(1, sizeof *c);
  if (c == NULL) return NC_ENOMEM;
  c->below = *below;
  for (int i = 0; i < n; i++) {
    if (strcmp(settings[i].key, "log") != 0) { /* unknown setting: a clear error */
      free(c->log);
      free(c);
      return NC_EINVAL;
    }
    free(c->log);
    c->log = strdup(settings[i].value);
  }
  *connector = c;
  return NC_NOERR;
}

static void pt_term(void *connector) {
  pt_connector *c = connector;
  free(c->log);
  free(c);
}

static int pt_create_or_open(void *connector, int create, MPI_Comm comm, const char *path, int mode,
                             MPI_Info info, void **file) {
  pt_connector *c = connector;
  pt_file *f = calloc(1, sizeof *f);
  if (f == NULL) return NC_ENOMEM;
  f->connector = c;
  int err = create ? c->below.create(c->below.connector, comm, path, mode, info, &f->lower)
                   : c->below.open(c->below.connector, comm, path, mode, info, &f->lower);
  if (f->lower.file == NULL) { /* no file below: nothing of ours either */
    free(f);
    return err;
  }
  f->comm = comm;
  f->calls = 1;
  *file = f;
  return err; /* NC_NOERR, or an error that comes with the file (mode mismatch) */
}

static int pt_create(void *c, MPI_Comm comm, const char *path, int cmode, MPI_Info info, void **file) {
  return pt_create_or_open(c, 1, comm, path, cmode, info, file);
}

static int pt_open(void *c, MPI_Comm comm, const char *path, int omode, MPI_Info info, void **file) {
  return pt_create_or_open(c, 0, comm, path, omode, info, file);
}

static void pt_release_file(void *connector, void *file) {
  pt_connector *c = connector;
  pt_file *f = file;
  if (c->log != NULL) {
    int rank = 0;
    if (MPI_Comm_rank(f->comm, &rank) != MPI_SUCCESS) rank = -1;
    char path[4096];
    snprintf(path, sizeof path, "%s.%d", c->log, rank);
    FILE *out = fopen(path, "a");
    if (out != NULL) {
      fprintf(out, "rank %d calls %ld data %ld\n", rank, f->calls, f->data_calls);
      fclose(out);
    }
  }
  free(f);
}

/* ---- every call: count, then the same call on the lower file ---- */

static int pt_enddef(void *f, const MPI_Offset *a) { COUNT(f); return LOWER(f).ops->enddef(LOWER(f).file, a); }
static int pt_redef(void *f) { COUNT(f); return LOWER(f).ops->redef(LOWER(f).file); }
static int pt_sync(void *f) { COUNT(f); return LOWER(f).ops->sync(LOWER(f).file); }
static int pt_flush(void *f) { COUNT(f); return LOWER(f).ops->flush(LOWER(f).file); }
static int pt_sync_numrecs(void *f) { COUNT(f); return LOWER(f).ops->sync_numrecs(LOWER(f).file); }
static int pt_begin_indep(void *f) { COUNT(f); return LOWER(f).ops->begin_indep(LOWER(f).file); }
static int pt_end_indep(void *f) { COUNT(f); return LOWER(f).ops->end_indep(LOWER(f).file); }
static int pt_close(void *f) { COUNT(f); return LOWER(f).ops->close(LOWER(f).file); }
static int pt_abort(void *f) { COUNT(f); return LOWER(f).ops->abort(LOWER(f).file); }
static int pt_set_fill(void *f, int mode, int *old) {
  COUNT(f);
  return LOWER(f).ops->set_fill(LOWER(f).file, mode, old);
}
static int pt_fill_var_rec(void *f, int varid, MPI_Offset recno) {
  COUNT(f);
  return LOWER(f).ops->fill_var_rec(LOWER(f).file, varid, recno);
}
static int pt_file_info(void *f, MPI_Info *info) { COUNT(f); return LOWER(f).ops->file_info(LOWER(f).file, info); }
static int pt_def_dim(void *f, const char *name, MPI_Offset len, int *id) {
  COUNT(f);
  return LOWER(f).ops->def_dim(LOWER(f).file, name, len, id);
}
static int pt_def_var(void *f, const char *name, nc_type type, int ndims, const int *dimids, int *id) {
  COUNT(f);
  return LOWER(f).ops->def_var(LOWER(f).file, name, type, ndims, dimids, id);
}
static int pt_def_var_fill(void *f, int varid, int no_fill, const void *value) {
  COUNT(f);
  return LOWER(f).ops->def_var_fill(LOWER(f).file, varid, no_fill, value);
}
static int pt_rename_dim(void *f, int id, const char *name) {
  COUNT(f);
  return LOWER(f).ops->rename_dim(LOWER(f).file, id, name);
}
static int pt_rename_var(void *f, int id, const char *name) {
  COUNT(f);
  return LOWER(f).ops->rename_var(LOWER(f).file, id, name);
}
static int pt_put_att(void *f, int varid, const char *name, nc_type xtype, MPI_Offset n, const void *v,
                      nc_type memtype) {
  COUNT(f);
  return LOWER(f).ops->put_att(LOWER(f).file, varid, name, xtype, n, v, memtype);
}
static int pt_del_att(void *f, int varid, const char *name) {
  COUNT(f);
  return LOWER(f).ops->del_att(LOWER(f).file, varid, name);
}
static int pt_rename_att(void *f, int varid, const char *name, const char *new_name) {
  COUNT(f);
  return LOWER(f).ops->rename_att(LOWER(f).file, varid, name, new_name);
}
static int pt_get_att(void *f, int varid, const char *name, void *v, nc_type memtype) {
  COUNT(f);
  return LOWER(f).ops->get_att(LOWER(f).file, varid, name, v, memtype);
}
static int pt_put(void *f, const exacdf_data_request *r) { COUNT_DATA(f); return LOWER(f).ops->put(LOWER(f).file, r); }
static int pt_get(void *f, const exacdf_data_request *r) { COUNT_DATA(f); return LOWER(f).ops->get(LOWER(f).file, r); }
static int pt_vard(void *f, int varid, MPI_Datatype ft, void *buf, MPI_Offset n, MPI_Datatype bt, int put,
                   int coll) {
  COUNT_DATA(f);
  return LOWER(f).ops->vard(LOWER(f).file, varid, ft, buf, n, bt, put, coll);
}
static int pt_post(void *f, const exacdf_data_request *r, int kind, int *reqid) {
  COUNT_DATA(f);
  return LOWER(f).ops->post(LOWER(f).file, r, kind, reqid);
}
static int pt_wait(void *f, int num, int *ids, int *st, int coll) {
  COUNT_DATA(f);
  return LOWER(f).ops->wait(LOWER(f).file, num, ids, st, coll);
}
static int pt_cancel(void *f, int num, int *ids, int *st) {
  COUNT(f);
  return LOWER(f).ops->cancel(LOWER(f).file, num, ids, st);
}
static int pt_inq_nreqs(void *f, int *n) { COUNT(f); return LOWER(f).ops->inq_nreqs(LOWER(f).file, n); }
static int pt_buffer_attach(void *f, MPI_Offset size) {
  COUNT(f);
  return LOWER(f).ops->buffer_attach(LOWER(f).file, size);
}
static int pt_buffer_detach(void *f) { COUNT(f); return LOWER(f).ops->buffer_detach(LOWER(f).file); }
static int pt_buffer_usage(void *f, MPI_Offset *usage, MPI_Offset *size) {
  COUNT(f);
  return LOWER(f).ops->buffer_usage(LOWER(f).file, usage, size);
}
/* Version 2: inquiries (forwarded: a connector that defers work would first
 * complete what the inquiry depends on) and request ids taken ahead. */
static int pt_inquire(void *f, const char *call, exacdf_inquiry *inquiry) {
  COUNT(f);
  return LOWER(f).ops->inquire(LOWER(f).file, call, inquiry);
}
static int pt_reserve_request(void *f, int *reqid) { return LOWER(f).ops->reserve_request(LOWER(f).file, reqid); }

static const exacdf_connector_class pt_class = {
    .version = EXACDF_CONNECTOR_VERSION,
    .size = sizeof(exacdf_connector_class),
    .name = "passthrough_c",
    .init = pt_init,
    .term = pt_term,
    .create = pt_create,
    .open = pt_open,
    .release_file = pt_release_file,
    .ops = {
        .enddef = pt_enddef, .redef = pt_redef, .sync = pt_sync, .flush = pt_flush,
        .sync_numrecs = pt_sync_numrecs, .begin_indep = pt_begin_indep, .end_indep = pt_end_indep,
        .close = pt_close, .abort = pt_abort, .set_fill = pt_set_fill, .fill_var_rec = pt_fill_var_rec,
        .file_info = pt_file_info, .def_dim = pt_def_dim, .def_var = pt_def_var,
        .def_var_fill = pt_def_var_fill, .rename_dim = pt_rename_dim, .rename_var = pt_rename_var,
        .put_att = pt_put_att, .del_att = pt_del_att, .rename_att = pt_rename_att, .get_att = pt_get_att,
        .put = pt_put, .get = pt_get, .vard = pt_vard, .post = pt_post, .wait = pt_wait,
        .cancel = pt_cancel, .inq_nreqs = pt_inq_nreqs, .buffer_attach = pt_buffer_attach,
        .buffer_detach = pt_buffer_detach, .buffer_usage = pt_buffer_usage,
        .inquire = pt_inquire, .reserve_request = pt_reserve_request,
    },
};

EXACDF_CONNECTOR_EXPORT const exacdf_connector_class *exacdf_connector_info(void) { return &pt_class; }
