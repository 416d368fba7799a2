// C entry points for attributes: put/get (text, the typed family generated
// from EXACDF_FOR_EACH_MEMTYPE, untyped), inquiry, copy, rename, delete.
#include <cstring>
#include <vector>

#include "api/api_support.hpp"
#include "api/memtypes.hpp"
#include "convert/external.hpp"
#include "pnetcdf.h"

using exa::Status;
using exa::api::OpenFile;
using exa::api::with_file;

namespace {

int put_att_as(const char* fn, int ncid, int varid, const char* name, nc_type xtype,
               MPI_Offset nelems, const void* values, nc_type memtype) {
  return with_file(fn, ncid, [&](OpenFile& f) {
    return f.connector->put_att(*f.state, varid, name, xtype, nelems, values, memtype);
  });
}

int get_att_as(const char* fn, int ncid, int varid, const char* name, void* values, nc_type memtype) {
  return with_file(fn, ncid, [&](OpenFile& f) {
    return f.connector->get_att(*f.state, varid, name, values, memtype);
  });
}

// The owner of an attribute: NC_GLOBAL or a variable (NC_ENOTVAR).
Status att_owner(OpenFile& f, int varid) {
  const std::vector<exa::format::Attribute>* list = nullptr;
  return f.connector->dataset(*f.state).att_list(varid, &list);
}

// Finds an attribute for the inquiry calls: the owner is checked before the
// name, as PnetCDF does.
Status find_att(OpenFile& f, int varid, const char* name, const exa::format::Attribute** att,
                int* attnum = nullptr) {
  EXA_RETURN_IF_ERROR(att_owner(f, varid));
  if (name == nullptr) return {NC_EBADNAME, "null name"};
  return f.connector->dataset(*f.state).find_att(varid, name, att, attnum);
}

// Runs an attribute inquiry through the file's stack as one inquiry call.
template <typename Fn>
int with_att_inquiry(const char* fn, int ncid, Fn&& body) {
  return with_file(fn, ncid, [&](OpenFile& f) -> Status {
    auto answer = [&](const exa::model::Dataset&) { return body(f); };
    return f.connector->inquire(*f.state, fn, answer);
  });
}

}  // namespace

int ncmpi_put_att_text(int ncid, int varid, const char* name, MPI_Offset len, const char* op) {
  return put_att_as("ncmpi_put_att_text", ncid, varid, name, NC_CHAR, len, op, NC_CHAR);
}

int ncmpi_get_att_text(int ncid, int varid, const char* name, char* ip) {
  return get_att_as("ncmpi_get_att_text", ncid, varid, name, ip, NC_CHAR);
}

int ncmpi_put_att(int ncid, int varid, const char* name, nc_type xtype, MPI_Offset nelems,
                  const void* value) {
  return put_att_as("ncmpi_put_att", ncid, varid, name, xtype, nelems, value, xtype);
}

int ncmpi_get_att(int ncid, int varid, const char* name, void* value) {
  return get_att_as("ncmpi_get_att", ncid, varid, name, value, NC_NAT);
}

#define EXACDF_ATT_DEFINE_(NAME, CTYPE)                                                          \
  int ncmpi_put_att_##NAME(int ncid, int varid, const char* name, nc_type xtype, MPI_Offset len, \
                           const CTYPE* op) {                                                    \
    return put_att_as("ncmpi_put_att_" #NAME, ncid, varid, name, xtype, len, op,                 \
                      exa::api::memtype_of<CTYPE>());                                            \
  }                                                                                              \
  int ncmpi_get_att_##NAME(int ncid, int varid, const char* name, CTYPE* ip) {                   \
    return get_att_as("ncmpi_get_att_" #NAME, ncid, varid, name, ip,                             \
                      exa::api::memtype_of<CTYPE>());                                            \
  }
EXACDF_FOR_EACH_MEMTYPE(EXACDF_ATT_DEFINE_)
#undef EXACDF_ATT_DEFINE_

int ncmpi_inq_att(int ncid, int varid, const char* name, nc_type* xtypep, MPI_Offset* lenp) {
  return with_att_inquiry("ncmpi_inq_att", ncid, [&](OpenFile& f) -> Status {
    const exa::format::Attribute* att = nullptr;
    EXA_RETURN_IF_ERROR(find_att(f, varid, name, &att));
    if (xtypep) *xtypep = att->type;
    if (lenp) *lenp = att->nelems;
    return Status::ok();
  });
}

int ncmpi_inq_atttype(int ncid, int varid, const char* name, nc_type* xtypep) {
  return ncmpi_inq_att(ncid, varid, name, xtypep, nullptr);
}

int ncmpi_inq_attlen(int ncid, int varid, const char* name, MPI_Offset* lenp) {
  return ncmpi_inq_att(ncid, varid, name, nullptr, lenp);
}

int ncmpi_inq_attid(int ncid, int varid, const char* name, int* idp) {
  return with_att_inquiry("ncmpi_inq_attid", ncid, [&](OpenFile& f) -> Status {
    const exa::format::Attribute* att = nullptr;
    return find_att(f, varid, name, &att, idp);
  });
}

int ncmpi_inq_attname(int ncid, int varid, int attnum, char* name) {
  return with_att_inquiry("ncmpi_inq_attname", ncid, [&](OpenFile& f) -> Status {
    const std::vector<exa::format::Attribute>* list = nullptr;
    EXA_RETURN_IF_ERROR(f.connector->dataset(*f.state).att_list(varid, &list));
    if (attnum < 0 || attnum >= static_cast<int>(list->size()))
      return {NC_ENOTATT, "attribute number out of range"};
    const auto& n = (*list)[static_cast<size_t>(attnum)].name;
    if (name) std::memcpy(name, n.c_str(), n.size() + 1);
    return Status::ok();
  });
}

int ncmpi_copy_att(int ncid_in, int varid_in, const char* name, int ncid_out, int varid_out) {
  std::vector<unsigned char> native;
  nc_type type = NC_NAT;
  MPI_Offset nelems = 0;
  int rc = with_file("ncmpi_copy_att", ncid_in, [&](OpenFile& f) -> Status {
    // PnetCDF checks both ids and both owners before the name and the attribute.
    OpenFile* out = exa::api::find_file(ncid_out);
    if (out == nullptr) return {NC_EBADID, "not an open file id"};
    EXA_RETURN_IF_ERROR(att_owner(f, varid_in));
    EXA_RETURN_IF_ERROR(att_owner(*out, varid_out));
    const exa::format::Attribute* att = nullptr;
    EXA_RETURN_IF_ERROR(find_att(f, varid_in, name, &att));
    type = att->type;
    nelems = att->nelems;
    native.resize(static_cast<size_t>(nelems * exa::convert::native_size(type)) + 1);
    if (nelems == 0) return Status::ok();
    return exa::convert::from_external(att->xvalues.data(), type, type, nelems, native.data());
  });
  if (rc != NC_NOERR) return rc;
  return put_att_as("ncmpi_copy_att", ncid_out, varid_out, name, type, nelems, native.data(), type);
}

int ncmpi_del_att(int ncid, int varid, const char* name) {
  return with_file("ncmpi_del_att", ncid,
                   [&](OpenFile& f) { return f.connector->del_att(*f.state, varid, name); });
}

int ncmpi_rename_att(int ncid, int varid, const char* name, const char* newname) {
  return with_file("ncmpi_rename_att", ncid, [&](OpenFile& f) {
    return f.connector->rename_att(*f.state, varid, name, newname);
  });
}
