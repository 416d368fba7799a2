#include "relation/pure/manifest.hpp"

#include <charconv>
#include <cstdio>
#include <map>

#include "util/crc32c.hpp"

namespace exa::relation {
namespace {

constexpr std::string_view kMagic = "exacdf-checkpoint 1";

bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

bool file_component(std::string_view s) {
  if (s.empty() || s.size() > 200 || s[0] == '.') return false;
  for (char c : s)
    if (!name_char(c) && c != '.') return false;
  return true;
}

Status bad(const std::string& why) { return {NC_ENOTNC, "checkpoint manifest: " + why}; }

// A canonical decimal (no sign, no leading zero), so decoding then encoding gives the same bytes.
template <typename T>
bool parse_int(std::string_view s, T* v) {
  if (s.empty() || s.size() > 20 || s[0] < '0' || s[0] > '9' || (s[0] == '0' && s.size() > 1)) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
  return ec == std::errc() && p == s.data() + s.size();
}

// Splits a line into space-separated fields (no empty fields allowed).
bool split(std::string_view line, std::vector<std::string_view>* out) {
  out->clear();
  size_t pos = 0;
  while (pos < line.size()) {
    size_t sp = line.find(' ', pos);
    if (sp == std::string_view::npos) sp = line.size();
    if (sp == pos) return false;
    out->push_back(line.substr(pos, sp - pos));
    pos = sp + 1;
  }
  return !line.empty() && line.back() != ' ';
}

}  // namespace

bool valid_relation_name(std::string_view name) {
  if (name.empty() || name.size() > 128 || name[0] == '-') return false;
  for (char c : name)
    if (!name_char(c)) return false;
  return true;
}

bool valid_entry_file(std::string_view file) {
  size_t slash = file.find('/');
  if (slash == std::string_view::npos)
    return file_component(file) && file.size() > 6 && file.substr(0, 3) == "ck-" &&
           file.substr(file.size() - 3) == ".nc";
  if (file.find('/', slash + 1) != std::string_view::npos) return false;
  return file_component(file.substr(0, slash)) && file_component(file.substr(slash + 1));
}

std::string entry_variable(const ManifestEntry& e) {
  if (e.file.find('/') != std::string::npos || !e.delta) return e.relation;
  return e.relation + ".delta";
}

std::string entry_leaf(const ManifestEntry& e) { return e.file.substr(0, e.file.find('/')); }

std::string encode_manifest(const Manifest& m) {
  std::string s(kMagic);
  s += "\niteration " + std::to_string(m.iteration) + "\nnranks " + std::to_string(m.nranks) + "\n";
  for (const ManifestEntry& e : m.entries) {
    s += "relation " + e.relation + " " + std::to_string(e.arity) + " " + (e.delta ? "delta" : "full") + " " +
         std::to_string(e.iteration) + " " + std::to_string(e.rows) + " " + e.file + "\n";
  }
  char crc[32];
  std::snprintf(crc, sizeof crc, "crc32c %08x\n", crc32c(s.data(), s.size()));
  return s + crc;
}

Status decode_manifest(std::string_view bytes, Manifest* out) {
  if (bytes.size() > kMaxManifestBytes) return bad("larger than 1 MiB");
  // The CRC line is the last line: "crc32c xxxxxxxx\n".
  constexpr size_t kCrcLine = 16;
  if (bytes.size() < kCrcLine || bytes.back() != '\n') return bad("truncated");
  const std::string_view body = bytes.substr(0, bytes.size() - kCrcLine);
  const std::string_view crc_line = bytes.substr(bytes.size() - kCrcLine, kCrcLine - 1);
  if (crc_line.substr(0, 7) != "crc32c ") return bad("no CRC line");
  uint32_t want = 0;
  auto hex = crc_line.substr(7);
  for (char c : hex)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return bad("bad CRC field");
  auto [p, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), want, 16);
  if (ec != std::errc() || p != hex.data() + hex.size()) return bad("bad CRC field");
  if (crc32c(body.data(), body.size()) != want) return bad("CRC mismatch");

  Manifest m;
  std::vector<std::string_view> f;
  size_t pos = 0;
  int line_no = 0;
  while (pos < body.size()) {
    size_t nl = body.find('\n', pos);
    if (nl == std::string_view::npos) return bad("unterminated line");
    std::string_view line = body.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (line_no == 1) {
      if (line != kMagic) return bad("not a checkpoint manifest (magic)");
      continue;
    }
    if (!split(line, &f)) return bad("malformed line " + std::to_string(line_no));
    if (line_no == 2) {
      if (f.size() != 2 || f[0] != "iteration" || !parse_int(f[1], &m.iteration) || m.iteration < 0)
        return bad("bad iteration line");
    } else if (line_no == 3) {
      if (f.size() != 2 || f[0] != "nranks" || !parse_int(f[1], &m.nranks) || m.nranks < 1)
        return bad("bad nranks line");
    } else {
      ManifestEntry e;
      if (f.size() != 7 || f[0] != "relation") return bad("bad relation line " + std::to_string(line_no));
      e.relation = std::string(f[1]);
      if (!valid_relation_name(e.relation)) return bad("bad relation name");
      if (!parse_int(f[2], &e.arity) || e.arity < 1 || e.arity > kMaxArity) return bad("bad arity");
      if (f[3] == "delta") e.delta = true;
      else if (f[3] != "full") return bad("bad kind");
      if (!parse_int(f[4], &e.iteration) || e.iteration < 0 || e.iteration > m.iteration)
        return bad("bad entry iteration");
      if (!parse_int(f[5], &e.rows)) return bad("bad row count");
      e.file = std::string(f[6]);
      if (!valid_entry_file(e.file)) return bad("bad file name");
      m.entries.push_back(std::move(e));
    }
  }
  if (line_no < 3) return bad("truncated header");
  // Per relation: at most one full, first, and a constant arity.
  std::map<std::string_view, int> arity_of;
  for (const ManifestEntry& e : m.entries) {
    auto [it, fresh] = arity_of.emplace(e.relation, e.arity);
    if (fresh) continue;
    if (!e.delta) return bad("full snapshot after other entries of " + e.relation);
    if (it->second != e.arity) return bad("arity changes in " + e.relation);
  }
  *out = std::move(m);
  return Status::ok();
}

Manifest next_manifest(const Manifest& old, int64_t iteration, int nranks,
                       const std::vector<ManifestEntry>& written) {
  auto has_full = [&](const std::string& rel) {
    for (const ManifestEntry& e : written)
      if (e.relation == rel && !e.delta) return true;
    return false;
  };
  Manifest m;
  m.iteration = iteration;
  m.nranks = nranks;
  for (const ManifestEntry& e : old.entries)
    if (!has_full(e.relation)) m.entries.push_back(e);
  for (const ManifestEntry& e : written)
    if (!e.delta || !has_full(e.relation)) m.entries.push_back(e);
  // Keep each relation's entries together (full first, deltas in order): stable by first appearance.
  std::vector<ManifestEntry> grouped;
  for (size_t i = 0; i < m.entries.size(); ++i) {
    bool seen = false;
    for (size_t j = 0; j < i; ++j) seen = seen || m.entries[j].relation == m.entries[i].relation;
    if (seen) continue;
    for (size_t j = i; j < m.entries.size(); ++j)
      if (m.entries[j].relation == m.entries[i].relation) grouped.push_back(m.entries[j]);
  }
  m.entries = std::move(grouped);
  return m;
}

}  // namespace exa::relation
