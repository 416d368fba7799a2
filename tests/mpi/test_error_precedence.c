/* Which error a call returns when several of its arguments are wrong, and
 * what NULL arguments mean: the codes PnetCDF 1.12.3 returns, in its order of
 * checks, for every call family (file, dim, var, att, put/get, varn,
 * nonblocking, wait/cancel). Every rank makes the same calls with the same
 * arguments, so collective calls fail alike everywhere. The expectations
 * were found by running the same calls against PnetCDF 1.12.3 (oracle). */
#include <stdint.h>

#include "mpi_test.h"

#define BAD_VARID 99
#define BAD_DIMID 99

/* A CDF-5 file in define mode: x = 4, y = 3, t unlimited; v2(x, y) int. */
static int create_file(const char *name, int *d0, int *d1, int *drec, int *v2) {
  int ncid = -1;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, mpi_test_path(name), NC_CLOBBER | NC_64BIT_DATA,
                        MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "x", 4, d0));
  CHECK_OK(ncmpi_def_dim(ncid, "y", 3, d1));
  CHECK_OK(ncmpi_def_dim(ncid, "t", NC_UNLIMITED, drec));
  int dims[2] = {*d0, *d1};
  CHECK_OK(ncmpi_def_var(ncid, "v2", NC_INT, 2, dims, v2));
  return ncid;
}

/* Mode errors come before everything else the call checks. */
static void file_family(void) {
  int d0, d1, drec, v2, id;
  int ncid = create_file("prec_file.nc", &d0, &d1, &drec, &v2);
  CHECK_ERR(ncmpi_enddef(-1), NC_EBADID);
  CHECK_ERR(ncmpi_inq(-1, NULL, NULL, NULL, NULL), NC_EBADID);
  CHECK_ERR(ncmpi_redef(ncid), NC_EINDEFINE);
  CHECK_ERR(ncmpi_begin_indep_data(ncid), NC_EINDEFINE);
  CHECK_ERR(ncmpi_end_indep_data(ncid), NC_EINDEFINE);
  CHECK_ERR(ncmpi_sync(ncid), NC_EINDEFINE);
  CHECK_ERR(ncmpi_set_fill(ncid, 7, NULL), NC_EINVAL);
  /* fill_var_rec: record variable, then fill mode, before define mode. */
  int rdims[1] = {drec}, vr;
  CHECK_OK(ncmpi_def_var(ncid, "r", NC_INT, 1, rdims, &vr));
  CHECK_ERR(ncmpi_fill_var_rec(ncid, v2, 0), NC_ENOTRECVAR);
  CHECK_ERR(ncmpi_fill_var_rec(ncid, vr, 0), NC_ENOTFILL); /* the default fill mode is NC_NOFILL */
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_ERR(ncmpi_fill_var_rec(ncid, v2, 0), NC_ENOTRECVAR);
  CHECK_ERR(ncmpi_fill_var_rec(ncid, vr, 0), NC_ENOTFILL);
  CHECK_ERR(ncmpi_enddef(ncid), NC_ENOTINDEFINE);
  CHECK_ERR(ncmpi_set_fill(ncid, NC_NOFILL, NULL), NC_ENOTINDEFINE);
  CHECK_OK(ncmpi_close(ncid));
  CHECK_ERR(ncmpi_close(ncid), NC_EBADID);

  /* A read-only file: permission comes first wherever a call would write,
   * define-mode errors where a call needs define mode and cannot write. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, mpi_test_path("prec_file.nc"), NC_NOWRITE, MPI_INFO_NULL, &ncid));
  int ib[2] = {1, 2};
  MPI_Offset st[2] = {0, 0}, ct[2] = {1, 1};
  CHECK_ERR(ncmpi_redef(ncid), NC_EPERM);
  CHECK_ERR(ncmpi_set_fill(ncid, NC_FILL, NULL), NC_EPERM);
  CHECK_ERR(ncmpi_def_dim(ncid, "bad/name", -1, &id), NC_ENOTINDEFINE);
  CHECK_ERR(ncmpi_def_var_fill(ncid, NC_GLOBAL, 0, NULL), NC_ENOTINDEFINE);
  CHECK_ERR(ncmpi_put_att_int(ncid, BAD_VARID, "bad/name", 99, 1, ib), NC_EPERM);
  CHECK_ERR(ncmpi_put_att_int(ncid, NC_GLOBAL, "a", NC_INT, 1, ib), NC_EPERM);
  CHECK_ERR(ncmpi_del_att(ncid, BAD_VARID, "nope"), NC_EPERM);
  CHECK_ERR(ncmpi_rename_att(ncid, BAD_VARID, "a", "bad/name"), NC_EPERM);
  CHECK_ERR(ncmpi_rename_var(ncid, BAD_VARID, "bad/name"), NC_EPERM);
  CHECK_ERR(ncmpi_rename_dim(ncid, BAD_DIMID, "bad/name"), NC_EPERM);
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, BAD_VARID, NULL, NULL, NULL), NC_EPERM);
  CHECK_ERR(ncmpi_put_vara_int(ncid, BAD_VARID, NULL, NULL, NULL), NC_EPERM);
  CHECK_ERR(ncmpi_iput_vara_int(ncid, BAD_VARID, NULL, NULL, NULL, &id), NC_EPERM);
  CHECK_ERR(ncmpi_bput_vara_int(ncid, BAD_VARID, NULL, NULL, NULL, &id), NC_EPERM);
  CHECK_ERR(ncmpi_put_varn_int_all(ncid, BAD_VARID, 0, NULL, NULL, NULL), NC_EPERM);
  CHECK_OK(ncmpi_get_vara_int_all(ncid, v2, st, ct, ib));
  CHECK_OK(ncmpi_buffer_attach(ncid, 1024));
  CHECK_ERR(ncmpi_bput_vara_int(ncid, v2, st, ct, ib, &id), NC_EPERM);
  CHECK_OK(ncmpi_buffer_detach(ncid));
  /* Nothing to flush in a read-only file. */
  CHECK_OK(ncmpi_sync(ncid));
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  CHECK_OK(ncmpi_sync(ncid));
  CHECK_ERR(ncmpi_put_varn_int_all(ncid, v2, 0, NULL, NULL, NULL), NC_EPERM);
  CHECK_OK(ncmpi_end_indep_data(ncid));
  CHECK_OK(ncmpi_close(ncid));
}

/* def_dim: define mode, name, size, a second unlimited dimension, name in use.
 * rename_dim: permission, name, id, name in use, a longer name in data mode. */
