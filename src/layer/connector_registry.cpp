#include "layer/connector_registry.hpp"

#include <map>
#include <mutex>

#include "layer/async_connector.hpp"
#include "layer/cache_connector.hpp"
#include "layer/passthrough_connector.hpp"
#include "layer/plugin_connector.hpp"
#include "layer/safe_mode_connector.hpp"
#include "layer/trace_connector.hpp"

namespace exa::layer {

namespace {

Status make_safe_mode_connector(Connector* below, const ConnectorSettings& settings,
                                std::unique_ptr<Connector>* out) {
  if (!settings.empty()) return {NC_EINVAL, "connector safe takes no settings"};
  *out = std::make_unique<SafeModeConnector>(below);
  return Status::ok();
}

// The built-in connectors ("native" is the terminal one, not made here).
// A new built-in is one line: {"name", make_name_connector}.
struct Builtin {
  const char* name;
  ConnectorFactory factory;
};
const Builtin kBuiltins[] = {
    {"async", make_async_connector},
    {"cache", make_cache_connector},
    {"passthrough", make_passthrough_connector},
    {"safe", make_safe_mode_connector},
    {"trace", make_trace_connector},
};

struct Registry {
  std::mutex mutex;
  std::map<std::string, ConnectorMaker> makers;
  Registry() {
    for (const Builtin& b : kBuiltins) makers.emplace(b.name, b.factory);
  }
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

bool register_connector_maker(const std::string& name, ConnectorMaker maker) {
  if (name.empty() || name == "native" || !maker) return false;
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.makers.emplace(name, std::move(maker)).second;
}

bool register_connector(const std::string& name, ConnectorFactory factory) {
  if (factory == nullptr) return false;
  return register_connector_maker(name, factory);
}

std::vector<std::string> registered_connectors() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> names{"native"};
  for (const auto& [name, maker] : r.makers) names.push_back(name);
  return names;
}

Status find_connector(const std::string& name, ConnectorMaker* out) {
  Registry& r = registry();
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.makers.find(name);
    if (it != r.makers.end()) {
      *out = it->second;
      return Status::ok();
    }
  }
  ConnectorMaker plugin;
  bool found = false;
  EXA_RETURN_IF_ERROR(load_plugin_connector(name, &plugin, &found));
  if (!found) {
    std::string known;
    for (const std::string& n : registered_connectors()) known += (known.empty() ? "" : ", ") + n;
    return {NC_EINVAL, "unknown connector \"" + name + "\" (known: " + known +
                           "; plugins: libexacdf_connector_" + name + ".so in EXACDF_PLUGIN_PATH)"};
  }
  // Two threads may load the same plugin at once: the first registered wins.
  register_connector_maker(name, plugin);
  return find_connector(name, out);
}

}  // namespace exa::layer
