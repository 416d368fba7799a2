#include "model/names.hpp"

#include "format/nc_name.hpp"

namespace exa::model {

Status check_name(std::string_view name) {
  if (name.size() > NC_MAX_NAME) return {NC_EMAXNAME, "name longer than NC_MAX_NAME"};
  if (!format::is_valid_name(name)) return {NC_EBADNAME, "not a legal netCDF name"};
  return Status::ok();
}

}  // namespace exa::model
