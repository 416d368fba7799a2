// C entry points for defining dimensions and variables and renaming them.
#include "api/api_support.hpp"
#include "pnetcdf.h"

using exa::api::OpenFile;
using exa::api::with_file;

int ncmpi_def_dim(int ncid, const char* name, MPI_Offset len, int* idp) {
  return with_file("ncmpi_def_dim", ncid,
                   [&](OpenFile& f) { return f.connector->def_dim(*f.state, name, len, idp); });
}

int ncmpi_def_var(int ncid, const char* name, nc_type xtype, int ndims, const int* dimidsp,
                  int* varidp) {
  return with_file("ncmpi_def_var", ncid, [&](OpenFile& f) {
    return f.connector->def_var(*f.state, name, xtype, ndims, dimidsp, varidp);
  });
}

int ncmpi_rename_dim(int ncid, int dimid, const char* name) {
  return with_file("ncmpi_rename_dim", ncid,
                   [&](OpenFile& f) { return f.connector->rename_dim(*f.state, dimid, name); });
}

int ncmpi_rename_var(int ncid, int varid, const char* name) {
  return with_file("ncmpi_rename_var", ncid,
                   [&](OpenFile& f) { return f.connector->rename_var(*f.state, varid, name); });
}
