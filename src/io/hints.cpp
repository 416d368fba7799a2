#include "io/hints.hpp"

#include <cctype>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "io/mpi_errors.hpp"

namespace exa::io {

namespace {

Status read_info(MPI_Info info, std::map<std::string, std::string>* out) {
  if (info == MPI_INFO_NULL) return Status::ok();
  int nkeys = 0;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Info_get_nkeys(info, &nkeys)));
  for (int i = 0; i < nkeys; ++i) {
    char key[MPI_MAX_INFO_KEY + 1];
    EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Info_get_nthkey(info, i, key)));
    int len = 0, flag = 0;
    EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Info_get_valuelen(info, key, &len, &flag)));
    if (!flag) continue;
    std::string value(static_cast<size_t>(len) + 1, '\0');
    EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Info_get(info, key, len + 1, value.data(), &flag)));
    value.resize(static_cast<size_t>(len));
    (*out)[key] = value;
  }
  return Status::ok();
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Where the first "key=value" item of `rest` ends: at a ';' outside braces
// (exa_connectors=trace{dir=a;x=1} keeps its settings' ';'), or npos.
size_t item_end(std::string_view rest) {
  int depth = 0;
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '{') ++depth;
    if (rest[i] == '}' && depth > 0) --depth;
    if (rest[i] == ';' && depth == 0) return i;
  }
  return std::string_view::npos;
}

void read_env(std::map<std::string, std::string>* out) {
  const char* env = std::getenv("PNETCDF_HINTS");
  if (!env) return;
  std::string_view rest(env);
  while (!rest.empty()) {
    size_t end = item_end(rest);
    std::string_view item = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    size_t eq = item.find('=');
    if (eq == std::string_view::npos) continue;
    auto key = trim(item.substr(0, eq));
    auto value = trim(item.substr(eq + 1));
    if (!key.empty()) (*out)[std::string(key)] = std::string(value);
  }
}

// Positive integer value of a hint, or `fallback` when absent or malformed.
int64_t positive(const std::map<std::string, std::string>& all, const char* key,
                 int64_t fallback) {
  auto it = all.find(key);
  if (it == all.end()) return fallback;
  char* end = nullptr;
  long long v = std::strtoll(it->second.c_str(), &end, 10);
  if (end == it->second.c_str() || *end != '\0' || v <= 0) return fallback;
  return v;
}

// Whether `value` is `word` in any case.
bool same_word(const std::string& value, std::string_view word) {
  if (value.size() != word.size()) return false;
  for (size_t i = 0; i < word.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(value[i])) != word[i]) return false;
  return true;
}

}  // namespace

Status gather_hints(MPI_Info user, Hints* out) {
  Hints h;
  EXA_RETURN_IF_ERROR(read_info(user, &h.all));
  read_env(&h.all);
  h.layout.header_align = positive(h.all, "nc_header_align_size", 0);
  h.layout.var_align = positive(h.all, "nc_var_align_size", 0);
  h.layout.record_align = positive(h.all, "nc_record_align_size", 0);
  h.header_read_chunk = positive(h.all, "nc_header_read_chunk_size", kDefaultHeaderReadChunk);
  h.ibuf_size = positive(h.all, "nc_ibuf_size", kDefaultIbufSize);
  h.bcast_read_max = positive(h.all, "exa_bcast_read_max", h.bcast_read_max);
  h.compact_max = h.all.count("exa_compact_max") && h.all["exa_compact_max"] == "0"
                      ? 0
                      : positive(h.all, "exa_compact_max", h.compact_max);
  if (auto it = h.all.find("nc_in_place_swap"); it != h.all.end()) {  // any case, as PnetCDF
    if (same_word(it->second, "enable")) h.in_place_swap = Hints::InPlaceSwap::kEnable;
    if (same_word(it->second, "disable")) h.in_place_swap = Hints::InPlaceSwap::kDisable;
  }
  if (auto it = h.all.find("exa_bcast_read"); it != h.all.end()) {
    if (it->second == "enable") h.bcast_read = Hints::BcastRead::kEnable;
    if (it->second == "disable") h.bcast_read = Hints::BcastRead::kDisable;
  }
  if (auto it = h.all.find("exa_erange_fill"); it != h.all.end()) {
    if (it->second == "enable") h.erange_fill = true;
    if (it->second == "disable") h.erange_fill = false;
  }
  if (auto it = h.all.find("exa_define_mode"); it != h.all.end())
    h.independent_define = it->second == "independent";
  if (auto it = h.all.find("exa_format"); it != h.all.end()) h.partitioned = it->second == "partitioned";
  if (auto it = h.all.find("exa_swmr"); it != h.all.end()) h.swmr = it->second;
  if (auto it = h.all.find("exa_redef_records"); it != h.all.end()) h.redef_records = it->second;
  if (auto it = h.all.find("exa_swmr_refresh_bound"); it != h.all.end()) {
    char* end = nullptr;
    const double v = std::strtod(it->second.c_str(), &end);
    if (end != it->second.c_str() && v > 0) h.swmr_refresh_bound = v;
  }
  if (auto it = h.all.find("exa_swmr_commit_interval"); it != h.all.end()) {
    char* end = nullptr;
    const double v = std::strtod(it->second.c_str(), &end);
    if (end != it->second.c_str() && v > 0) h.swmr_commit_interval = v;
  }
  *out = std::move(h);
  return Status::ok();
}

