// exa_classic_name / exa_path_name: the rule of format/classic_names for
// programs (and `exacdf convert`).
#include <cstring>
#include <string>

#include "exacdf.h"
#include "format/classic_names.hpp"

int exa_classic_name(const char* name, char* out) {
  if (name == nullptr || out == nullptr) return NC_EINVAL;
  if (!exa::format::is_valid_path_name(name)) return NC_EBADNAME;
  const std::string classic = exa::format::to_classic_name(name);
  if (classic.empty()) return NC_EMAXNAME;  // (a valid full name fails only by its length)
  std::memcpy(out, classic.c_str(), classic.size() + 1);
  return NC_NOERR;
}

int exa_path_name(const char* classic, char* out) {
  if (classic == nullptr || out == nullptr) return NC_EINVAL;
  if (strnlen(classic, NC_MAX_NAME + 1) > NC_MAX_NAME) return NC_EMAXNAME;  // no classic name
  const std::string full = exa::format::from_classic_name(classic);
  std::memcpy(out, full.c_str(), full.size() + 1);
  return NC_NOERR;
}
