/*
 * pnetcdf.h -- the PnetCDF-compatible C API of exacdf.
 *
 * A program written for PnetCDF includes this header and links against
 * libexacdf unchanged: the constants, error codes and ncmpi_* prototypes have
 * the values and signatures PnetCDF documents.  Extensions live in exacdf.h.
 */
#ifndef _PNETCDF_H
#define _PNETCDF_H

#include <mpi.h>

#include "exacdf_nc_constants.h"

/* Version of the PnetCDF API exacdf implements. */
#define PNETCDF_VERSION "1.12.3"
#define PNETCDF_VERSION_MAJOR 1
#define PNETCDF_VERSION_MINOR 12
#define PNETCDF_VERSION_SUB 3
#define PNETCDF_RELEASE_DATE "November 22, 2026"

/* Feature macros: what this build of exacdf supports. */
#define PNETCDF_ENABLE_FORTRAN 0
#define PNETCDF_ENABLE_CXX 0
#define PNETCDF_ERANGE_FILL 1 /* off per file with hint exa_erange_fill=disable */
#define PNETCDF_SUBFILING 0
#define PNETCDF_RELAX_COORD_BOUND 1
#define PNETCDF_DEBUG_MODE 0
#define PNETCDF_LARGE_SINGLE_REQ 1
#define PNETCDF_NULL_BYTE_HEADER_PADDING 1
#define PNETCDF_BYTE_SWAP_IN_PLACE 1
#define PNETCDF_BURST_BUFFERING 0
#define PNETCDF_THREAD_SAFE 0
#define PNETCDF_DRIVER_NETCDF4 0
#define PNETCDF_DRIVER_ADIOS 0

