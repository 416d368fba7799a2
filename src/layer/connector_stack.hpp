// The connector stack of one file, chosen at create/open by name:
// the hint exa_connectors (MPI_Info, or PNETCDF_HINTS, which wins over the
// MPI_Info as for every hint) if given, else the environment variable
// EXACDF_CONNECTORS, else native alone. The list names the top first
// (layer/connector_spec.hpp); native ends every stack; with
// PNETCDF_SAFE_MODE=1 the safe-mode connector sits just above native
// (unless the list names "safe" itself).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "layer/connector.hpp"

namespace exa::layer {

// The mode of a create or open as the ranks agree it, as PnetCDF does:
// rank 0's mode is the file's; a rank that passed another gets
// `mismatch_code` (NC_EMULTIDEFINE_CMODE/_OMODE) with a valid file, and in
// safe mode (rank 0's setting) every rank gets it when any rank differed.
struct AgreedMode {
  int mode = 0;           // in: this rank's; out: rank 0's
  int mismatch_code = 0;  // in
  Status mismatch;        // out: what this rank returns once its file is made
};

// The connectors of one open file. Upper connectors are made for the file
// (they may keep per-file settings); native is shared by every file.
class ConnectorStack {
 public:
  ConnectorStack() = default;
  ConnectorStack(const ConnectorStack&) = delete;
  ConnectorStack& operator=(const ConnectorStack&) = delete;
  ~ConnectorStack();

  Connector* top() const { return top_; }
  // The stack as a list, top first, native last ("passthrough,safe,native").
  const std::string& names() const { return names_; }
  // Whether every connector writes when the call is made (native, passthrough,
  // safe, trace): a put that returned success has its values in the file.
  // async and cache defer writes that may still fail; a plugin is not known.
  bool writes_at_once() const { return writes_at_once_; }

 private:
  friend Status build_connector_stack(MPI_Comm comm, MPI_Info info, AgreedMode* mode,
                                      std::unique_ptr<ConnectorStack>* out);
  std::vector<std::unique_ptr<Connector>> owned_;  // bottom (just above native) first
  Connector* top_ = nullptr;
  std::string names_;
  bool writes_at_once_ = true;
};

// Makes the stack a create/open on `comm` asks for. Collective: the ranks
// agree in one allreduce, which also carries the mode (AgreedMode), so an
// unknown name or a bad setting (hints included) on any rank is NC_EINVAL on
// every rank, as is a stack that differs between ranks. The connectors
// below get rank 0's mode and make no agreement of their own on it.
Status build_connector_stack(MPI_Comm comm, MPI_Info info, AgreedMode* mode, std::unique_ptr<ConnectorStack>* out);

}  // namespace exa::layer