static void dim_family(void) {
  int d0, d1, drec, v2, id;
  int ncid = create_file("prec_dim.nc", &d0, &d1, &drec, &v2);
  CHECK_ERR(ncmpi_def_dim(-1, NULL, -1, &id), NC_EBADID);
  CHECK_ERR(ncmpi_def_dim(ncid, NULL, -1, &id), NC_EBADNAME);
  CHECK_ERR(ncmpi_def_dim(ncid, "bad/name", -1, &id), NC_EBADNAME);
  CHECK_ERR(ncmpi_def_dim(ncid, "", 5, &id), NC_EBADNAME);
  CHECK_ERR(ncmpi_def_dim(ncid, "x", -1, &id), NC_EDIMSIZE); /* size before name in use */
  CHECK_ERR(ncmpi_def_dim(ncid, "x", 5, &id), NC_ENAMEINUSE);
  CHECK_ERR(ncmpi_def_dim(ncid, "t2", NC_UNLIMITED, &id), NC_EUNLIMIT);
  CHECK_ERR(ncmpi_def_dim(ncid, "bad/name", NC_UNLIMITED, &id), NC_EBADNAME);
  CHECK_ERR(ncmpi_def_dim(ncid, "y", NC_UNLIMITED, &id), NC_EUNLIMIT); /* before name in use */
  CHECK_ERR(ncmpi_rename_dim(ncid, BAD_DIMID, "bad/name"), NC_EBADNAME); /* name before id */
  CHECK_ERR(ncmpi_rename_dim(ncid, BAD_DIMID, NULL), NC_EBADNAME);
  CHECK_ERR(ncmpi_rename_dim(ncid, d0, NULL), NC_EBADNAME);
  CHECK_ERR(ncmpi_rename_dim(ncid, -1, "y"), NC_EBADDIM); /* id before name in use */
  CHECK_ERR(ncmpi_rename_dim(ncid, d0, "y"), NC_ENAMEINUSE);
  CHECK_ERR(ncmpi_inq_dim(ncid, BAD_DIMID, NULL, NULL), NC_EBADDIM);
  CHECK_ERR(ncmpi_inq_dimid(ncid, NULL, &id), NC_EBADNAME);
  CHECK_ERR(ncmpi_inq_dimid(ncid, "nope", &id), NC_EBADDIM);
  CHECK_ERR(ncmpi_inq_dimid(ncid, "bad/name", &id), NC_EBADDIM);
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_ERR(ncmpi_def_dim(ncid, "bad/name", -1, &id), NC_ENOTINDEFINE);
  CHECK_ERR(ncmpi_def_dim(ncid, NULL, 2, &id), NC_ENOTINDEFINE);
  CHECK_ERR(ncmpi_rename_dim(ncid, d0, "bad/name"), NC_EBADNAME);
  CHECK_ERR(ncmpi_rename_dim(ncid, BAD_DIMID, "muchlongername"), NC_EBADDIM);
  CHECK_ERR(ncmpi_rename_dim(ncid, d0, "muchlongername"), NC_ENOTINDEFINE);
  CHECK_OK(ncmpi_close(ncid));
}

/* def_var: define mode, name, type, ndims < 0, name in use, NULL dimids,
 * dimension ids, unlimited position. rename_var: permission, NC_GLOBAL,
 * variable id, name, name in use. */
static void var_family(void) {
  int d0, d1, drec, v2, id, vs;
  int ncid = create_file("prec_var.nc", &d0, &d1, &drec, &v2);
  int bad[2] = {d0, 77}, rec2[2] = {drec, d1}, recsecond[2] = {d0, drec};
  CHECK_ERR(ncmpi_def_var(ncid, NULL, 99, -1, NULL, &id), NC_EBADNAME);
  CHECK_ERR(ncmpi_def_var(ncid, "bad/name", 99, -1, NULL, &id), NC_EBADNAME);
  CHECK_ERR(ncmpi_def_var(ncid, "", NC_INT, 1, &d0, &id), NC_EBADNAME);
  CHECK_ERR(ncmpi_def_var(ncid, "v", 99, -1, NULL, &id), NC_EBADTYPE);
  CHECK_ERR(ncmpi_def_var(ncid, "v", 99, 2, NULL, &id), NC_EBADTYPE);
  CHECK_ERR(ncmpi_def_var(ncid, "v", 99, 2, bad, &id), NC_EBADTYPE);
  CHECK_ERR(ncmpi_def_var(ncid, "v", NC_INT, -1, NULL, &id), NC_EINVAL);
  CHECK_ERR(ncmpi_def_var(ncid, "v", NC_INT, 2, NULL, &id), NC_EINVAL);
  CHECK_ERR(ncmpi_def_var(ncid, "v", NC_INT, 2, bad, &id), NC_EBADDIM);
  CHECK_ERR(ncmpi_def_var(ncid, "bad/name", NC_INT, 2, bad, &id), NC_EBADNAME);
  CHECK_ERR(ncmpi_def_var(ncid, "x", NC_INT, 2, bad, &id), NC_EBADDIM); /* a dimension's name is free */
  CHECK_ERR(ncmpi_def_var(ncid, "v2", 99, 2, rec2, &id), NC_EBADTYPE);
  CHECK_ERR(ncmpi_def_var(ncid, "v2", NC_INT, -1, NULL, &id), NC_EINVAL);    /* ndims before name in use */
  CHECK_ERR(ncmpi_def_var(ncid, "v2", NC_INT, 2, NULL, &id), NC_ENAMEINUSE); /* name in use before dimids */
  CHECK_ERR(ncmpi_def_var(ncid, "v2", NC_INT, 2, bad, &id), NC_ENAMEINUSE);
  CHECK_ERR(ncmpi_def_var(ncid, "rs", NC_INT, 2, recsecond, &id), NC_EUNLIMPOS);
  CHECK_ERR(ncmpi_def_var(ncid, "rs", 99, 2, recsecond, &id), NC_EBADTYPE);
  CHECK_OK(ncmpi_def_var(ncid, "s", NC_DOUBLE, 0, NULL, &vs));
  CHECK_ERR(ncmpi_rename_var(ncid, BAD_VARID, "bad/name"), NC_ENOTVAR); /* id before name */
  CHECK_ERR(ncmpi_rename_var(ncid, BAD_VARID, NULL), NC_ENOTVAR);
  CHECK_ERR(ncmpi_rename_var(ncid, BAD_VARID, "s"), NC_ENOTVAR);
  CHECK_ERR(ncmpi_rename_var(ncid, NC_GLOBAL, "bad/name"), NC_EGLOBAL);
  CHECK_ERR(ncmpi_rename_var(ncid, NC_GLOBAL, NULL), NC_EGLOBAL);
  CHECK_ERR(ncmpi_rename_var(ncid, v2, "bad/name"), NC_EBADNAME);
  CHECK_ERR(ncmpi_rename_var(ncid, v2, NULL), NC_EBADNAME);
  CHECK_ERR(ncmpi_rename_var(ncid, v2, "s"), NC_ENAMEINUSE);
  CHECK_ERR(ncmpi_inq_varid(ncid, NULL, &id), NC_EBADNAME);
  CHECK_ERR(ncmpi_inq_varid(ncid, "bad/name", &id), NC_ENOTVAR);
  CHECK_ERR(ncmpi_inq_var(ncid, BAD_VARID, NULL, NULL, NULL, NULL, NULL), NC_ENOTVAR);
  CHECK_ERR(ncmpi_inq_var(ncid, -7, NULL, NULL, NULL, NULL, NULL), NC_ENOTVAR);
  /* NC_GLOBAL: only its number of attributes can be asked. */
  int na = -1, nd = -1;
  nc_type t;
  char name[NC_MAX_NAME + 1];
  CHECK_OK(ncmpi_put_att_int(ncid, NC_GLOBAL, "g", NC_INT, 1, &na));
  CHECK_OK(ncmpi_inq_var(ncid, NC_GLOBAL, NULL, NULL, NULL, NULL, &na));
  CHECK(na == 1);
  na = -1;
  CHECK_OK(ncmpi_inq_varnatts(ncid, NC_GLOBAL, &na));
  CHECK(na == 1);
  CHECK_ERR(ncmpi_inq_var(ncid, NC_GLOBAL, name, &t, &nd, NULL, &na), NC_EGLOBAL);
  CHECK_ERR(ncmpi_inq_varname(ncid, NC_GLOBAL, name), NC_EGLOBAL);
  CHECK_ERR(ncmpi_inq_vartype(ncid, NC_GLOBAL, &t), NC_EGLOBAL);
  CHECK_ERR(ncmpi_inq_varndims(ncid, NC_GLOBAL, &nd), NC_EGLOBAL);
  CHECK_ERR(ncmpi_inq_var_fill(ncid, NC_GLOBAL, &nd, NULL), NC_EGLOBAL);
  CHECK_ERR(ncmpi_inq_var_fill(ncid, BAD_VARID, &nd, NULL), NC_ENOTVAR);
  /* def_var_fill: define mode, then NC_GLOBAL, then the id. */
  CHECK_ERR(ncmpi_def_var_fill(ncid, NC_GLOBAL, 0, NULL), NC_EGLOBAL);
  CHECK_ERR(ncmpi_def_var_fill(ncid, BAD_VARID, 0, NULL), NC_ENOTVAR);
  CHECK_ERR(ncmpi_def_var_fill(ncid, -7, 0, NULL), NC_ENOTVAR);
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_ERR(ncmpi_def_var(ncid, "bad/name", 99, 2, bad, &id), NC_ENOTINDEFINE);
  CHECK_ERR(ncmpi_def_var(ncid, NULL, NC_INT, 1, &d0, &id), NC_ENOTINDEFINE);
  CHECK_ERR(ncmpi_def_var_fill(ncid, NC_GLOBAL, 0, NULL), NC_ENOTINDEFINE);
  CHECK_ERR(ncmpi_def_var_fill(ncid, BAD_VARID, 0, NULL), NC_ENOTINDEFINE);
  CHECK_ERR(ncmpi_rename_var(ncid, BAD_VARID, "muchlongername"), NC_ENOTVAR);
  CHECK_ERR(ncmpi_rename_var(ncid, v2, "bad/name"), NC_EBADNAME);
  CHECK_ERR(ncmpi_rename_var(ncid, v2, "muchlongername"), NC_ENOTINDEFINE);
  CHECK_OK(ncmpi_rename_var(ncid, v2, "w"));
  CHECK_OK(ncmpi_inq_varname(ncid, v2, name));
  CHECK(strcmp(name, "w") == 0);
  CHECK_OK(ncmpi_close(ncid));
}

