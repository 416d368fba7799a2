/*
 * exacdf_connector.h -- writing a connector of exacdf's object layer in C,
 * built as a shared library outside exacdf (docs/architecture.md, "Writing
 * a connector").
 *
 * Every ncmpi_* call on a file goes through a stack of connectors chosen at
 * run time (EXACDF_CONNECTORS=top,...,native, or the hint exa_connectors);
 * native, the terminal one, reads and writes the file. A connector named
 * NAME is the library libexacdf_connector_NAME.so in one of the
 * colon-separated directories of EXACDF_PLUGIN_PATH, exporting
 *
 *     const exacdf_connector_class *exacdf_connector_info(void);
 *
 * The class is a versioned table: `version` is EXACDF_CONNECTOR_VERSION and
 * `size` sizeof(exacdf_connector_class) as this header defines it (later
 * versions only append members; a table of an earlier version, down to
 * EXACDF_CONNECTOR_VERSION_MIN, still loads, its missing calls forwarded).
 *
 * Ownership and wrapping (as HDF5's VOL): each stack is made per file
 * (init when a create/open makes the stack, term when the file is closed
 * or the open failed). A connector's create/open first creates/opens the
 * file in the layer below (below->create/open), which gives it that layer's
 * file (an exacdf_lower_file), and returns its own per-file object,
 * typically holding the lower file. Every later call gets that object and
 * forwards to the lower file through lower.ops. exacdf owns the lower file:
 * it stays valid until release_file returned. Every call returns an NC_*
 * code (NC_NOERR on success); pointers and arguments have the meaning of
 * the PnetCDF call of the same name. A NULL member of `ops` forwards that
 * call to the layer below unchanged. Inquiries of metadata (ncmpi_inq_*)
 * reach the connector through `inquire` (version 2), which forwards them.
 *
 * Threads and progress: calls come on the thread that made the ncmpi_*
 * call; collective calls are made by every rank of the file's
 * communicator, in the same order. A connector that starts threads of its
 * own must not call the layer below from them unless MPI was initialised
 * with MPI_THREAD_MULTIPLE.
 */
#ifndef EXACDF_CONNECTOR_H
#define EXACDF_CONNECTOR_H

#include <stdint.h>

#include <pnetcdf.h>

#define EXACDF_CONNECTOR_VERSION 2
/* Tables of version 1 (without inquire and reserve_request: both then
 * forward) still load. */
#define EXACDF_CONNECTOR_VERSION_MIN 1