#if defined(__cplusplus)
extern "C" {
#endif

/* ---------------------------------------------------------------------
 * Error messages and library version
 * ------------------------------------------------------------------- */

/** Text of an NC_* error code (or of a system errno when err > 0). Local. */
extern const char *ncmpi_strerror(int err);
/** The symbolic name of an NC_* error code, e.g. "NC_EBADID". Local. */
extern const char *ncmpi_strerrno(int err);
/** Version string of the library. Local. */
extern const char *ncmpi_inq_libvers(void);

/* ---------------------------------------------------------------------
 * Files. All are collective over the file's communicator unless noted.
 * ------------------------------------------------------------------- */

extern int ncmpi_create(MPI_Comm comm, const char *path, int cmode, MPI_Info info, int *ncidp);
extern int ncmpi_open(MPI_Comm comm, const char *path, int omode, MPI_Info info, int *ncidp);
extern int ncmpi_inq_file_info(int ncid, MPI_Info *info_used);
extern int ncmpi_get_file_info(int ncid, MPI_Info *info_used);
/** Delete a file. Independent. */
extern int ncmpi_delete(const char *filename, MPI_Info info);
extern int ncmpi_enddef(int ncid);
extern int ncmpi__enddef(int ncid, MPI_Offset h_minfree, MPI_Offset v_align, MPI_Offset v_minfree,
                         MPI_Offset r_align);
extern int ncmpi_redef(int ncid);
/** Default format for later creates (NC_FORMAT_CLASSIC/CDF2/CDF5). Local. */
extern int ncmpi_set_default_format(int format, int *old_formatp);
extern int ncmpi_inq_default_format(int *formatp);
extern int ncmpi_flush(int ncid);
extern int ncmpi_sync(int ncid);
extern int ncmpi_sync_numrecs(int ncid);
/** Close without saving pending define-mode changes; deletes a file still being created. */
extern int ncmpi_abort(int ncid);
extern int ncmpi_begin_indep_data(int ncid);
extern int ncmpi_end_indep_data(int ncid);
extern int ncmpi_close(int ncid);
extern int ncmpi_set_fill(int ncid, int fillmode, int *old_modep);
extern int ncmpi_def_var_fill(int ncid, int varid, int no_fill, const void *fill_value);
extern int ncmpi_fill_var_rec(int ncid, int varid, MPI_Offset recno);

/* ---------------------------------------------------------------------
 * Define mode
 * ------------------------------------------------------------------- */

extern int ncmpi_def_dim(int ncid, const char *name, MPI_Offset len, int *idp);
extern int ncmpi_def_var(int ncid, const char *name, nc_type xtype, int ndims, const int *dimidsp,
                         int *varidp);
extern int ncmpi_rename_dim(int ncid, int dimid, const char *name);
extern int ncmpi_rename_var(int ncid, int varid, const char *name);

/* ---------------------------------------------------------------------
 * Inquiry. Local (no communication).
 * ------------------------------------------------------------------- */

extern int ncmpi_inq(int ncid, int *ndimsp, int *nvarsp, int *ngattsp, int *unlimdimidp);
extern int ncmpi_inq_format(int ncid, int *formatp);
extern int ncmpi_inq_file_format(const char *filename, int *formatp);
extern int ncmpi_inq_version(int ncid, int *NC_mode);
extern int ncmpi_inq_striping(int ncid, int *striping_size, int *striping_count);
extern int ncmpi_inq_ndims(int ncid, int *ndimsp);
extern int ncmpi_inq_nvars(int ncid, int *nvarsp);
extern int ncmpi_inq_num_rec_vars(int ncid, int *nvarsp);
extern int ncmpi_inq_num_fix_vars(int ncid, int *nvarsp);
extern int ncmpi_inq_natts(int ncid, int *ngattsp);
extern int ncmpi_inq_unlimdim(int ncid, int *unlimdimidp);
extern int ncmpi_inq_dimid(int ncid, const char *name, int *idp);
extern int ncmpi_inq_dim(int ncid, int dimid, char *name, MPI_Offset *lenp);
extern int ncmpi_inq_dimname(int ncid, int dimid, char *name);
extern int ncmpi_inq_dimlen(int ncid, int dimid, MPI_Offset *lenp);
extern int ncmpi_inq_var(int ncid, int varid, char *name, nc_type *xtypep, int *ndimsp,
                         int *dimidsp, int *nattsp);
extern int ncmpi_inq_varid(int ncid, const char *name, int *varidp);
extern int ncmpi_inq_varname(int ncid, int varid, char *name);
extern int ncmpi_inq_vartype(int ncid, int varid, nc_type *xtypep);
extern int ncmpi_inq_varndims(int ncid, int varid, int *ndimsp);
extern int ncmpi_inq_vardimid(int ncid, int varid, int *dimidsp);
extern int ncmpi_inq_varnatts(int ncid, int varid, int *nattsp);
extern int ncmpi_inq_varoffset(int ncid, int varid, MPI_Offset *offset);
extern int ncmpi_inq_put_size(int ncid, MPI_Offset *size);
extern int ncmpi_inq_get_size(int ncid, MPI_Offset *size);
extern int ncmpi_inq_header_size(int ncid, MPI_Offset *size);
extern int ncmpi_inq_header_extent(int ncid, MPI_Offset *extent);
extern int ncmpi_inq_malloc_size(MPI_Offset *size);
extern int ncmpi_inq_malloc_max_size(MPI_Offset *size);
extern int ncmpi_inq_malloc_list(void);
extern int ncmpi_inq_files_opened(int *num, int *ncids);
extern int ncmpi_inq_recsize(int ncid, MPI_Offset *recsize);
extern int ncmpi_inq_var_fill(int ncid, int varid, int *no_fill, void *fill_value);
extern int ncmpi_inq_path(int ncid, int *pathlen, char *path);

/* ---------------------------------------------------------------------
 * Attributes. Put/copy/rename/delete need define mode (or an existing
 * attribute not growing); get/inq are local.
 * ------------------------------------------------------------------- */

extern int ncmpi_inq_att(int ncid, int varid, const char *name, nc_type *xtypep, MPI_Offset *lenp);
extern int ncmpi_inq_attid(int ncid, int varid, const char *name, int *idp);
extern int ncmpi_inq_atttype(int ncid, int varid, const char *name, nc_type *xtypep);
extern int ncmpi_inq_attlen(int ncid, int varid, const char *name, MPI_Offset *lenp);
extern int ncmpi_inq_attname(int ncid, int varid, int attnum, char *name);
extern int ncmpi_copy_att(int ncid_in, int varid_in, const char *name, int ncid_out,
                          int varid_out);
extern int ncmpi_rename_att(int ncid, int varid, const char *name, const char *newname);
extern int ncmpi_del_att(int ncid, int varid, const char *name);

extern int ncmpi_put_att(int ncid, int varid, const char *name, nc_type xtype, MPI_Offset nelems,
                         const void *value);
extern int ncmpi_put_att_text(int ncid, int varid, const char *name, MPI_Offset len,
                              const char *op);
extern int ncmpi_get_att(int ncid, int varid, const char *name, void *value);
extern int ncmpi_get_att_text(int ncid, int varid, const char *name, char *ip);

#define EXACDF_ATT_PROTO_(NAME, CTYPE)                                                  \
  extern int ncmpi_put_att_##NAME(int ncid, int varid, const char *name, nc_type xtype, \
                                  MPI_Offset len, const CTYPE *op);                     \
  extern int ncmpi_get_att_##NAME(int ncid, int varid, const char *name, CTYPE *ip);