void read_striping(MPI_File fh, Hints* hints) {
  MPI_Info info = MPI_INFO_NULL;
  if (fh == MPI_FILE_NULL || MPI_File_get_info(fh, &info) != MPI_SUCCESS) return;
  std::map<std::string, std::string> used;
  // Striping is advisory (alignment only): what cannot be read stays unknown (0).
  read_info(info, &used).set_aside("striping unknown: alignment falls back to the defaults");
  free_info(&info).set_aside("an info object MPI gave back could not be freed: nothing else depends on it");
  hints->striping_unit = positive(used, "striping_unit", 0);
  hints->striping_factor = positive(used, "striping_factor", 0);
  hints->layout.striping_unit = hints->striping_unit;
}

Status to_mpi_info(const Hints& hints, MPI_Info* out) {
  *out = MPI_INFO_NULL;
  MPI_Info info;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Info_create(&info)));
  Status st;
  for (const auto& [key, value] : hints.all)
    if (st.is_ok()) st = EXA_MPI(MPI_Info_set(info, key.c_str(), value.c_str()));
  if (!st.is_ok()) {
    free_info(&info).set_aside("filling the info failed: that is reported");
    return st;
  }
  *out = info;
  return Status::ok();
}

Status free_info(MPI_Info* info) {
  if (*info == MPI_INFO_NULL) return Status::ok();
  return EXA_MPI(MPI_Info_free(info));
}

namespace {

const char* in_place_swap_name(Hints::InPlaceSwap v) {
  switch (v) {
    case Hints::InPlaceSwap::kEnable: return "enable";
    case Hints::InPlaceSwap::kDisable: return "disable";
    case Hints::InPlaceSwap::kAuto: break;
  }
  return "auto";
}

const char* bcast_read_name(Hints::BcastRead v) {
  switch (v) {
    case Hints::BcastRead::kEnable: return "enable";
    case Hints::BcastRead::kDisable: return "disable";
    case Hints::BcastRead::kAuto: break;
  }
  return "auto";
}

// Every key the file reports, with its value in force, in PnetCDF's order.
std::map<std::string, std::string> reported_values(const Hints& h,
                                                   std::vector<std::string>* order) {
  std::map<std::string, std::string> v;
  auto put = [&](const char* key, std::string value) {
    order->push_back(key);
    v[key] = std::move(value);
  };
  put("nc_header_align_size", std::to_string(h.layout.header_align));
  put("nc_var_align_size", std::to_string(h.layout.var_align));
  put("nc_record_align_size", std::to_string(h.layout.record_align));
  put("nc_header_read_chunk_size", std::to_string(h.header_read_chunk));
  put("nc_in_place_swap", in_place_swap_name(h.in_place_swap));
  put("nc_ibuf_size", std::to_string(h.ibuf_size));
  put("pnetcdf_subfiling", "disable");  // not built, as in Debian's PnetCDF
  put("nc_num_subfiles", "0");
  put("exa_bcast_read", bcast_read_name(h.bcast_read));
  put("exa_bcast_read_max", std::to_string(h.bcast_read_max));
  put("exa_define_mode", h.independent_define ? "independent" : "collective");
  put("exa_format", h.partitioned ? "partitioned" : "classic");
  put("exa_compact_max", std::to_string(h.compact_max));
  put("exa_erange_fill", h.erange_fill ? "enable" : "disable");
  return v;
}

}  // namespace

Status file_info_used(const Hints& hints, MPI_File fh, MPI_Info* out) {
  MPI_Info info = MPI_INFO_NULL;
  if (fh != MPI_FILE_NULL)
    EXA_RETURN_IF_ERROR(EXA_MPI(MPI_File_get_info(fh, &info)));
  if (info == MPI_INFO_NULL)
    EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Info_create(&info)));
  std::vector<std::string> order;
  std::map<std::string, std::string> in_force = reported_values(hints, &order);
  Status st;
  auto set = [&](const std::string& key, const std::string& value) {
    if (st.is_ok())
      st = EXA_MPI(MPI_Info_set(info, key.c_str(), value.c_str()));
  };
  for (const std::string& key : order) set(key, in_force[key]);
  // The user's other hints (from the MPI_Info or PNETCDF_HINTS) as given.
  for (const auto& [key, value] : hints.all)
    if (!in_force.count(key)) set(key, value);
  if (!st.is_ok()) {
    EXA_MPI(MPI_Info_free(&info))
        .set_aside("cleanup: the failed MPI_Info_set is what is reported");
    return st;
  }
  *out = info;
  return Status::ok();
}

}  // namespace exa::io
