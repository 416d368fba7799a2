/*
 * exacdf.h -- extensions of exacdf beyond the PnetCDF API (exa_* calls and
 * EXA_* constants). Includes pnetcdf.h, so a program needs only this header.
 */
#ifndef EXACDF_H
#define EXACDF_H

#include <pnetcdf.h>

#define EXACDF_VERSION "0.1.0"
#define EXACDF_VERSION_MAJOR 0
#define EXACDF_VERSION_MINOR 1
#define EXACDF_VERSION_PATCH 0

/** Create/open mode flag: independent define mode. Define calls
 *  (ncmpi_def_dim, ncmpi_def_var, ncmpi_put_att_*, ncmpi_rename_*,
 *  ncmpi_del_att, ncmpi_def_var_fill) are local: ranks may define different
 *  objects, or the same object with identical metadata. ncmpi_enddef and
 *  ncmpi_close stay collective and merge the definitions of all ranks. Ids
 *  returned before enddef stay valid on the rank that got them; objects other
 *  ranks defined are found by name after enddef. Same as the hint
 *  exa_define_mode=independent. */
#define EXA_INDEP_DEFINE 0x10000000

#if defined(__cplusplus)
extern "C" {
#endif

/** Version string of exacdf itself (ncmpi_inq_libvers gives the PnetCDF API version). Local. */
extern const char *exa_inq_libvers(void);

/** Number of MPI-IO read/write calls this rank has made on the file (header,
 *  data, fill; a collective call counts once per rank). Local. NC_EBADID. */
extern int exa_inq_io_calls(int ncid, MPI_Offset *ncalls);

#if defined(__cplusplus)
}
#endif

#endif /* EXACDF_H */