/* put_att: permission, owner, name, type, text mismatch, length, values;
 * define-mode rules last. get/inq: owner, name, existence, text mismatch.
 * rename_att: permission, owner, names (old NULL, new), existence, name in
 * use. del_att: permission, define mode, owner, name, existence. */
static void att_family(void) {
  int d0, d1, drec, v2;
  int ncid = create_file("prec_att.nc", &d0, &d1, &drec, &v2);
  int ib[4] = {1, 2, 3, 4};
  char cb[8] = "abc";
  nc_type t;
  MPI_Offset len;
  int num;
  CHECK_ERR(ncmpi_put_att_int(ncid, BAD_VARID, "bad/name", 99, 1, ib), NC_ENOTVAR);
  CHECK_ERR(ncmpi_put_att_int(ncid, BAD_VARID, NULL, NC_INT, 1, ib), NC_ENOTVAR);
  CHECK_ERR(ncmpi_put_att_int(ncid, BAD_VARID, "a", NC_INT, -1, ib), NC_ENOTVAR);
  CHECK_ERR(ncmpi_put_att_int(ncid, NC_GLOBAL, "bad/name", 99, 1, ib), NC_EBADNAME);
  CHECK_ERR(ncmpi_put_att_int(ncid, NC_GLOBAL, "bad/name", NC_INT, -1, ib), NC_EBADNAME);
  CHECK_ERR(ncmpi_put_att_int(ncid, NC_GLOBAL, NULL, 99, -1, ib), NC_EBADNAME);
  CHECK_ERR(ncmpi_put_att_int(ncid, NC_GLOBAL, "a", 99, -1, ib), NC_EBADTYPE);
  CHECK_ERR(ncmpi_put_att_int(ncid, NC_GLOBAL, "a", NC_CHAR, -1, ib), NC_ECHAR);
  CHECK_ERR(ncmpi_put_att_int(ncid, NC_GLOBAL, "a", NC_INT, -1, ib), NC_EINVAL);
  CHECK_ERR(ncmpi_put_att_int(ncid, NC_GLOBAL, "a", NC_INT, 1, NULL), NC_EINVAL);
  CHECK_ERR(ncmpi_put_att_text(ncid, NC_GLOBAL, "bad/name", -1, NULL), NC_EBADNAME);
  CHECK_ERR(ncmpi_put_att_text(ncid, NC_GLOBAL, "tx", -1, cb), NC_EINVAL);
  CHECK_ERR(ncmpi_put_att_text(ncid, NC_GLOBAL, "tx", 2, NULL), NC_EINVAL);
  CHECK_ERR(ncmpi_put_att(ncid, NC_GLOBAL, "u", 99, 1, ib), NC_EBADTYPE);
  CHECK_ERR(ncmpi_put_att(ncid, NC_GLOBAL, "u", NC_INT, -1, ib), NC_EINVAL);
  CHECK_ERR(ncmpi_put_att_int(ncid, v2, "_FillValue", NC_SHORT, 2, ib), NC_EBADTYPE);
  CHECK_ERR(ncmpi_put_att_int(ncid, v2, "_FillValue", NC_INT, 2, ib), NC_EINVAL);
  CHECK_OK(ncmpi_put_att_int(ncid, NC_GLOBAL, "z", NC_INT, 0, NULL));
  CHECK_OK(ncmpi_put_att_text(ncid, NC_GLOBAL, "tx", 3, cb));
  CHECK_OK(ncmpi_put_att_int(ncid, NC_GLOBAL, "a", NC_INT, 1, ib));
  CHECK_OK(ncmpi_put_att_int(ncid, v2, "a", NC_INT, 1, ib));

  CHECK_ERR(ncmpi_get_att_int(ncid, BAD_VARID, NULL, ib), NC_ENOTVAR);
  CHECK_ERR(ncmpi_get_att_int(ncid, BAD_VARID, "nope", ib), NC_ENOTVAR);
  CHECK_ERR(ncmpi_get_att_int(ncid, NC_GLOBAL, NULL, ib), NC_EBADNAME);
  CHECK_ERR(ncmpi_get_att_int(ncid, NC_GLOBAL, "nope", ib), NC_ENOTATT);
  CHECK_ERR(ncmpi_get_att_int(ncid, NC_GLOBAL, "tx", ib), NC_ECHAR);
  CHECK_ERR(ncmpi_get_att_text(ncid, NC_GLOBAL, "a", cb), NC_ECHAR);
  CHECK_ERR(ncmpi_get_att_int(ncid, NC_GLOBAL, "a", NULL), NC_EINVAL);
  CHECK_ERR(ncmpi_get_att(ncid, NC_GLOBAL, "a", NULL), NC_EINVAL);
  CHECK_ERR(ncmpi_inq_att(ncid, BAD_VARID, NULL, &t, &len), NC_ENOTVAR);
  CHECK_ERR(ncmpi_inq_att(ncid, NC_GLOBAL, NULL, &t, &len), NC_EBADNAME);
  CHECK_ERR(ncmpi_inq_att(ncid, NC_GLOBAL, "nope", &t, &len), NC_ENOTATT);
  CHECK_ERR(ncmpi_inq_attid(ncid, BAD_VARID, NULL, &num), NC_ENOTVAR);
  CHECK_ERR(ncmpi_inq_attid(ncid, NC_GLOBAL, NULL, &num), NC_EBADNAME);
  CHECK_ERR(ncmpi_inq_attname(ncid, BAD_VARID, 99, cb), NC_ENOTVAR);
  CHECK_ERR(ncmpi_inq_attname(ncid, NC_GLOBAL, 99, cb), NC_ENOTATT);
  CHECK_ERR(ncmpi_inq_attname(ncid, NC_GLOBAL, -1, cb), NC_ENOTATT);

  CHECK_ERR(ncmpi_rename_att(ncid, BAD_VARID, "a", "bad/name"), NC_ENOTVAR);
  CHECK_ERR(ncmpi_rename_att(ncid, BAD_VARID, NULL, NULL), NC_ENOTVAR);
  CHECK_ERR(ncmpi_rename_att(ncid, NC_GLOBAL, "nope", "bad/name"), NC_EBADNAME); /* new name before existence */
  CHECK_ERR(ncmpi_rename_att(ncid, NC_GLOBAL, "nope", NULL), NC_EBADNAME);
  CHECK_ERR(ncmpi_rename_att(ncid, NC_GLOBAL, NULL, "b"), NC_EBADNAME);
  CHECK_ERR(ncmpi_rename_att(ncid, NC_GLOBAL, NULL, "bad/name"), NC_EBADNAME);
  CHECK_ERR(ncmpi_rename_att(ncid, NC_GLOBAL, "a", NULL), NC_EBADNAME);
  CHECK_ERR(ncmpi_rename_att(ncid, NC_GLOBAL, "a", "bad/name"), NC_EBADNAME);
  CHECK_ERR(ncmpi_rename_att(ncid, NC_GLOBAL, "bad/name", "b"), NC_ENOTATT); /* the old name is only looked up */
  CHECK_ERR(ncmpi_rename_att(ncid, NC_GLOBAL, "nope", "tx"), NC_ENOTATT);
  CHECK_ERR(ncmpi_rename_att(ncid, NC_GLOBAL, "a", "tx"), NC_ENAMEINUSE);
  CHECK_ERR(ncmpi_del_att(ncid, BAD_VARID, NULL), NC_ENOTVAR);
  CHECK_ERR(ncmpi_del_att(ncid, BAD_VARID, "nope"), NC_ENOTVAR);
  CHECK_ERR(ncmpi_del_att(ncid, NC_GLOBAL, NULL), NC_EBADNAME);
  CHECK_ERR(ncmpi_del_att(ncid, NC_GLOBAL, "nope"), NC_ENOTATT);
  /* copy_att: both owners before the name and the attribute. */
  CHECK_ERR(ncmpi_copy_att(ncid, BAD_VARID, "a", ncid, NC_GLOBAL), NC_ENOTVAR);
  CHECK_ERR(ncmpi_copy_att(ncid, NC_GLOBAL, "a", ncid, BAD_VARID), NC_ENOTVAR);
  CHECK_ERR(ncmpi_copy_att(ncid, NC_GLOBAL, "nope", ncid, BAD_VARID), NC_ENOTVAR);
  CHECK_ERR(ncmpi_copy_att(ncid, NC_GLOBAL, NULL, ncid, BAD_VARID), NC_ENOTVAR);
  CHECK_ERR(ncmpi_copy_att(ncid, BAD_VARID, NULL, ncid, BAD_VARID - 1), NC_ENOTVAR);
  CHECK_ERR(ncmpi_copy_att(ncid, NC_GLOBAL, NULL, ncid, v2), NC_EBADNAME);
  CHECK_ERR(ncmpi_copy_att(ncid, NC_GLOBAL, "nope", ncid, v2), NC_ENOTATT);
  CHECK_ERR(ncmpi_copy_att(ncid, NC_GLOBAL, "a", -1, v2), NC_EBADID);
  CHECK_OK(ncmpi_copy_att(ncid, NC_GLOBAL, "tx", ncid, v2));

  CHECK_OK(ncmpi_enddef(ncid));
  /* Data mode: the owner, name and type are checked before define mode. */
  CHECK_ERR(ncmpi_put_att_int(ncid, BAD_VARID, "bad/name", 99, 1, ib), NC_ENOTVAR);
  CHECK_ERR(ncmpi_put_att_int(ncid, BAD_VARID, NULL, NC_INT, 1, ib), NC_ENOTVAR);
  CHECK_ERR(ncmpi_put_att_int(ncid, NC_GLOBAL, NULL, NC_INT, 1, ib), NC_EBADNAME);
  CHECK_ERR(ncmpi_put_att_int(ncid, NC_GLOBAL, "bad/name", NC_INT, 1, ib), NC_EBADNAME);
  CHECK_ERR(ncmpi_put_att_int(ncid, NC_GLOBAL, "a", 99, 1, ib), NC_EBADTYPE);
  CHECK_ERR(ncmpi_put_att_int(ncid, NC_GLOBAL, "a", NC_CHAR, 1, ib), NC_ECHAR);
  CHECK_ERR(ncmpi_put_att_int(ncid, NC_GLOBAL, "new", NC_INT, -1, ib), NC_EINVAL);
  CHECK_ERR(ncmpi_put_att_int(ncid, NC_GLOBAL, "new", NC_INT, 1, ib), NC_ENOTINDEFINE);
  CHECK_ERR(ncmpi_put_att_int(ncid, NC_GLOBAL, "a", NC_INT, 2, ib), NC_ENOTINDEFINE);
  CHECK_ERR(ncmpi_put_att_int(ncid, v2, "_FillValue", NC_INT, 1, ib), NC_ENOTINDEFINE);
  CHECK_ERR(ncmpi_del_att(ncid, BAD_VARID, "nope"), NC_ENOTINDEFINE); /* define mode before the owner */
  CHECK_ERR(ncmpi_del_att(ncid, NC_GLOBAL, NULL), NC_ENOTINDEFINE);
  CHECK_ERR(ncmpi_rename_att(ncid, BAD_VARID, "a", "bad/name"), NC_ENOTVAR);
  CHECK_ERR(ncmpi_rename_att(ncid, BAD_VARID, NULL, "b"), NC_ENOTVAR);
  CHECK_ERR(ncmpi_rename_att(ncid, NC_GLOBAL, "a", "bad/name"), NC_EBADNAME);
  CHECK_ERR(ncmpi_rename_att(ncid, NC_GLOBAL, "nope", "b"), NC_ENOTATT);
  CHECK_ERR(ncmpi_rename_att(ncid, NC_GLOBAL, "a", "muchlongername"), NC_ENOTINDEFINE);
  /* Nothing changed by the failed calls. */
  int got = 0;
  CHECK_OK(ncmpi_get_att_int(ncid, NC_GLOBAL, "a", &got));
  CHECK(got == 1);
  char text[8] = {0};
  CHECK_OK(ncmpi_get_att_text(ncid, v2, "tx", text));
  CHECK(memcmp(text, "abc", 3) == 0);
  CHECK_OK(ncmpi_close(ncid));
}