EXACDF_FOR_EACH_MEMTYPE(EXACDF_ATT_PROTO_)
#undef EXACDF_ATT_PROTO_

/* ---------------------------------------------------------------------
 * Data mode switches and blocking data calls. Calls ending in _all are
 * collective (collective data mode); the others are independent (between
 * ncmpi_begin_indep_data and ncmpi_end_indep_data).
 * ------------------------------------------------------------------- */

/* Every type of the typed data API: text plus the memory-type table. */
#define EXACDF_FOR_EACH_DATA_TYPE(X) X(text, char) EXACDF_FOR_EACH_MEMTYPE(X)

#define EXACDF_DATA_PROTO_KINDS_(OP, CQ, NAME, CTYPE, SFX)                                   \
  extern int ncmpi_##OP##_var1_##NAME##SFX(int ncid, int varid, const MPI_Offset *start,     \
                                           CQ CTYPE *buf);                                   \
  extern int ncmpi_##OP##_var_##NAME##SFX(int ncid, int varid, CQ CTYPE *buf);               \
  extern int ncmpi_##OP##_vara_##NAME##SFX(int ncid, int varid, const MPI_Offset *start,     \
                                           const MPI_Offset *count, CQ CTYPE *buf);          \
  extern int ncmpi_##OP##_vars_##NAME##SFX(int ncid, int varid, const MPI_Offset *start,     \
                                           const MPI_Offset *count, const MPI_Offset *stride, \
                                           CQ CTYPE *buf);                                   \
  extern int ncmpi_##OP##_varm_##NAME##SFX(int ncid, int varid, const MPI_Offset *start,     \
                                           const MPI_Offset *count, const MPI_Offset *stride, \
                                           const MPI_Offset *imap, CQ CTYPE *buf);
#define EXACDF_DATA_PROTO_(NAME, CTYPE)                    \
  EXACDF_DATA_PROTO_KINDS_(put, const, NAME, CTYPE, )     \
  EXACDF_DATA_PROTO_KINDS_(put, const, NAME, CTYPE, _all) \
  EXACDF_DATA_PROTO_KINDS_(get, , NAME, CTYPE, )          \
  EXACDF_DATA_PROTO_KINDS_(get, , NAME, CTYPE, _all)
EXACDF_FOR_EACH_DATA_TYPE(EXACDF_DATA_PROTO_)
#undef EXACDF_DATA_PROTO_
#undef EXACDF_DATA_PROTO_KINDS_

