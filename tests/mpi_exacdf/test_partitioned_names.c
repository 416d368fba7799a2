/*
 * Object names of partitioned files (docs/format.md, "name", "path"):
 * generated names (fixed seed) -- random group paths, separators doubled,
 * leading or trailing, components of 1 to NC_MAX_NAME bytes, UTF-8 -- go
 * through create, redef (more names, renames), close and reopen. A name the
 * define calls accept is found again by that exact name after the reopen
 * (ncmpi_inq_varid, ncmpi_inq_varname, its value); every other spelling is
 * NC_EBADNAME (NC_EMAXNAME: a name longer than NC_MAX_NAME) and leaves no
 * trace. exacdf only.
 */
#include <exacdf.h>

#include "mpi_test.h"

#define NTRIES 160
#define MAXLEN 2048

static unsigned long long rng_state = 0x9E3779B97F4A7C15ULL;
static unsigned rnd(unsigned n) {
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned)(rng_state >> 33) % n;
}

/* A valid netCDF name of `len` bytes (1..NC_MAX_NAME): a letter, then ASCII
 * letters, digits, '_', '.', '-' and two- and three-byte UTF-8 characters. */
static void component(char *out, int len) {
  static const char *multi[] = {"\xC3\xA9", "\xCE\xB1", "\xE4\xB8\xAD", "\xE2\x82\xAC"};
  static const char ascii[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-";
  int at = 0;
  out[at++] = (char)('a' + rnd(26));
  while (at < len) {
    if (rnd(4) == 0) {
      const char *m = multi[rnd(4)];
      int n = (int)strlen(m);
      if (at + n <= len) {
        memcpy(out + at, m, (size_t)n);
        at += n;
        continue;
      }
    }
    out[at++] = ascii[rnd(sizeof ascii - 1)];
  }
  out[at] = '\0';
}

/* A generated name and the code the define calls must return for it. */
static int generate(char *name) {
  int expect = NC_NOERR;
  int groups = (int)rnd(4);
  name[0] = '\0';
  int kind = (int)rnd(10); /* 0: '/' before a root name, 1: doubled '/', 2: trailing '/' */
  if (groups == 0 && kind == 0) {
    strcat(name, rnd(2) ? "/" : "//");
    expect = NC_EBADNAME;
  }
  for (int g = 0; g < groups; g++) {
    char c[NC_MAX_NAME + 1];
    component(c, 1 + (int)rnd(40));
    strcat(name, (kind == 1 && g == groups - 1) ? "//" : "/");
    if (kind == 1 && g == groups - 1) expect = NC_EBADNAME;
    strcat(name, c);
  }
  if (groups > 0) strcat(name, "/");
  if (kind == 2) {
    /* nothing after the last '/' */
    if (groups == 0) strcat(name, "x/");
    return NC_EBADNAME;
  }
  char local[NC_MAX_NAME + 2];
  int len = rnd(8) == 0 ? NC_MAX_NAME - 2 + (int)rnd(4) : 1 + (int)rnd(30);
  if (len > NC_MAX_NAME) {
    memset(local, 'L', (size_t)len);
    local[len] = '\0';
    expect = NC_EMAXNAME; /* the length of the name is checked before the path */
  } else {
    component(local, len);
  }
  strcat(name, local);
  return expect;
}

static char names[NTRIES][MAXLEN];
static int ids[NTRIES]; /* variable id, or -1 if the name was refused */

static void check_found(int ncid, int k, const char *name, int value) {
  int v = -1, got = -1;
  char back[MAXLEN];
  CHECK_OK(ncmpi_inq_varid(ncid, name, &v));
  if (v < 0) {
    fprintf(stderr, "not found again: '%s'\n", name);
    return;
  }
  CHECK_OK(ncmpi_inq_varname(ncid, v, back));
  CHECK(strcmp(back, name) == 0);
  CHECK_OK(ncmpi_get_var_int_all(ncid, v, &got));
  CHECK(got == value);
  (void)k;
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  char path[1200];
  snprintf(path, sizeof path, "%s", mpi_test_path("names.exa"));
  int ncid, nvalid = 0, nbad = 0;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED, MPI_INFO_NULL, &ncid));
  /* The reported case: "a" and "//a", "/a" are not the same object twice. */
  int d;
  CHECK_OK(ncmpi_def_dim(ncid, "a", 1, &d));
  CHECK_ERR(ncmpi_def_dim(ncid, "//a", 1, &d), NC_EBADNAME);
  CHECK_ERR(ncmpi_def_dim(ncid, "/a", 1, &d), NC_EBADNAME);
  CHECK_ERR(ncmpi_def_dim(ncid, "/g//a", 1, &d), NC_EBADNAME);
  CHECK_ERR(ncmpi_def_dim(ncid, "/g/a/", 1, &d), NC_EBADNAME);
  CHECK_ERR(ncmpi_def_dim(ncid, "g/a", 1, &d), NC_EBADNAME);
  CHECK_OK(ncmpi_def_dim(ncid, "/g/a", 1, &d));
  int one;
  CHECK_OK(ncmpi_inq_dimid(ncid, "a", &one));
  for (int k = 0; k < NTRIES; k++) {
    int expect = generate(names[k]);
    for (int j = 0; j < k && expect == NC_NOERR; j++)
      if (ids[j] >= 0 && strcmp(names[j], names[k]) == 0) expect = NC_ENAMEINUSE;
    ids[k] = -1;
    int got = ncmpi_def_var(ncid, names[k], NC_INT, 1, &one, &ids[k]);
    if (got != expect) fprintf(stderr, "def_var('%s'): %d, expected %d\n", names[k], got, expect);
    CHECK(got == expect);
    if (got != NC_NOERR) ids[k] = -1;
    if (got == NC_NOERR) nvalid++;
    else nbad++;
  }
  CHECK(nvalid > NTRIES / 3 && nbad > NTRIES / 10);
  CHECK_OK(ncmpi_enddef(ncid));
  for (int k = 0; k < NTRIES; k++)
    if (ids[k] >= 0) {
      int value = 1000 + k;
      CHECK_OK(ncmpi_put_var_int_all(ncid, ids[k], &value));
    }
  /* Redef: renames to new generated names (the refused ones leave the old name). */
  CHECK_OK(ncmpi_redef(ncid));
  for (int k = 0; k < NTRIES; k += 3) {
    if (ids[k] < 0) continue;
    char fresh[MAXLEN];
    int expect = generate(fresh);
    for (int j = 0; j < NTRIES && expect == NC_NOERR; j++)
      if (ids[j] >= 0 && strcmp(names[j], fresh) == 0) expect = NC_ENAMEINUSE;
    int got = ncmpi_rename_var(ncid, ids[k], fresh);
    if (got != expect) fprintf(stderr, "rename_var('%s'): %d, expected %d\n", fresh, got, expect);
    CHECK(got == expect);
    if (got == NC_NOERR) strcpy(names[k], fresh);
  }
  CHECK_OK(ncmpi_close(ncid));

  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  int nvars = -1;
  CHECK_OK(ncmpi_inq_nvars(ncid, &nvars));
  CHECK(nvars == nvalid);
  for (int k = 0; k < NTRIES; k++)
    if (ids[k] >= 0) check_found(ncid, k, names[k], 1000 + k);
  CHECK_OK(ncmpi_inq_dimid(ncid, "/g/a", &d));
  CHECK_ERR(ncmpi_inq_dimid(ncid, "//a", &d), NC_EBADDIM);
  CHECK_OK(ncmpi_close(ncid));
  return mpi_test_finish();
}