/* Blocking put/get: permission, define mode, collective/independent mode,
 * NC_GLOBAL, variable id, a typed call's text mismatch, then coordinates
 * (start, then count, then stride), then a flexible call's buffer. */
static void data_family(void) {
  int d0, d1, drec, v2, vrec, vs, vt, id;
  int ncid = create_file("prec_data.nc", &d0, &d1, &drec, &v2);
  int rdims[2] = {drec, d1};
  CHECK_OK(ncmpi_def_var(ncid, "rv", NC_INT, 2, rdims, &vrec));
  CHECK_OK(ncmpi_def_var(ncid, "s", NC_DOUBLE, 0, NULL, &vs));
  CHECK_OK(ncmpi_def_var(ncid, "txt", NC_CHAR, 1, &d0, &vt));
  int ib[64] = {0};
  double db[4] = {1.5, 0, 0, 0};
  char cb[8] = "abcd";
  MPI_Offset st[2] = {0, 0}, ct[2] = {1, 1}, sd[2] = {1, 1}, im[2] = {1, 1};
  MPI_Offset bs[2] = {9, 0}, bc[2] = {9, 1}, nc[2] = {-1, 1}, z[2] = {0, 0};
  MPI_Offset stz[2] = {0, 1}, sd2[2] = {2, 1}, c3[2] = {3, 1}, eq[2] = {4, 0};
  MPI_Offset big[2] = {INT64_MAX, 1}, big2[2] = {1, INT64_MAX};
  MPI_Offset r1[2] = {1, 0}, r9[2] = {9, 0}, rc2[2] = {2, 1};
  MPI_Offset huge[2] = {(MPI_Offset)5000000000LL, 0};

  /* Define mode. */
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, BAD_VARID, NULL, NULL, NULL), NC_EINDEFINE);
  CHECK_ERR(ncmpi_put_vara_int(ncid, BAD_VARID, NULL, NULL, NULL), NC_EINDEFINE);
  CHECK_ERR(ncmpi_get_vara_int_all(ncid, v2, NULL, NULL, NULL), NC_EINDEFINE);
  CHECK_ERR(ncmpi_iput_vara_int(ncid, BAD_VARID, NULL, NULL, NULL, &id), NC_ENOTVAR);
  CHECK_ERR(ncmpi_iput_vara_int(ncid, v2, NULL, NULL, ib, &id), NC_EINVALCOORDS);
  CHECK_OK(ncmpi_enddef(ncid));

  /* Mode, then ids, then a typed call's text mismatch. */
  CHECK_ERR(ncmpi_put_vara_int(ncid, v2, st, ct, ib), NC_ENOTINDEP);
  CHECK_ERR(ncmpi_put_vara_int(ncid, BAD_VARID, NULL, NULL, ib), NC_ENOTINDEP);
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, NC_GLOBAL, NULL, NULL, ib), NC_EGLOBAL);
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, BAD_VARID, NULL, NULL, ib), NC_ENOTVAR);
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, -5, NULL, NULL, ib), NC_ENOTVAR);
  CHECK_ERR(ncmpi_put_vara_text_all(ncid, v2, NULL, NULL, NULL), NC_ECHAR);
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, vt, NULL, NULL, NULL), NC_ECHAR);
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, vt, bs, bc, ib), NC_ECHAR);

  /* NULL start: an invalid coordinate; NULL count (vara/vars/varm): an edge
   * error once the start is valid; NULL stride: 1; NULL imap: contiguous. */
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, v2, NULL, NULL, NULL), NC_EINVALCOORDS);
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, v2, NULL, ct, ib), NC_EINVALCOORDS);
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, v2, st, NULL, ib), NC_EEDGE);
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, v2, bs, NULL, ib), NC_EINVALCOORDS);
  CHECK_ERR(ncmpi_get_vara_int_all(ncid, v2, NULL, ct, ib), NC_EINVALCOORDS);
  CHECK_ERR(ncmpi_get_vara_int_all(ncid, v2, st, NULL, ib), NC_EEDGE);
  CHECK_ERR(ncmpi_put_var1_int_all(ncid, v2, NULL, ib), NC_EINVALCOORDS);
  CHECK_ERR(ncmpi_get_var1_int_all(ncid, v2, NULL, ib), NC_EINVALCOORDS);
  CHECK_ERR(ncmpi_put_vars_int_all(ncid, v2, NULL, NULL, NULL, ib), NC_EINVALCOORDS);
  CHECK_ERR(ncmpi_put_vars_int_all(ncid, v2, st, NULL, NULL, ib), NC_EEDGE);
  CHECK_ERR(ncmpi_put_varm_int_all(ncid, v2, NULL, ct, sd, im, ib), NC_EINVALCOORDS);
  CHECK_ERR(ncmpi_put_varm_int_all(ncid, v2, st, NULL, sd, im, ib), NC_EEDGE);
  CHECK_ERR(ncmpi_get_varm_int_all(ncid, v2, st, NULL, NULL, NULL, ib), NC_EEDGE);
  CHECK_OK(ncmpi_put_var1_double_all(ncid, vs, NULL, db)); /* a scalar needs no start */
  CHECK_OK(ncmpi_put_vara_double_all(ncid, vs, NULL, NULL, db));
  double dgot = 0;
  CHECK_OK(ncmpi_get_var1_double_all(ncid, vs, NULL, &dgot));
  CHECK(dgot == 1.5);
  MPI_Offset all[2] = {4, 3};
  int vals[12], back[12], back2[12];
  for (int i = 0; i < 12; i++) vals[i] = 100 + i;
  CHECK_OK(ncmpi_put_vars_int_all(ncid, v2, st, all, NULL, vals));
  memset(back, 0, sizeof back);
  CHECK_OK(ncmpi_get_vars_int_all(ncid, v2, st, all, NULL, back));
  CHECK(memcmp(back, vals, sizeof vals) == 0);
  memset(back2, 0, sizeof back2);
  CHECK_OK(ncmpi_get_varm_int_all(ncid, v2, st, all, NULL, NULL, back2));
  CHECK(memcmp(back2, vals, sizeof vals) == 0);
  memset(back2, 0, sizeof back2);
  CHECK_OK(ncmpi_get_varm_int_all(ncid, v2, st, all, sd, NULL, back2));
  CHECK(memcmp(back2, vals, sizeof vals) == 0);
  MPI_Offset tmap[2] = {1, 4}; /* transposed in memory */
  CHECK_OK(ncmpi_get_varm_int_all(ncid, v2, st, all, NULL, tmap, back2));
  CHECK(back2[0] == 100 && back2[4] == 101 && back2[1] == 103);

  /* Coordinates: every start, then per dimension count sign and edge, then strides. */
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, v2, bs, bc, ib), NC_EINVALCOORDS);
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, v2, bs, nc, ib), NC_EINVALCOORDS);
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, v2, st, bc, ib), NC_EEDGE);
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, v2, st, nc, ib), NC_ENEGATIVECNT);
  CHECK_ERR(ncmpi_put_vars_int_all(ncid, v2, st, bc, stz, ib), NC_EEDGE);
  CHECK_ERR(ncmpi_put_vars_int_all(ncid, v2, st, ct, stz, ib), NC_ESTRIDE);
  CHECK_ERR(ncmpi_put_vars_int_all(ncid, v2, st, nc, stz, ib), NC_ENEGATIVECNT);
  CHECK_ERR(ncmpi_put_vars_int_all(ncid, v2, st, c3, sd2, ib), NC_EEDGE);
  CHECK_OK(ncmpi_put_vars_int_all(ncid, v2, st, ct, sd2, ib));
  CHECK_OK(ncmpi_put_vara_int_all(ncid, v2, eq, z, ib)); /* start at the end, nothing selected */
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, v2, eq, ct, ib), NC_EINVALCOORDS);
  CHECK_OK(ncmpi_put_vara_int_all(ncid, v2, st, z, NULL));
  /* count = INT64_MAX: an edge error on a fixed dimension; on the record
   * dimension of a put, an overflow of the element count. */
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, v2, st, big, ib), NC_EEDGE);
  CHECK_ERR(ncmpi_get_vara_int_all(ncid, v2, st, big, ib), NC_EEDGE);
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, v2, st, big2, ib), NC_EEDGE);
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, vrec, st, big, ib), NC_EINTOVERFLOW);
  CHECK_ERR(ncmpi_get_vara_int_all(ncid, vrec, st, big, ib), NC_EINVALCOORDS); /* no record yet */
  /* Record variable reads are bounded by numrecs, writes are not. */
  CHECK_ERR(ncmpi_get_vara_int_all(ncid, vrec, st, ct, ib), NC_EINVALCOORDS);
  CHECK_OK(ncmpi_get_vara_int_all(ncid, vrec, st, z, ib));
  CHECK_ERR(ncmpi_get_vara_int_all(ncid, vrec, bs, z, ib), NC_EINVALCOORDS);
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, vrec, huge, nc, ib), NC_ENEGATIVECNT);
  CHECK_OK(ncmpi_put_vara_int_all(ncid, vrec, bs, ct, ib)); /* record 9: numrecs 10 */
  CHECK_OK(ncmpi_get_vara_int_all(ncid, vrec, bs, ct, ib));
  CHECK_ERR(ncmpi_get_vara_int_all(ncid, vrec, bs, bc, ib), NC_EEDGE);
  CHECK_ERR(ncmpi_get_vara_int_all(ncid, vrec, r9, rc2, ib), NC_EEDGE);
  CHECK_OK(ncmpi_get_vara_int_all(ncid, vrec, r1, rc2, ib));
  CHECK_ERR(ncmpi_get_vara_int_all(ncid, vrec, st, big, ib), NC_EEDGE);
  MPI_Offset r10[2] = {10, 0};
  CHECK_ERR(ncmpi_get_vara_int_all(ncid, vrec, r10, ct, ib), NC_EINVALCOORDS);
  CHECK_OK(ncmpi_get_vara_int_all(ncid, vrec, r10, z, ib));
  CHECK_ERR(ncmpi_put_vara_text_all(ncid, vt, st, bc, cb), NC_EEDGE);

  /* Flexible calls: coordinates before the buffer count. */
  CHECK_ERR(ncmpi_put_vara_all(ncid, v2, st, ct, ib, 2, MPI_INT), NC_EIOMISMATCH);
  CHECK_ERR(ncmpi_put_vara_all(ncid, v2, bs, ct, ib, 2, MPI_INT), NC_EINVALCOORDS);
  CHECK_ERR(ncmpi_put_vara_all(ncid, v2, st, ct, NULL, 0, MPI_INT), NC_EIOMISMATCH);
  CHECK_ERR(ncmpi_put_vara_all(ncid, v2, bs, ct, NULL, 0, MPI_INT), NC_EINVALCOORDS);
  CHECK_OK(ncmpi_put_vara_all(ncid, vt, st, ct, cb, 1, MPI_CHAR));
  CHECK_ERR(ncmpi_put_vara(ncid, v2, bs, ct, NULL, 0, MPI_INT), NC_ENOTINDEP);
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  CHECK_ERR(ncmpi_put_vara(ncid, v2, bs, ct, NULL, 0, MPI_INT), NC_EINVALCOORDS);
  CHECK_ERR(ncmpi_put_vara(ncid, v2, bs, bc, ib, 1, MPI_INT), NC_EINVALCOORDS);
  CHECK_ERR(ncmpi_put_vara_all(ncid, v2, bs, bc, ib, 1, MPI_INT), NC_EINDEP);
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, BAD_VARID, NULL, NULL, ib), NC_EINDEP);
  CHECK_OK(ncmpi_end_indep_data(ncid));

  /* Nonblocking posts: the same order, without the data-mode checks. */
  int req = -7;
  CHECK_ERR(ncmpi_iput_vara_int(ncid, BAD_VARID, NULL, NULL, ib, &req), NC_ENOTVAR);
  CHECK(req == NC_REQ_NULL);
  CHECK_ERR(ncmpi_iput_vara_int(ncid, v2, NULL, ct, ib, &req), NC_EINVALCOORDS);
  CHECK_ERR(ncmpi_iput_vara_int(ncid, v2, st, NULL, ib, &req), NC_EEDGE);
  CHECK_ERR(ncmpi_iput_vara_int(ncid, v2, bs, bc, ib, &req), NC_EINVALCOORDS);
  CHECK_ERR(ncmpi_iput_vara_text(ncid, v2, st, ct, cb, &req), NC_ECHAR);
  CHECK_ERR(ncmpi_iget_vara_int(ncid, vrec, r10, ct, ib, &req), NC_EINVALCOORDS);
  CHECK_ERR(ncmpi_bput_vara_int(ncid, v2, st, ct, ib, &req), NC_ENULLABUF);
  CHECK_ERR(ncmpi_bput_vara_int(ncid, v2, bs, bc, ib, &req), NC_ENULLABUF); /* before coordinates */
  CHECK_ERR(ncmpi_bput_vara_int(ncid, v2, NULL, NULL, ib, &req), NC_ENULLABUF);
  CHECK_ERR(ncmpi_bput_vara_text(ncid, v2, bs, bc, cb, &req), NC_ECHAR);
  CHECK_ERR(ncmpi_bput_vara_int(ncid, BAD_VARID, st, ct, ib, &req), NC_ENOTVAR);
  CHECK_OK(ncmpi_buffer_attach(ncid, 1024));
  CHECK_ERR(ncmpi_bput_vara_int(ncid, v2, bs, bc, ib, &req), NC_EINVALCOORDS);
  CHECK_ERR(ncmpi_bput_vara_int(ncid, v2, st, NULL, ib, &req), NC_EEDGE);
  CHECK_OK(ncmpi_buffer_detach(ncid));
  CHECK_ERR(ncmpi_iput_var1_int(ncid, v2, NULL, ib, &req), NC_EINVALCOORDS);
  CHECK_OK(ncmpi_iput_vars_int(ncid, v2, st, ct, NULL, ib, &req)); /* NULL stride */
  CHECK_OK(ncmpi_wait_all(ncid, 1, &req, NULL));
  CHECK(req == NC_REQ_NULL);
  CHECK_OK(ncmpi_close(ncid));
}