/* The flexible forms: the memory layout is (buf, bufcount, buftype). */
#define EXACDF_FLEX_PROTO_(OP, CQ, SFX)                                                        \
  extern int ncmpi_##OP##_var1##SFX(int ncid, int varid, const MPI_Offset *start, CQ void *buf, \
                                    MPI_Offset bufcount, MPI_Datatype buftype);                \
  extern int ncmpi_##OP##_var##SFX(int ncid, int varid, CQ void *buf, MPI_Offset bufcount,     \
                                   MPI_Datatype buftype);                                      \
  extern int ncmpi_##OP##_vara##SFX(int ncid, int varid, const MPI_Offset *start,              \
                                    const MPI_Offset *count, CQ void *buf, MPI_Offset bufcount, \
                                    MPI_Datatype buftype);                                     \
  extern int ncmpi_##OP##_vars##SFX(int ncid, int varid, const MPI_Offset *start,              \
                                    const MPI_Offset *count, const MPI_Offset *stride,         \
                                    CQ void *buf, MPI_Offset bufcount, MPI_Datatype buftype);  \
  extern int ncmpi_##OP##_varm##SFX(int ncid, int varid, const MPI_Offset *start,              \
                                    const MPI_Offset *count, const MPI_Offset *stride,         \
                                    const MPI_Offset *imap, CQ void *buf, MPI_Offset bufcount, \
                                    MPI_Datatype buftype);
EXACDF_FLEX_PROTO_(put, const, )
EXACDF_FLEX_PROTO_(put, const, _all)
EXACDF_FLEX_PROTO_(get, , )
EXACDF_FLEX_PROTO_(get, , _all)
#undef EXACDF_FLEX_PROTO_

/* ---------------------------------------------------------------------
 * Nonblocking and buffered calls: iput/iget keep the request until a wait;
 * bput copies the data into the attached buffer at once. ncmpi_wait_all is
 * collective and completes every named request of every rank with one
 * MPI-IO call for the puts and one for the gets.
 * ------------------------------------------------------------------- */

extern int ncmpi_wait(int ncid, int count, int array_of_requests[], int array_of_statuses[]);
extern int ncmpi_wait_all(int ncid, int count, int array_of_requests[], int array_of_statuses[]);
extern int ncmpi_cancel(int ncid, int num, int *reqs, int *statuses);
extern int ncmpi_buffer_attach(int ncid, MPI_Offset bufsize);
extern int ncmpi_buffer_detach(int ncid);
extern int ncmpi_inq_buffer_usage(int ncid, MPI_Offset *usage);
extern int ncmpi_inq_buffer_size(int ncid, MPI_Offset *buf_size);
extern int ncmpi_inq_nreqs(int ncid, int *nreqs);

#define EXACDF_NB_PROTO_KINDS_(OP, CQ, NAME, CTYPE)                                            \
  extern int ncmpi_##OP##_var1_##NAME(int ncid, int varid, const MPI_Offset *start,            \
                                      CQ CTYPE *buf, int *req);                                \
  extern int ncmpi_##OP##_var_##NAME(int ncid, int varid, CQ CTYPE *buf, int *req);            \
  extern int ncmpi_##OP##_vara_##NAME(int ncid, int varid, const MPI_Offset *start,            \
                                      const MPI_Offset *count, CQ CTYPE *buf, int *req);       \
  extern int ncmpi_##OP##_vars_##NAME(int ncid, int varid, const MPI_Offset *start,            \
                                      const MPI_Offset *count, const MPI_Offset *stride,       \
                                      CQ CTYPE *buf, int *req);                                \
  extern int ncmpi_##OP##_varm_##NAME(int ncid, int varid, const MPI_Offset *start,            \
                                      const MPI_Offset *count, const MPI_Offset *stride,       \
                                      const MPI_Offset *imap, CQ CTYPE *buf, int *req);        \
  extern int ncmpi_##OP##_varn_##NAME(int ncid, int varid, int num, MPI_Offset *const *starts, \
                                      MPI_Offset *const *counts, CQ CTYPE *buf, int *req);
#define EXACDF_NB_PROTO_(NAME, CTYPE)                  \
  EXACDF_NB_PROTO_KINDS_(iput, const, NAME, CTYPE)     \
  EXACDF_NB_PROTO_KINDS_(iget, , NAME, CTYPE)          \
  EXACDF_NB_PROTO_KINDS_(bput, const, NAME, CTYPE)
