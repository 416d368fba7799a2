// Error texts and version strings. One table gives each NC_* code its
// symbolic name (ncmpi_strerrno) and its message (ncmpi_strerror).
#include <cstring>

#include "exacdf.h"

namespace {

struct ErrorText {
  int code;
  const char* name;
  const char* message;
};

#define E(code, text) {code, #code, text}
constexpr ErrorText kErrors[] = {
    E(NC_NOERR, "No error"),
    E(NC_EBADID, "NetCDF: Not a valid ID"),
    E(NC_ENFILE, "NetCDF: Too many files open"),
    E(NC_EEXIST, "NetCDF: File exists && NC_NOCLOBBER"),
    E(NC_EINVAL, "NetCDF: Invalid argument"),
    E(NC_EPERM, "NetCDF: Write to read only"),
    E(NC_ENOTINDEFINE, "NetCDF: Operation not allowed in data mode"),
    E(NC_EINDEFINE, "NetCDF: Operation not allowed in define mode"),
    E(NC_EINVALCOORDS, "NetCDF: Index exceeds dimension bound"),
    E(NC_EMAXDIMS, "NetCDF: NC_MAX_DIMS exceeded"),
    E(NC_ENAMEINUSE, "NetCDF: String match to name in use"),
    E(NC_ENOTATT, "NetCDF: Attribute not found"),
    E(NC_EMAXATTS, "NetCDF: NC_MAX_ATTRS exceeded"),
    E(NC_EBADTYPE, "NetCDF: Not a valid data type or _FillValue type mismatch"),
    E(NC_EBADDIM, "NetCDF: Invalid dimension ID or name"),
    E(NC_EUNLIMPOS, "NetCDF: NC_UNLIMITED in the wrong index"),
    E(NC_EMAXVARS, "NetCDF: NC_MAX_VARS exceeded"),
    E(NC_ENOTVAR, "NetCDF: Variable not found"),
    E(NC_EGLOBAL, "NetCDF: Action prohibited on NC_GLOBAL varid"),
    E(NC_ENOTNC, "NetCDF: Unknown file format"),
    E(NC_ESTS, "NetCDF: In Fortran, string too short"),
    E(NC_EMAXNAME, "NetCDF: NC_MAX_NAME exceeded"),
    E(NC_EUNLIMIT, "NetCDF: NC_UNLIMITED size already in use"),
    E(NC_ENORECVARS, "NetCDF: nc_rec op when there are no record vars"),
    E(NC_ECHAR, "NetCDF: Attempt to convert between text & numbers"),
    E(NC_EEDGE, "NetCDF: Start+count exceeds dimension bound"),
    E(NC_ESTRIDE, "NetCDF: Illegal stride"),
    E(NC_EBADNAME, "NetCDF: Name contains illegal characters"),
    E(NC_ERANGE, "NetCDF: Numeric conversion not representable"),
    E(NC_ENOMEM, "NetCDF: Memory allocation (malloc) failure"),
    E(NC_EVARSIZE, "NetCDF: One or more variable sizes violate format constraints"),
    E(NC_EDIMSIZE, "NetCDF: Invalid dimension size"),
    E(NC_ETRUNC, "NetCDF: File likely truncated or possibly corrupted"),
    E(NC_EFILEMETA, "NetCDF: Problem with file metadata."),
    E(NC_EAXISTYPE, "NetCDF: Illegal axis type"),
    E(NC_EIO, "NetCDF: I/O failure"),
    E(NC_ENODATA, "NetCDF: Variable has no data"),
    E(NC_EACCESS, "NetCDF: Access failure"),
    E(NC_ENOTFOUND, "NetCDF: Not found"),
    E(NC_EINTERNAL, "NetCDF: Internal library error"),
    E(NC_ELATEFILL, "NetCDF: Attempt to define fill value when data already exists."),
    E(NC_ENOTBUILT, "NetCDF: Attempt to use feature that was not turned on when the library was built"),
    E(NC_EMPI, "MPI operation failed"),
    E(NC_ENULLPAD, "NetCDF: File header padding is not null bytes"),
    E(NC_ESMALL, "Size of MPI_Offset or MPI_Aint too small for requested format"),
    E(NC_ENOTINDEP, "Operation not allowed in collective data mode"),
    E(NC_EINDEP, "Operation not allowed in independent data mode"),
    E(NC_EFILE, "Unknown error in file operation"),
    E(NC_EREAD, "Unknown error in reading file"),
    E(NC_EWRITE, "Unknown error in writing to file"),
    E(NC_EOFILE, "Can not open file"),
    E(NC_EMULTITYPES, "Multiple element types in the MPI derived data type"),
    E(NC_EIOMISMATCH, "Input/Output data amount mismatch"),
    E(NC_ENEGATIVECNT, "Negative count is specified"),
    E(NC_EUNSPTETYPE, "Unsupported etype in the MPI derived data type"),
    E(NC_EINVAL_REQUEST, "Invalid nonblocking request ID"),
    E(NC_EAINT_TOO_SMALL, "Value is larger than MPI_Aint can hold"),
    E(NC_ENOTSUPPORT, "Feature is not yet supported"),
    E(NC_ENULLBUF, "Trying to attach a NULL buffer"),
    E(NC_EPREVATTACHBUF, "Previous attached buffer is found"),
    E(NC_ENULLABUF, "No attached buffer is found"),
    E(NC_EPENDINGBPUT, "Cannot detach buffer with pending bput requests"),
    E(NC_EINSUFFBUF, "Attached buffer is too small"),
    E(NC_ENOENT, "File does not exist"),
    E(NC_EINTOVERFLOW, "Overflow when type cast to 4-byte integer"),
    E(NC_ENOTENABLED, "Feature is not enabled at configure time"),
    E(NC_EBAD_FILE, "Invalid file name (e.g., path name too long)"),
    E(NC_ENO_SPACE, "Not enough space"),
    E(NC_EQUOTA, "Quota exceeded"),
    E(NC_ENULLSTART, "argument start is a NULL pointer"),
    E(NC_ENULLCOUNT, "argument count is a NULL pointer"),
    E(NC_EINVAL_CMODE, "Invalid file create mode"),
    E(NC_ETYPESIZE, "MPI datatype size differs from the NetCDF type"),
    E(NC_ETYPE_MISMATCH, "element type of the MPI derived datatype mismatches the variable type"),
    E(NC_ETYPESIZE_MISMATCH, "file type size mismatches buffer type size"),
    E(NC_ESTRICTCDF2, "Attempting CDF-5 operation on CDF-2 file"),
    E(NC_ENOTRECVAR, "Attempting operation only for record variables"),
    E(NC_ENOTFILL, "Attempting to fill a variable when its fill mode is off"),
    E(NC_EINVAL_OMODE, "Invalid file open mode"),
    E(NC_EPENDING, "Pending nonblocking request is found at file close"),
    E(NC_EMAX_REQ, "Size of I/O request exceeds INT_MAX"),
    E(NC_EMULTIDEFINE, "File header is inconsistent among processes"),
    E(NC_EMULTIDEFINE_OMODE, "File open mode is inconsistent among processes"),
    E(NC_EMULTIDEFINE_DIM_NUM, "Number of dimensions is defined inconsistently among processes"),
    E(NC_EMULTIDEFINE_DIM_SIZE, "Dimension size is defined inconsistently among processes"),
    E(NC_EMULTIDEFINE_DIM_NAME, "Dimension name is defined inconsistently among processes"),
    E(NC_EMULTIDEFINE_VAR_NUM, "Number of variables is defined inconsistently among processes"),
    E(NC_EMULTIDEFINE_VAR_NAME, "Variable name is defined inconsistently among processes"),
    E(NC_EMULTIDEFINE_VAR_NDIMS, "Dimensionality of this variable is defined inconsistently among processes"),
    E(NC_EMULTIDEFINE_VAR_DIMIDS, "Dimension IDs used to define this variable are inconsistent among processes"),
    E(NC_EMULTIDEFINE_VAR_TYPE, "Data type of this variable is defined inconsistently among processes"),
    E(NC_EMULTIDEFINE_VAR_LEN, "Number of elements of this variable is defined inconsistently among processes"),
    E(NC_EMULTIDEFINE_NUMRECS, "Number of records is inconsistent among processes"),
    E(NC_EMULTIDEFINE_VAR_BEGIN, "Starting file offset of this variable is inconsistent among processes"),
    E(NC_EMULTIDEFINE_ATTR_NUM, "Number of attributes is defined inconsistently among processes"),
    E(NC_EMULTIDEFINE_ATTR_SIZE, "Memory space used by attribute (internal use) is inconsistent among processes"),
    E(NC_EMULTIDEFINE_ATTR_NAME, "Attribute name is defined inconsistently among processes"),
    E(NC_EMULTIDEFINE_ATTR_TYPE, "Attribute type is defined inconsistently among processes"),
    E(NC_EMULTIDEFINE_ATTR_LEN, "Attribute length is defined inconsistently among processes"),
    E(NC_EMULTIDEFINE_ATTR_VAL, "Attribute value is defined inconsistently among processes"),
    E(NC_EMULTIDEFINE_FNC_ARGS, "Arguments in collective API are inconsistent among processes"),
    E(NC_EMULTIDEFINE_FILL_MODE, "File fill mode is inconsistent among processes"),
    E(NC_EMULTIDEFINE_VAR_FILL_MODE, "Variable fill mode is inconsistent among processes"),
    E(NC_EMULTIDEFINE_VAR_FILL_VALUE, "Variable fill value is inconsistent among processes"),
    E(NC_EMULTIDEFINE_CMODE, "File create mode is inconsistent among processes"),
    E(EXA_ECANCELED, "exacdf async: cancelled, an earlier operation on the same region failed"),
};
#undef E

const ErrorText* lookup(int code) {
  for (const auto& e : kErrors)
    if (e.code == code) return &e;
  return nullptr;
}

}  // namespace

const char* ncmpi_strerror(int err) {
  if (err > 0) return std::strerror(err);
  const ErrorText* e = lookup(err);
  return e ? e->message : "Unknown Error";
}

const char* ncmpi_strerrno(int err) {
  const ErrorText* e = lookup(err);
  return e ? e->name : "Unknown error code";
}

const char* ncmpi_inq_libvers(void) {
  return PNETCDF_VERSION " of " PNETCDF_RELEASE_DATE " (exacdf " EXACDF_VERSION ")";
}

const char* exa_inq_libvers(void) { return EXACDF_VERSION; }