/* varn: the call's checks; num 0 succeeds whatever the arrays; a scalar
 * takes exactly one subarray; NULL starts (or starts[i]) is NC_ENULLSTART;
 * NULL counts (or counts[i]) means one element, as var1. */
static void varn_family(void) {
  int d0, d1, drec, v2, vs, req;
  int ncid = create_file("prec_varn.nc", &d0, &d1, &drec, &v2);
  CHECK_OK(ncmpi_def_var(ncid, "s", NC_DOUBLE, 0, NULL, &vs));
  CHECK_OK(ncmpi_enddef(ncid));
  int ib[8] = {41, 42, 43, 44}, got[8] = {0};
  double db[2] = {2.5, 0}, dgot = 0;
  MPI_Offset st[2] = {1, 2}, st2[2] = {3, 0}, ct[2] = {1, 1}, bs[2] = {9, 0}, bc[2] = {9, 1};
  MPI_Offset big[2] = {INT64_MAX, 1};
  MPI_Offset *sp[2] = {st, NULL}, *sp2[2] = {st, st2}, *cp[2] = {ct, ct}, *cnull[2] = {ct, NULL};
  MPI_Offset *bp[1] = {bs}, *bcp[1] = {bc}, *bigp[1] = {big};
  CHECK_OK(ncmpi_put_varn_int_all(ncid, v2, 0, NULL, NULL, NULL));
  CHECK_OK(ncmpi_get_varn_int_all(ncid, v2, 0, NULL, NULL, NULL));
  CHECK_OK(ncmpi_put_varn_all(ncid, v2, 0, NULL, NULL, NULL, 0, MPI_INT));
  CHECK_ERR(ncmpi_put_varn_int_all(ncid, BAD_VARID, 0, NULL, NULL, ib), NC_ENOTVAR);
  CHECK_ERR(ncmpi_put_varn_int_all(ncid, NC_GLOBAL, 0, NULL, NULL, ib), NC_EGLOBAL);
  CHECK_ERR(ncmpi_put_varn_text_all(ncid, v2, 0, NULL, NULL, NULL), NC_ECHAR);
  CHECK_ERR(ncmpi_put_varn_int(ncid, v2, 0, NULL, NULL, NULL), NC_ENOTINDEP);
  CHECK_ERR(ncmpi_put_varn_int_all(ncid, v2, 1, NULL, cp, ib), NC_ENULLSTART);
  CHECK_ERR(ncmpi_put_varn_int_all(ncid, v2, 1, NULL, NULL, ib), NC_ENULLSTART);
  CHECK_ERR(ncmpi_put_varn_int_all(ncid, v2, -1, NULL, NULL, ib), NC_ENULLSTART);
  CHECK_ERR(ncmpi_put_varn_int_all(ncid, v2, 2, sp, cp, ib), NC_ENULLSTART);
  CHECK_ERR(ncmpi_put_varn_int_all(ncid, v2, 1, bp, bcp, ib), NC_EINVALCOORDS);
  CHECK_ERR(ncmpi_put_varn_int_all(ncid, v2, 1, sp, bcp, ib), NC_EEDGE);
  CHECK_ERR(ncmpi_put_varn_int_all(ncid, v2, 1, sp, bigp, ib), NC_EEDGE);
  CHECK_ERR(ncmpi_put_varn_int_all(ncid, vs, 2, NULL, NULL, ib), NC_EINVAL);
  CHECK_ERR(ncmpi_put_varn_double_all(ncid, vs, 2, NULL, NULL, db), NC_EINVAL);
  CHECK_OK(ncmpi_put_varn_double_all(ncid, vs, 0, NULL, NULL, db));
  CHECK_OK(ncmpi_put_varn_double_all(ncid, vs, 1, NULL, NULL, db)); /* a scalar ignores starts */
  CHECK_OK(ncmpi_get_var_double_all(ncid, vs, &dgot));
  CHECK(dgot == 2.5);
  /* NULL counts: one element at each start. */
  CHECK_OK(ncmpi_put_varn_int_all(ncid, v2, 2, sp2, NULL, ib));
  CHECK_OK(ncmpi_get_varn_int_all(ncid, v2, 2, sp2, NULL, got));
  CHECK(got[0] == 41 && got[1] == 42);
  CHECK_OK(ncmpi_get_var1_int_all(ncid, v2, st2, &got[2]));
  CHECK(got[2] == 42);
  /* A NULL counts[i]: that subarray is one element. */
  int ib2[2] = {51, 52};
  CHECK_OK(ncmpi_put_varn_int_all(ncid, v2, 2, sp2, cnull, ib2));
  CHECK_OK(ncmpi_get_varn_int_all(ncid, v2, 1, sp, NULL, got));
  CHECK(got[0] == 51);
  /* Nonblocking varn. */
  CHECK_OK(ncmpi_iput_varn_int(ncid, v2, 0, NULL, NULL, NULL, &req));
  CHECK_OK(ncmpi_wait_all(ncid, 1, &req, NULL));
  int ib3 = 61;
  CHECK_OK(ncmpi_iput_varn_int(ncid, v2, 1, sp, NULL, &ib3, &req));
  CHECK_OK(ncmpi_wait_all(ncid, 1, &req, NULL));
  CHECK_ERR(ncmpi_iput_varn_int(ncid, v2, 1, NULL, NULL, ib, &req), NC_ENULLSTART);
  CHECK_OK(ncmpi_get_var1_int_all(ncid, v2, st, &got[0]));
  CHECK(got[0] == 61);
  CHECK_OK(ncmpi_close(ncid));
}