EXACDF_FOR_EACH_DATA_TYPE(EXACDF_NB_PROTO_)
#undef EXACDF_NB_PROTO_
#undef EXACDF_NB_PROTO_KINDS_

#define EXACDF_NB_FLEX_PROTO_(OP, CQ)                                                          \
  extern int ncmpi_##OP##_var1(int ncid, int varid, const MPI_Offset *start, CQ void *buf,     \
                               MPI_Offset bufcount, MPI_Datatype buftype, int *req);           \
  extern int ncmpi_##OP##_var(int ncid, int varid, CQ void *buf, MPI_Offset bufcount,          \
                              MPI_Datatype buftype, int *req);                                 \
  extern int ncmpi_##OP##_vara(int ncid, int varid, const MPI_Offset *start,                   \
                               const MPI_Offset *count, CQ void *buf, MPI_Offset bufcount,     \
                               MPI_Datatype buftype, int *req);                                \
  extern int ncmpi_##OP##_vars(int ncid, int varid, const MPI_Offset *start,                   \
                               const MPI_Offset *count, const MPI_Offset *stride, CQ void *buf, \
                               MPI_Offset bufcount, MPI_Datatype buftype, int *req);           \
  extern int ncmpi_##OP##_varm(int ncid, int varid, const MPI_Offset *start,                   \
                               const MPI_Offset *count, const MPI_Offset *stride,              \
                               const MPI_Offset *imap, CQ void *buf, MPI_Offset bufcount,      \
                               MPI_Datatype buftype, int *req);                                \
  extern int ncmpi_##OP##_varn(int ncid, int varid, int num, MPI_Offset *const *starts,        \
                               MPI_Offset *const *counts, CQ void *buf, MPI_Offset bufcount,   \
                               MPI_Datatype buftype, int *req);
EXACDF_NB_FLEX_PROTO_(iput, const)
EXACDF_NB_FLEX_PROTO_(iget, )
EXACDF_NB_FLEX_PROTO_(bput, const)
#undef EXACDF_NB_FLEX_PROTO_

/* Blocking calls over many subarrays of one variable (varn), many variables
 * (mput/mget), and a user-built file type (vard). */
#define EXACDF_VARN_PROTO_(NAME, CTYPE)                                                          \
  extern int ncmpi_put_varn_##NAME(int ncid, int varid, int num, MPI_Offset *const *starts,      \
                                   MPI_Offset *const *counts, const CTYPE *buf);                 \
  extern int ncmpi_put_varn_##NAME##_all(int ncid, int varid, int num,                           \
                                         MPI_Offset *const *starts, MPI_Offset *const *counts,   \
                                         const CTYPE *buf);                                      \
  extern int ncmpi_get_varn_##NAME(int ncid, int varid, int num, MPI_Offset *const *starts,      \
                                   MPI_Offset *const *counts, CTYPE *buf);                       \
  extern int ncmpi_get_varn_##NAME##_all(int ncid, int varid, int num,                           \
                                         MPI_Offset *const *starts, MPI_Offset *const *counts,   \
                                         CTYPE *buf);
EXACDF_FOR_EACH_DATA_TYPE(EXACDF_VARN_PROTO_)
#undef EXACDF_VARN_PROTO_

#define EXACDF_VARN_FLEX_PROTO_(OP, CQ, SFX)                                                     \
  extern int ncmpi_##OP##_varn##SFX(int ncid, int varid, int num, MPI_Offset *const *starts,     \
                                    MPI_Offset *const *counts, CQ void *buf, MPI_Offset bufcount, \
                                    MPI_Datatype buftype);                                       \
  extern int ncmpi_##OP##_vard##SFX(int ncid, int varid, MPI_Datatype filetype, CQ void *buf,    \
                                    MPI_Offset bufcount, MPI_Datatype buftype);
EXACDF_VARN_FLEX_PROTO_(put, const, )
EXACDF_VARN_FLEX_PROTO_(put, const, _all)
EXACDF_VARN_FLEX_PROTO_(get, , )
EXACDF_VARN_FLEX_PROTO_(get, , _all)
#undef EXACDF_VARN_FLEX_PROTO_