#if defined(__cplusplus)
extern "C" {
#endif

/* One data access (ncmpi_put_vara_int_all, ncmpi_iget_varm, ...). Pointers
 * the access kind does not use are NULL (stride NULL: 1; imap NULL:
 * contiguous). The request and everything it points at are valid only
 * during the call. */
typedef struct exacdf_data_request {
  int varid;
  const MPI_Offset *start;
  const MPI_Offset *count;
  const MPI_Offset *stride;
  const MPI_Offset *imap;
  void *buf;               /* puts only read it */
  MPI_Offset bufcount;     /* flexible API: elements of buftype; -1 for typed calls */
  MPI_Datatype buftype;    /* MPI_DATATYPE_NULL for typed calls */
  nc_type memtype;         /* typed calls: the C type of buf; NC_NAT: from buftype */
  int collective;          /* 1: a collective (_all) call */
  int varn;                /* 1: npieces subarrays starts[i], counts[i] (start/count unused) */
  int npieces;
  MPI_Offset *const *starts;
  MPI_Offset *const *counts;
  int blocking;            /* 1: a blocking call made of requests (varn) */
} exacdf_data_request;

/* An inquiry on its way down the stack (opaque; see exacdf_file_ops.inquire). */
typedef struct exacdf_inquiry exacdf_inquiry;

/* The kinds of nonblocking request. */
enum { EXACDF_IPUT = 0, EXACDF_IGET = 1, EXACDF_BPUT = 2 };

/* The calls on an open file; `file` is the connector's own per-file object
 * (for the layer below: exacdf_lower_file.file). explicit_args of enddef:
 * NULL for ncmpi_enddef, else {h_minfree, v_align, v_minfree, r_align} of
 * ncmpi__enddef. */
typedef struct exacdf_file_ops {
  int (*enddef)(void *file, const MPI_Offset *explicit_args);
  int (*redef)(void *file);
  int (*sync)(void *file);
  int (*flush)(void *file);
  int (*sync_numrecs)(void *file);
  int (*begin_indep)(void *file);
  int (*end_indep)(void *file);
  int (*close)(void *file);
  int (*abort)(void *file);
  int (*set_fill)(void *file, int fill_mode, int *old_mode);
  int (*fill_var_rec)(void *file, int varid, MPI_Offset recno);
  int (*file_info)(void *file, MPI_Info *info_used);
  int (*def_dim)(void *file, const char *name, MPI_Offset len, int *dimid);
  int (*def_var)(void *file, const char *name, nc_type xtype, int ndims, const int *dimids,
                 int *varid);
  int (*def_var_fill)(void *file, int varid, int no_fill, const void *fill_value);
  int (*rename_dim)(void *file, int dimid, const char *name);
  int (*rename_var)(void *file, int varid, const char *name);
  /* memtype: the C type of values (NC_CHAR for text). */
  int (*put_att)(void *file, int varid, const char *name, nc_type xtype, MPI_Offset nelems,
                 const void *values, nc_type memtype);
  int (*del_att)(void *file, int varid, const char *name);
  int (*rename_att)(void *file, int varid, const char *name, const char *new_name);
  int (*get_att)(void *file, int varid, const char *name, void *values, nc_type memtype);
  int (*put)(void *file, const exacdf_data_request *req);
  int (*get)(void *file, const exacdf_data_request *req);
  int (*vard)(void *file, int varid, MPI_Datatype filetype, void *buf, MPI_Offset bufcount,
              MPI_Datatype buftype, int put, int collective);
  /* kind: EXACDF_IPUT, EXACDF_IGET or EXACDF_BPUT. *reqid on entry:
   * NC_REQ_NULL, or an id taken with reserve_request (version 2); on return
   * the request's id as the user sees it (NC_REQ_NULL if the post failed). */
  int (*post)(void *file, const exacdf_data_request *req, int kind, int *reqid);
  int (*wait)(void *file, int num, int *reqids, int *statuses, int collective);
  int (*cancel)(void *file, int num, int *reqids, int *statuses);
  int (*inq_nreqs)(void *file, int *nreqs);
  int (*buffer_attach)(void *file, MPI_Offset bufsize);
  int (*buffer_detach)(void *file);
  int (*buffer_usage)(void *file, MPI_Offset *usage, MPI_Offset *size);
  /* ---- version 2 ---- */
  /* An inquiry of the file's metadata (ncmpi_inq_varid, ncmpi_inq_var,
   * ncmpi_inq_att, ...; `call` is the API function's name). The inquiry's
   * arguments and results are exacdf's: answer it by forwarding `inquiry`
   * to the layer below (lower.ops->inquire(lower.file, call, inquiry)),
   * after completing whatever it depends on that the connector deferred,
   * or refuse it by returning an NC_* code without forwarding. Returning
   * NC_NOERR without forwarding is an error (NC_EINTERNAL): the results
   * would be unset. */
  int (*inquire)(void *file, const char *call, exacdf_inquiry *inquiry);
  /* Requests: the id the next posted request will have, taken now (by a
   * connector that keeps a post and passes it below later: post then takes
   * *reqid == that id on entry; NC_REQ_NULL on entry lets the terminal
   * connector give the next id). Ids are the ones the user sees. */
  int (*reserve_request)(void *file, int *reqid);
} exacdf_file_ops;

/* A file in the layer below: call lower.ops->X(lower.file, ...). Owned by
 * exacdf; valid until the connector's release_file returned. */
typedef struct exacdf_lower_file {
  const exacdf_file_ops *ops;
  void *file;
} exacdf_lower_file;

/* The layer below, given to init: creates and opens its files. */
typedef struct exacdf_lower_connector {
  void *connector;
  int (*create)(void *connector, MPI_Comm comm, const char *path, int cmode, MPI_Info info,
                exacdf_lower_file *out);
  int (*open)(void *connector, MPI_Comm comm, const char *path, int omode, MPI_Info info,
              exacdf_lower_file *out);
} exacdf_lower_connector;

/* One setting of name{key=value;...}. */
typedef struct exacdf_setting {
  const char *key;
  const char *value;
} exacdf_setting;

typedef struct exacdf_connector_class {
  uint32_t version;  /* EXACDF_CONNECTOR_VERSION */
  uint32_t size;     /* sizeof(exacdf_connector_class) */
  const char *name;  /* NAME, as in the library's file name */
  /* A new stack (one per file): *connector is passed to create/open and
   * term. `below` stays valid until term. An unknown or bad setting:
   * return NC_EINVAL (the create/open fails on every rank). */
  int (*init)(const exacdf_lower_connector *below, const exacdf_setting *settings, int nsettings,
              void **connector);
  void (*term)(void *connector);
  /* Collective. *file: the connector's per-file object; it may be set
   * together with an error the layer below returned with its file
   * (NC_EMULTIDEFINE_CMODE/_OMODE: the file is open all the same). */
  int (*create)(void *connector, MPI_Comm comm, const char *path, int cmode, MPI_Info info,
                void **file);
  int (*open)(void *connector, MPI_Comm comm, const char *path, int omode, MPI_Info info,
              void **file);
  /* The file is gone (after close or abort, or a failed create/open that
   * set *file): free the per-file object. The lower file is released after. */
  void (*release_file)(void *connector, void *file);
  exacdf_file_ops ops;
} exacdf_connector_class;

/* The one symbol a connector library exports:
 *   EXACDF_CONNECTOR_EXPORT const exacdf_connector_class *exacdf_connector_info(void);
 * (the macro keeps it visible when the library hides its other symbols). */
#if defined(__GNUC__)
#define EXACDF_CONNECTOR_EXPORT __attribute__((visibility("default")))
#else
#define EXACDF_CONNECTOR_EXPORT
#endif
typedef const exacdf_connector_class *(*exacdf_connector_info_fn)(void);
#define EXACDF_CONNECTOR_INFO_SYMBOL "exacdf_connector_info"

#if defined(__cplusplus)
}
#endif

#endif /* EXACDF_CONNECTOR_H */