/* mput/mget: an independent call of no variables succeeds in any mode;
 * otherwise each variable's checks in turn, as a single call's. */
static void mput_family(void) {
  int d0, d1, drec, v2, bad = BAD_VARID;
  int ncid = create_file("prec_mput.nc", &d0, &d1, &drec, &v2);
  int ib[4] = {5, 6, 7, 8}, got = 0;
  MPI_Offset st[2] = {0, 1}, ct[2] = {1, 1}, bs[2] = {9, 0};
  MPI_Offset *sp[1] = {st}, *cp[1] = {ct}, *bsp[1] = {bs}, *np[1] = {NULL};
  void *bp[1] = {ib};
  int *ibp[1] = {ib};
  char *cbp[1] = {(char *)ib};
  CHECK_ERR(ncmpi_mput_vara_all(ncid, 0, NULL, NULL, NULL, NULL, NULL, NULL), NC_EINDEFINE);
  CHECK_OK(ncmpi_mput_vara(ncid, 0, NULL, NULL, NULL, NULL, NULL, NULL));
  CHECK_ERR(ncmpi_mput_vara_all(ncid, 1, &v2, sp, cp, bp, NULL, NULL), NC_EINDEFINE);
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_OK(ncmpi_mput_vara(ncid, 0, NULL, NULL, NULL, NULL, NULL, NULL));
  CHECK_ERR(ncmpi_mput_vara(ncid, 1, &v2, sp, cp, bp, NULL, NULL), NC_ENOTINDEP);
  CHECK_ERR(ncmpi_mput_vara_all(ncid, 1, &bad, sp, cp, bp, NULL, NULL), NC_ENOTVAR);
  CHECK_ERR(ncmpi_mput_vara_all(ncid, 1, &v2, bsp, cp, bp, NULL, NULL), NC_EINVALCOORDS);
  CHECK_ERR(ncmpi_mput_vara_all(ncid, 1, &v2, np, cp, bp, NULL, NULL), NC_EINVALCOORDS);
  CHECK_ERR(ncmpi_mput_vara_all(ncid, 1, &v2, sp, np, bp, NULL, NULL), NC_EEDGE);
  CHECK_ERR(ncmpi_mput_vara_text_all(ncid, 1, &v2, sp, cp, cbp), NC_ECHAR);
  CHECK_ERR(ncmpi_mput_var1_int_all(ncid, 1, &v2, np, ibp), NC_EINVALCOORDS);
  CHECK_OK(ncmpi_mput_vara_all(ncid, 0, NULL, NULL, NULL, NULL, NULL, NULL));
  CHECK_OK(ncmpi_mput_vara_int_all(ncid, 1, &v2, sp, cp, ibp));
  CHECK_OK(ncmpi_get_var1_int_all(ncid, v2, st, &got));
  CHECK(got == 5);
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  CHECK_ERR(ncmpi_mput_vara_all(ncid, 0, NULL, NULL, NULL, NULL, NULL, NULL), NC_EINDEP);
  CHECK_ERR(ncmpi_mput_vara_all(ncid, 1, &bad, sp, cp, bp, NULL, NULL), NC_EINDEP);
  CHECK_ERR(ncmpi_mput_vara(ncid, 1, &bad, sp, cp, bp, NULL, NULL), NC_ENOTVAR);
  CHECK_OK(ncmpi_end_indep_data(ncid));
  CHECK_OK(ncmpi_close(ncid));
}