#define EXACDF_MULTI_PROTO_(OP, SFX)                                                             \
  extern int ncmpi_m##OP##_var##SFX(int ncid, int num, int *varids, void *const *bufs,           \
                                    const MPI_Offset *bufcounts, const MPI_Datatype datatypes[]); \
  extern int ncmpi_m##OP##_var1##SFX(int ncid, int num, int *varids, MPI_Offset *const *starts,  \
                                     void *const *bufs, const MPI_Offset *bufcounts,             \
                                     const MPI_Datatype datatypes[]);                            \
  extern int ncmpi_m##OP##_vara##SFX(int ncid, int num, int *varids, MPI_Offset *const *starts,  \
                                     MPI_Offset *const *counts, void *const *bufs,               \
                                     const MPI_Offset *bufcounts, const MPI_Datatype datatypes[]); \
  extern int ncmpi_m##OP##_vars##SFX(int ncid, int num, int *varids, MPI_Offset *const *starts,  \
                                     MPI_Offset *const *counts, MPI_Offset *const *strides,      \
                                     void *const *bufs, const MPI_Offset *bufcounts,             \
                                     const MPI_Datatype datatypes[]);                            \
  extern int ncmpi_m##OP##_varm##SFX(int ncid, int num, int *varids, MPI_Offset *const *starts,  \
                                     MPI_Offset *const *counts, MPI_Offset *const *strides,      \
                                     MPI_Offset *const *imaps, void *const *bufs,                \
                                     const MPI_Offset *bufcounts, const MPI_Datatype datatypes[]);
EXACDF_MULTI_PROTO_(put, )
EXACDF_MULTI_PROTO_(put, _all)
EXACDF_MULTI_PROTO_(get, )
EXACDF_MULTI_PROTO_(get, _all)
#undef EXACDF_MULTI_PROTO_

#define EXACDF_MULTI_TYPED_PROTO_KINDS_(OP, NAME, CTYPE, SFX)                                    \
  extern int ncmpi_m##OP##_var_##NAME##SFX(int ncid, int num, int *varids, CTYPE *const *bufs);  \
  extern int ncmpi_m##OP##_var1_##NAME##SFX(int ncid, int num, int *varids,                      \
                                            MPI_Offset *const *starts, CTYPE *const *bufs);      \
  extern int ncmpi_m##OP##_vara_##NAME##SFX(int ncid, int num, int *varids,                      \
                                            MPI_Offset *const *starts,                           \
                                            MPI_Offset *const *counts, CTYPE *const *bufs);      \
  extern int ncmpi_m##OP##_vars_##NAME##SFX(int ncid, int num, int *varids,                      \
                                            MPI_Offset *const *starts,                           \
                                            MPI_Offset *const *counts,                           \
                                            MPI_Offset *const *strides, CTYPE *const *bufs);     \
  extern int ncmpi_m##OP##_varm_##NAME##SFX(int ncid, int num, int *varids,                      \
                                            MPI_Offset *const *starts,                           \
                                            MPI_Offset *const *counts,                           \
                                            MPI_Offset *const *strides,                          \
                                            MPI_Offset *const *imaps, CTYPE *const *bufs);
#define EXACDF_MULTI_TYPED_PROTO_(NAME, CTYPE)                 \
  EXACDF_MULTI_TYPED_PROTO_KINDS_(put, NAME, CTYPE, )          \
  EXACDF_MULTI_TYPED_PROTO_KINDS_(put, NAME, CTYPE, _all)      \
  EXACDF_MULTI_TYPED_PROTO_KINDS_(get, NAME, CTYPE, )          \
  EXACDF_MULTI_TYPED_PROTO_KINDS_(get, NAME, CTYPE, _all)
EXACDF_FOR_EACH_DATA_TYPE(EXACDF_MULTI_TYPED_PROTO_)
#undef EXACDF_MULTI_TYPED_PROTO_
#undef EXACDF_MULTI_TYPED_PROTO_KINDS_

#if defined(__cplusplus)
}
#endif

#endif /* _PNETCDF_H */
