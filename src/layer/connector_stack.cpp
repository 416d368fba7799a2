#include "layer/connector_stack.hpp"

#include <cstdlib>
#include <cstring>

#include "io/hints.hpp"
#include "io/mpi_errors.hpp"
#include "layer/connector_registry.hpp"
#include "layer/connector_spec.hpp"
#include "layer/native_connector.hpp"

namespace exa::layer {

namespace {

bool env_enabled(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && std::strcmp(v, "1") == 0;
}

// The list this file asks for and where it came from (for messages).
Status requested_spec(MPI_Info info, std::string* spec, std::string* source) {
  io::Hints hints;
  EXA_RETURN_IF_ERROR(io::gather_hints(info, &hints));
  if (auto it = hints.all.find("exa_connectors"); it != hints.all.end()) {
    *spec = it->second;
    *source = "hint exa_connectors";
    return Status::ok();
  }
  const char* env = std::getenv("EXACDF_CONNECTORS");
  *spec = env ? env : "";
  *source = "EXACDF_CONNECTORS";
  return Status::ok();
}

// The entries of the stack, top first, native excluded: the list, and the
// safe-mode connector just above native when PNETCDF_SAFE_MODE=1.
Status stack_entries(MPI_Info info, std::vector<ConnectorEntry>* entries) {
  std::string spec, source;
  EXA_RETURN_IF_ERROR(requested_spec(info, &spec, &source));
  Status st = parse_connector_spec(spec, entries);
  if (!st.is_ok()) return {st.code(), source + ": " + st.message()};
  bool has_safe = false;
  for (const ConnectorEntry& e : *entries) has_safe = has_safe || e.name == "safe";
  if (safe_mode_requested() && !has_safe) entries->push_back({"safe", {}});
  return Status::ok();
}

uint64_t digest(const std::string& s) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}

// Every rank's outcome and stack shape (names only: settings such as a
// directory may differ per rank), and the mode (rank 0's, whether any rank's
// differs, rank 0's safe mode), in one allreduce. Each field is a maximum:
// rank 0's values arrive where the other ranks give 0, the least mode as
// the complement of the greatest complement.
Status agree_on_stack(MPI_Comm comm, int rank, const Status& local, const std::string& names, AgreedMode* mode) {
  const uint64_t h = digest(names);
  const uint64_t mine = static_cast<uint32_t>(mode->mode);
  uint64_t v[7] = {local.is_ok() ? 0 : static_cast<uint64_t>(-int64_t{local.code()}),
                   h,
                   ~h,
                   rank == 0 ? mine + 1 : 0,
                   mine,
                   ~mine,
                   rank == 0 && safe_mode_requested() ? 1U : 0U};
  EXA_RETURN_IF_ERROR(io::from_mpi(MPI_Allreduce(MPI_IN_PLACE, v, 7, MPI_UINT64_T, MPI_MAX, comm),
                                   io::MpiOp::kOther, "MPI_Allreduce of the connector stack and mode"));
  if (!local.is_ok()) return local;
  if (v[0] != 0) return {-static_cast<int>(v[0]), "another rank could not make its connector stack"};
  if (v[1] != ~v[2]) return {NC_EINVAL, "ranks asked for different connector stacks (this rank: " + names + ")"};
  const int root_mode = static_cast<int>(static_cast<uint32_t>(v[3] - 1));
  const bool any_differs = v[4] != ~v[5];
  if (root_mode != mode->mode || (v[6] != 0 && any_differs))
    mode->mismatch = {mode->mismatch_code, root_mode != mode->mode
                                               ? "this rank's mode differs from rank 0's (rank 0's is used)"
                                               : "another rank's mode differs from rank 0's (safe mode)"};
  mode->mode = root_mode;
  return Status::ok();
}

}  // namespace

ConnectorStack::~ConnectorStack() {
  // Top first: a connector may use the one below until it goes.
  while (!owned_.empty()) owned_.pop_back();
}

Status build_connector_stack(MPI_Comm comm, MPI_Info info, AgreedMode* mode, std::unique_ptr<ConnectorStack>* out) {
  static NativeConnector native;  // stateless per file: one for every stack
  auto stack = std::make_unique<ConnectorStack>();
  stack->top_ = &native;
  std::vector<ConnectorEntry> entries;
  Status st = stack_entries(info, &entries);
  // Bottom up: each connector is made on the one below it.
  for (auto it = entries.rbegin(); st.is_ok() && it != entries.rend(); ++it) {
    ConnectorMaker make;
    st = find_connector(it->name, &make);
    std::unique_ptr<Connector> made;
    if (st.is_ok()) st = make(stack->top_, it->settings, &made);
    if (st.is_ok() && !made) st = {NC_EINTERNAL, "connector " + it->name + " made nothing"};
    if (!st.is_ok()) break;  // (the messages name the connector)
    stack->top_ = made.get();
    stack->owned_.push_back(std::move(made));
  }
  for (const ConnectorEntry& e : entries) {
    stack->names_ += e.name + ",";
    if (e.name != "passthrough" && e.name != "safe" && e.name != "trace") stack->writes_at_once_ = false;
  }
  stack->names_ += "native";
  int nprocs = 1, rank = 0;
  EXA_RETURN_IF_ERROR(io::from_mpi(MPI_Comm_size(comm, &nprocs), io::MpiOp::kOther, "MPI_Comm_size"));
  EXA_RETURN_IF_ERROR(io::from_mpi(MPI_Comm_rank(comm, &rank), io::MpiOp::kOther, "MPI_Comm_rank"));
  if (nprocs > 1) st = agree_on_stack(comm, rank, st, stack->names_, mode);
  EXA_RETURN_IF_ERROR(st);
  *out = std::move(stack);
  return Status::ok();
}

bool safe_mode_requested() { return env_enabled("PNETCDF_SAFE_MODE"); }

}  // namespace exa::layer
