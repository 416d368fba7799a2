#include "layer/connector_spec.hpp"

#include <cctype>

namespace exa::layer {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool is_word(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (!std::isalnum(u) && c != '_' && c != '-' && c != '.') return false;
  }
  return true;
}

Status malformed(std::string_view spec, const std::string& what) {
  return {NC_EINVAL, "malformed connector list \"" + std::string(spec) + "\": " + what};
}

// "k=v;k2=v2" (the text between the braces of one entry).
Status parse_settings(std::string_view spec, const std::string& name, std::string_view text,
                      ConnectorSettings* out) {
  while (true) {
    const size_t semi = text.find(';');
    std::string_view item = trim(text.substr(0, semi));
    if (!item.empty() || semi != std::string_view::npos) {
      const size_t eq = item.find('=');
      if (eq == std::string_view::npos)
        return malformed(spec, "setting \"" + std::string(item) + "\" of " + name + " is not key=value");
      std::string_view key = trim(item.substr(0, eq));
      std::string_view value = trim(item.substr(eq + 1));
      if (!is_word(key)) return malformed(spec, "bad setting name \"" + std::string(key) + "\" of " + name);
      // A ',' inside the braces is part of the value (a list: cache{ghost=1,1,1}).
      if (value.find_first_of("{}=") != std::string_view::npos)
        return malformed(spec, "setting " + std::string(key) + " of " + name + " has '{', '}' or '=' in its value");
      if (!out->emplace(std::string(key), std::string(value)).second)
        return malformed(spec, "setting " + std::string(key) + " of " + name + " given twice");
    }
    if (semi == std::string_view::npos) return Status::ok();
    text.remove_prefix(semi + 1);
    if (trim(text).empty()) return Status::ok();  // a trailing ';'
  }
}

// One entry: `name` or `name{settings}`, nothing after the closing brace.
Status parse_entry(std::string_view spec, std::string_view text, ConnectorEntry* out) {
  text = trim(text);
  if (text.empty()) return malformed(spec, "empty entry");
  const size_t open = text.find('{');
  std::string_view name = trim(text.substr(0, open));
  if (!is_word(name)) return malformed(spec, "bad connector name \"" + std::string(name) + "\"");
  out->name = std::string(name);
  if (open == std::string_view::npos) {
    if (text.find('}') != std::string_view::npos) return malformed(spec, "'}' without '{' after " + out->name);
    return Status::ok();
  }
  const size_t close = text.find('}', open);
  if (close == std::string_view::npos) return malformed(spec, "'{' of " + out->name + " not closed");
  if (close + 1 != text.size()) return malformed(spec, "text after the settings of " + out->name);
  std::string_view inside = text.substr(open + 1, close - open - 1);
  if (inside.find('{') != std::string_view::npos) return malformed(spec, "nested '{' in " + out->name);
  return parse_settings(spec, out->name, inside, &out->settings);
}

}  // namespace

Status parse_connector_spec(std::string_view spec, std::vector<ConnectorEntry>* out) {
  out->clear();
  if (trim(spec).empty()) return Status::ok();
  std::vector<ConnectorEntry> entries;
  size_t pos = 0;
  while (pos <= spec.size()) {
    // The entry ends at the next ',' outside braces.
    size_t end = pos;
    int depth = 0;
    while (end < spec.size() && (spec[end] != ',' || depth > 0)) {
      if (spec[end] == '{') ++depth;
      if (spec[end] == '}') --depth;
      ++end;
    }
    ConnectorEntry entry;
    EXA_RETURN_IF_ERROR(parse_entry(spec, spec.substr(pos, end - pos), &entry));
    entries.push_back(std::move(entry));
    pos = end + 1;
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].name != "native") continue;
    if (i + 1 != entries.size()) return malformed(spec, "native must be the last connector");
    if (!entries[i].settings.empty()) return malformed(spec, "native takes no settings");
    entries.pop_back();
  }
  *out = std::move(entries);
  return Status::ok();
}

std::string format_connector_spec(const std::vector<ConnectorEntry>& entries) {
  std::string s;
  for (const ConnectorEntry& e : entries) {
    if (!s.empty()) s += ',';
    s += e.name;
    if (e.settings.empty()) continue;
    s += '{';
    bool first = true;
    for (const auto& [k, v] : e.settings) {
      if (!first) s += ';';
      first = false;
      s += k + "=" + v;
    }
    s += '}';
  }
  return s;
}

}  // namespace exa::layer