/* A file in data mode with v2 for the wait scenarios: each scenario uses a
 * file of its own, as PnetCDF's request queue is not to be relied on after
 * a wait that failed. */
static int wait_file(const char *name, int *v2) {
  int d0, d1, drec;
  int ncid = create_file(name, &d0, &d1, &drec, v2);
  CHECK_OK(ncmpi_enddef(ncid));
  return ncid;
}

/* Drops whatever is still pending, then closes. */
static void cancel_all_and_close(int ncid) {
  CHECK_OK(ncmpi_cancel(ncid, NC_REQ_ALL, NULL, NULL));
  CHECK_OK(ncmpi_close(ncid));
}

/* wait/wait_all: an unknown (or repeated) request id fails the whole call
 * with NC_EINVAL_REQUEST; its status says so, the others are NC_NOERR, no
 * request is carried out and every id stays as it was. cancel cancels the
 * known requests and reports the unknown ones. */
static void wait_family(void) {
  MPI_Offset st[2] = {0, 0}, ct[2] = {1, 1};
  int v2, val = 77, pending = -1, req[3], sts[3];

  int ncid = wait_file("prec_wait1.nc", &v2);
  req[0] = 4242;
  sts[0] = 99;
  CHECK_ERR(ncmpi_wait_all(ncid, 1, req, sts), NC_EINVAL_REQUEST);
  CHECK(sts[0] == NC_EINVAL_REQUEST && req[0] == 4242);
  CHECK_ERR(ncmpi_wait_all(-1, 1, req, sts), NC_EBADID);
  cancel_all_and_close(ncid);

  ncid = wait_file("prec_wait2.nc", &v2);
  req[0] = -5;
  CHECK_ERR(ncmpi_wait_all(ncid, 1, req, NULL), NC_EINVAL_REQUEST);
  CHECK(req[0] == -5);
  cancel_all_and_close(ncid);

  /* A known put and an unknown id: nothing is done, the put stays pending. */
  ncid = wait_file("prec_wait3.nc", &v2);
  CHECK_OK(ncmpi_iput_vara_int(ncid, v2, st, ct, &val, &req[1]));
  int posted = req[1];
  req[0] = 4243;
  req[2] = NC_REQ_NULL;
  sts[0] = sts[1] = sts[2] = 99;
  CHECK_ERR(ncmpi_wait_all(ncid, 3, req, sts), NC_EINVAL_REQUEST);
  CHECK(sts[0] == NC_EINVAL_REQUEST && sts[1] == NC_NOERR && sts[2] == NC_NOERR);
  CHECK(req[0] == 4243 && req[1] == posted && req[2] == NC_REQ_NULL);
  CHECK_OK(ncmpi_inq_nreqs(ncid, &pending));
  CHECK(pending == 1);
  cancel_all_and_close(ncid);

  /* Independent wait. */
  ncid = wait_file("prec_wait4.nc", &v2);
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  CHECK_OK(ncmpi_iput_vara_int(ncid, v2, st, ct, &val, &req[0]));
  posted = req[0];
  req[1] = 4244;
  sts[0] = sts[1] = 99;
  CHECK_ERR(ncmpi_wait(ncid, 2, req, sts), NC_EINVAL_REQUEST);
  CHECK(sts[0] == NC_NOERR && sts[1] == NC_EINVAL_REQUEST && req[0] == posted);
  CHECK_OK(ncmpi_end_indep_data(ncid));
  cancel_all_and_close(ncid);

  /* The same id twice: the second is unknown. */
  ncid = wait_file("prec_wait5.nc", &v2);
  CHECK_OK(ncmpi_iput_vara_int(ncid, v2, st, ct, &val, &req[0]));
  req[1] = req[0];
  sts[0] = sts[1] = 99;
  CHECK_ERR(ncmpi_wait_all(ncid, 2, req, sts), NC_EINVAL_REQUEST);
  CHECK(sts[0] == NC_NOERR && sts[1] == NC_EINVAL_REQUEST);
  cancel_all_and_close(ncid);

  /* cancel: unknown ids are reported, known ones cancelled. */
  ncid = wait_file("prec_wait6.nc", &v2);
  int val2 = 88, got = -1;
  CHECK_OK(ncmpi_iput_vara_int(ncid, v2, st, ct, &val2, &req[0]));
  req[1] = 4245;
  sts[0] = sts[1] = 99;
  CHECK_ERR(ncmpi_cancel(ncid, 2, req, sts), NC_EINVAL_REQUEST);
  CHECK(sts[0] == NC_NOERR && sts[1] == NC_EINVAL_REQUEST && req[0] == NC_REQ_NULL);
  CHECK_OK(ncmpi_inq_nreqs(ncid, &pending));
  CHECK(pending == 0);
  CHECK_ERR(ncmpi_cancel(ncid, -5, req, sts), NC_EINVAL);
  CHECK_OK(ncmpi_get_vara_int_all(ncid, v2, st, ct, &got));
  CHECK(got != 88);
  /* A request waited on alone completes. */
  CHECK_OK(ncmpi_iput_vara_int(ncid, v2, st, ct, &val, &req[0]));
  CHECK_OK(ncmpi_wait_all(ncid, 1, req, sts));
  CHECK(sts[0] == NC_NOERR && req[0] == NC_REQ_NULL);
  CHECK_OK(ncmpi_get_vara_int_all(ncid, v2, st, ct, &got));
  CHECK(got == 77);
  CHECK_OK(ncmpi_close(ncid));
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  file_family();
  dim_family();
  var_family();
  att_family();
  data_family();
  varn_family();
  mput_family();
  wait_family();
  return mpi_test_finish();
}
