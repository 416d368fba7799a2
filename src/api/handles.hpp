// The handle table: ncid -> open file (its connector stack and state).
// The one piece of global mutable state of the API, guarded by a mutex.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "layer/connector.hpp"
#include "layer/connector_stack.hpp"

namespace exa::api {

struct OpenFile {
  std::unique_ptr<layer::ConnectorStack> stack;  // declared first: outlives `state`
  layer::Connector* connector = nullptr;         // stack->top()
  std::unique_ptr<layer::FileState> state;
  // The file's path as the connectors report it, kept at create/open: asking
  // the stack later (facts) would make a connector that defers work (async)
  // finish it first.
  std::string path;
};

// Registers an open file and returns its ncid.
int add_file(std::unique_ptr<OpenFile> file);
// The file of an ncid, or nullptr (NC_EBADID).
OpenFile* find_file(int ncid);
// Forgets an ncid (after close/abort).
void remove_file(int ncid);
// The ncids currently open.
std::vector<int> open_ncids();

}  // namespace exa::api
