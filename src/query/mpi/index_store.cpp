#include "query/mpi/index_store.hpp"

#include <fcntl.h>
#include <roaring/roaring.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <type_traits>
#include <utility>

#include "io/collective.hpp"
#include "io/mpi_errors.hpp"
#include "query/mpi/in_file.hpp"
#include "io/mpi_file.hpp"
#include "query/mpi/nc_status.hpp"
#include "pnetcdf.h"
#include "query/mpi/put_epoch.hpp"
#include "query/mpi/typed_io.hpp"
#include "query/types.hpp"
#include "util/crc32c.hpp"

namespace exa::query {

namespace {

constexpr size_t kDigestBytes = 4096;     // the data file's first bytes (its header) are digested
constexpr int kSampleSlabs = 32;          // per rank, evenly spaced
constexpr uint64_t kSampleSlabElems = 2048;
constexpr uint64_t kDefaultChunkElems = uint64_t{1} << 20;
constexpr uint64_t kMaxHeaderBytes = uint64_t{1} << 31;

// Per (ncid, varid): the sidecar this process last found current (or
// wrote), by its header's CRC on disk, and that header as this process
// knows it now: with the chunks its communicator's puts touched since
// marked stale (put_epoch.hpp). While the sidecar on disk is that one, it
// is used even when the data file's modification time moved: every put
// that moved it is in the records. Stale marks are written back into a
// version-2 sidecar (so other processes see them); a version-1 sidecar
// keeps them here only.
struct Session {
  uint32_t disk_crc = 0;
  uint64_t puts_at = 0;  // the communicator's put_total sum when the header was last known current
  IndexHeader header;
  uint64_t last_rebuilt = 0, last_kept = 0;  // chunks of the last exa_index_create
  // The header holds stale marks its index block does not have yet (the
  // writer of index blocks commits them at its close: load_index).
  bool unsaved = false;
};
std::mutex g_mutex;
std::map<std::pair<int, int>, Session> g_sessions;
// The close's commit (prepare_close) of a partitioned file: the index
// blocks its variables' headers become, gathered so that one commit (one
// new generation) takes them all, by ncid; (varid, header bytes).
std::map<int, std::vector<std::pair<int, std::vector<unsigned char>>>> g_close_batch;
bool close_batching(int ncid) {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_close_batch.count(ncid) != 0;
}

bool session_header(int ncid, int varid, uint32_t disk_crc, IndexHeader* out, uint64_t* puts_at) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_sessions.find({ncid, varid});
  if (it == g_sessions.end() || it->second.disk_crc != disk_crc) return false;
  *out = it->second.header;
  *puts_at = it->second.puts_at;
  return true;
}
void set_session(int ncid, int varid, uint32_t disk_crc, const IndexHeader& h, uint64_t puts_at,
                 bool unsaved = false) {
  std::lock_guard<std::mutex> lock(g_mutex);
  Session& s = g_sessions[{ncid, varid}];
  s.disk_crc = disk_crc;
  s.header = h;
  s.puts_at = puts_at;
  s.unsaved = unsaved;
}
bool session_unsaved(int ncid, int varid) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_sessions.find({ncid, varid});
  return it != g_sessions.end() && it->second.unsaved;
}
// The communicator's puts into ncid so far (sum over the ranks). Collective.
Status comm_puts(const FileCtx& ctx, uint64_t* out) {
  unsigned long long mine = put_total(ctx.ncid), all = 0;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allreduce(&mine, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, ctx.comm)));
  *out = all;
  return Status::ok();
}
void set_rebuilt(int ncid, int varid, uint64_t rebuilt, uint64_t kept) {
  std::lock_guard<std::mutex> lock(g_mutex);
  Session& s = g_sessions[{ncid, varid}];
  s.last_rebuilt = rebuilt;
  s.last_kept = kept;
}
void drop_session(int ncid, int varid) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_sessions.erase({ncid, varid});
}
uint32_t stored_crc(const std::vector<unsigned char>& bytes) {
  uint32_t v = 0;
  for (int i = 0; i < 4 && bytes.size() >= 4; ++i) v |= uint32_t{bytes[bytes.size() - 4 + static_cast<size_t>(i)]} << (8 * i);
  return v;
}

// What ties a sidecar to the data it was built from.
struct Fingerprint {
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  uint32_t digest = 0;
};

Status fingerprint(const std::string& path, Fingerprint* fp) {
  struct stat sb {};
  if (::stat(path.c_str(), &sb) != 0) return {NC_ENOENT, "cannot stat the data file " + path};
  fp->size = static_cast<uint64_t>(sb.st_size);
  fp->mtime_ns = static_cast<int64_t>(sb.st_mtim.tv_sec) * 1000000000 + sb.st_mtim.tv_nsec;
  std::vector<unsigned char> head(std::min<uint64_t>(fp->size, kDigestBytes));
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return {NC_EREAD, "cannot open the data file " + path};
  const ssize_t got = ::pread(fd, head.data(), head.size(), 0);
  ::close(fd);
  if (got != static_cast<ssize_t>(head.size())) return {NC_EREAD, "cannot read the data file " + path};
  fp->digest = crc32c(head.data(), head.size());
  return Status::ok();
}

int64_t coarse_now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME_COARSE, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// Waits until the file system clock has passed mtime_ns, so that any later
// write gives the data file a different modification time (file systems
// stamp with a coarse clock). At most 2 s.
void wait_past(int64_t mtime_ns) {
  for (int i = 0; i < 2000 && coarse_now_ns() <= mtime_ns; ++i) ::usleep(1000);
}

Status read_all_at(int fd, unsigned char* buf, uint64_t n, uint64_t off) {
  while (n > 0) {
    const ssize_t got = ::pread(fd, buf, n, static_cast<off_t>(off));
    if (got <= 0) return {NC_EREAD, "index sidecar: short read"};
    buf += got;
    n -= static_cast<uint64_t>(got);
    off += static_cast<uint64_t>(got);
  }
  return Status::ok();
}

Status write_all_at(int fd, const unsigned char* buf, uint64_t n, uint64_t off) {
  while (n > 0) {
    const ssize_t put = ::pwrite(fd, buf, n, static_cast<off_t>(off));
    if (put <= 0) return {NC_EWRITE, "index sidecar: write failed"};
    buf += put;
    n -= static_cast<uint64_t>(put);
    off += static_cast<uint64_t>(put);
  }
  return Status::ok();
}

// Rank 0: varid's index block inside the data file (a partitioned file's).
// *found: the file has one (a damaged one too: *bytes then empty, and no
// sidecar is looked for); *trusted: no other writer has the file open.
void read_index_block(const FileCtx& ctx, int varid, std::vector<unsigned char>* bytes, bool* found,
                      bool* trusted) {
  *found = *trusted = false;
  const layer::IndexBlocksArgs info = index_blocks_info(ctx.ncid);
  if (!info.inside) return;
  layer::IndexBlocksArgs a;
  a.op = layer::IndexBlocksArgs::Op::kRead;
  a.varid = varid;
  Status st = index_blocks(ctx.ncid, &a);
  if (st.is_ok() && a.bytes.empty()) return;  // none: an old sidecar may still be there
  *found = true;
  *trusted = info.trusted;
  bytes->assign(a.bytes.begin(), a.bytes.end());
  if (!st.is_ok()) bytes->clear();  // damaged (its CRC): not used
}

// The header journal beside a sidecar (docs/format.md "Header journal"):
// the new header of an in-place rewrite, written whole (and renamed into
// place) before the sidecar's own header is overwritten, removed after. It
// starts with kJournalMagic and the stored CRC of the header it replaces.
std::string journal_path(const std::string& sidecar) { return sidecar + ".hdr"; }
constexpr unsigned char kJournalMagic[8] = {'E', 'X', 'A', 'I', 'D', 'X', 'J', '1'};
constexpr uint64_t kJournalPrefix = sizeof kJournalMagic + 4;

// The header at off in fd, when it decodes (length, CRC, contents).
bool read_header_at(int fd, uint64_t off, std::vector<unsigned char>* bytes) {
  unsigned char prefix[kIndexPrefixBytes];
  uint64_t hlen = 0;
  if (!read_all_at(fd, prefix, sizeof prefix, off).is_ok() || !header_length(prefix, sizeof prefix, &hlen).is_ok() ||
      hlen > kMaxHeaderBytes)
    return false;
  bytes->resize(hlen);
  IndexHeader h;
  return read_all_at(fd, bytes->data(), hlen, off).is_ok() && decode_header(bytes->data(), bytes->size(), &h).is_ok();
}

// The sidecar's own header, when it decodes.
bool read_main_header(const std::string& path, std::vector<unsigned char>* bytes) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return false;
  const bool ok = read_header_at(fd, 0, bytes);
  ::close(fd);
  return ok;
}

// The sidecar's header as it stands: its own, or the journal's when an
// in-place rewrite was cut short (the journal is whole and the header is
// torn or still the one the journal replaces). False: none that decodes.
bool current_header(const std::string& path, std::vector<unsigned char>* bytes) {
  const bool main_ok = read_main_header(path, bytes);
  int fd = ::open(journal_path(path).c_str(), O_RDONLY);
  if (fd < 0) return main_ok;
  unsigned char prefix[kJournalPrefix] = {};
  std::vector<unsigned char> journal;
  const bool journal_ok = read_all_at(fd, prefix, sizeof prefix, 0).is_ok() &&
                          std::memcmp(prefix, kJournalMagic, sizeof kJournalMagic) == 0 &&
                          read_header_at(fd, kJournalPrefix, &journal);
  ::close(fd);
  uint32_t replaces = 0;
  for (int i = 0; i < 4; ++i) replaces |= uint32_t{prefix[sizeof kJournalMagic + static_cast<size_t>(i)]} << (8 * i);
  if (journal_ok && (!main_ok || stored_crc(*bytes) == replaces)) {
    *bytes = std::move(journal);
    return true;
  }
  return main_ok;  // (a journal of a rewrite that finished, or of a sidecar since replaced)
}

// Writes bytes at offset 0 of path (created when `create`) in two halves,
// each an I/O event of the crash hook (exa_debug_kill_at): a kill between
// them leaves the file torn, as a crash in the middle of a write would.
Status write_halves(const std::string& path, const std::vector<unsigned char>& bytes, bool create) {
  int fd = create ? ::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644) : ::open(path.c_str(), O_WRONLY);
  if (fd < 0) return {NC_EWRITE, "cannot write " + path};
  const uint64_t half = bytes.size() / 2;
  io::note_io_event();
  Status st = write_all_at(fd, bytes.data(), half, 0);
  if (st.is_ok()) io::note_io_event();
  if (st.is_ok()) st = write_all_at(fd, bytes.data() + half, bytes.size() - half, half);
  ::close(fd);
  return st;
}

// Rank 0: rewrites the sidecar's header in place (same length) so that a
// crash at any step leaves a header current_header() takes, the old or the
// new: the journal first (written to a temporary name and renamed, so that
// an earlier journal stays whole until then), then the header, then the
// journal goes. Each write, the rename and the removal are I/O events of
// the crash hook. No fsync, as for the sidecar's other writes: after a
// machine crash a torn header is refused by its CRC (rebuilt by "update").
Status rewrite_header_journaled(const std::string& path, const std::vector<unsigned char>& bytes) {
  std::vector<unsigned char> old;
  const uint32_t replaces = read_main_header(path, &old) ? stored_crc(old) : 0;
  std::vector<unsigned char> journal(kJournalMagic, kJournalMagic + sizeof kJournalMagic);
  for (int i = 0; i < 4; ++i) journal.push_back(static_cast<unsigned char>(replaces >> (8 * i)));
  journal.insert(journal.end(), bytes.begin(), bytes.end());
  const std::string jpath = journal_path(path), jtmp = jpath + ".tmp";
  Status st = write_halves(jtmp, journal, /*create=*/true);
  if (st.is_ok()) io::note_io_event();
  if (st.is_ok() && std::rename(jtmp.c_str(), jpath.c_str()) != 0) st = {NC_EWRITE, "cannot rename " + jtmp};
  if (!st.is_ok()) {
    ::unlink(jtmp.c_str());
    return st;
  }
  EXA_RETURN_IF_ERROR(write_halves(path, bytes, /*create=*/false));
  io::note_io_event();
  if (::unlink(jpath.c_str()) != 0) return {NC_EWRITE, "cannot remove the index header journal " + jpath};
  return Status::ok();
}

// Rank 0: the index header bytes: varid's index block inside the data file
// (*in_file), else its sidecar. *present: it decodes; *matches: it
// describes v as it is (id, name, type, shape; rows appended since are not
// covered); *fp_ok: the data file is the one it was built from (size,
// modification time, digest of the first bytes; an index block: no other
// writer has the file open).
Status read_header(const FileCtx& ctx, const VarShape& v, std::vector<unsigned char>* bytes,
                   bool* present, bool* matches, bool* fp_ok, bool* minmax, bool* in_file) {
  *present = *matches = *fp_ok = *minmax = false;
  bool trusted = false;
  read_index_block(ctx, v.varid, bytes, in_file, &trusted);
  if (!*in_file && !current_header(sidecar_path(ctx.path, v.varid), bytes)) return Status::ok();  // none, or damaged
  IndexHeader h;
  if (!decode_header(bytes->data(), bytes->size(), &h).is_ok()) return Status::ok();  // damaged: not used
  *present = true;
  *minmax = h.minmax_only();
  uint64_t row = 1;
  for (size_t d = 1; d < v.dims.size(); ++d) row *= static_cast<uint64_t>(v.dims[d]);
  *matches = h.varid == static_cast<uint32_t>(v.varid) && h.var_name == v.name &&
             h.var_type == static_cast<uint32_t>(v.type) && h.ndims == v.dims.size() &&
             !v.dims.empty() && h.nrows <= static_cast<uint64_t>(v.dims[0]) && h.row_elems == row;
  if (*in_file) {
    *fp_ok = trusted;
    return Status::ok();
  }
  Fingerprint fp;
  if (!fingerprint(ctx.path, &fp).is_ok()) return Status::ok();
  *fp_ok = fp.size == h.data_size && fp.mtime_ns == h.data_mtime_ns && fp.digest == h.data_digest;
  return Status::ok();
}

template <typename T>
uint32_t bin_typed(const std::vector<double>& edges, T v) {
  if constexpr (std::is_integral_v<T> && sizeof(T) == 8) {
    return bin_of(edges, static_cast<long double>(v));
  } else {
    const double d = static_cast<double>(v);
    if (std::isnan(d)) return static_cast<uint32_t>(edges.size()) + 1;
    return static_cast<uint32_t>(std::upper_bound(edges.begin(), edges.end(), d) - edges.begin());
  }
}

// CRC-32C of n values of nc_type type (in this host's byte order; exacdf's
// hosts are little-endian, as docs/format.md says the CRC is taken).
uint32_t data_crc(int type, const void* values, uint64_t n) {
  return crc32c(static_cast<const unsigned char*>(values), n * static_cast<uint64_t>(type_size(type)));
}

struct BuiltChunk {
  std::vector<unsigned char> block;
  ChunkEntry entry;
  bool in_place = false;  // kept where it is in the data file (an update of index blocks)
};

// One chunk's bitmaps and min/max from its values.
BuiltChunk build_chunk(int type, const void* values, uint64_t n, const std::vector<double>& edges) {
  BuiltChunk out;
  const uint32_t nbins = static_cast<uint32_t>(edges.size()) + 2;
  std::vector<std::vector<uint32_t>> pos(nbins);
  with_type(type, [&](auto t) {
    using T = decltype(t);
    const T* v = static_cast<const T*>(values);
    T lo = std::numeric_limits<T>::max(), hi = std::numeric_limits<T>::lowest();
    bool any = false, nan = false;
    for (uint64_t i = 0; i < n; ++i) {
      const uint32_t b = bin_typed<T>(edges, v[i]);
      pos[b].push_back(static_cast<uint32_t>(i));
      if (b + 1 == nbins) {
        nan = true;
        continue;
      }
      any = true;
      lo = std::min(lo, v[i]);
      hi = std::max(hi, v[i]);
    }
    out.entry.flags = (any ? kHasValues : 0) | (nan ? kHasNaN : 0);
    out.entry.min = any ? round_down(static_cast<long double>(lo)) : 0;
    out.entry.max = any ? round_up(static_cast<long double>(hi)) : 0;
  });
  ChunkBitmaps bm(nbins);
  for (uint32_t b = 0; b < nbins; ++b)
    if (!pos[b].empty()) roaring_bitmap_add_many(bm.bin(b), pos[b].size(), pos[b].data());
  bm.optimize();
  out.block = bm.encode();
  out.entry.length = out.block.size();
  out.entry.crc = crc32c(out.block.data(), out.block.size());
  out.entry.data_crc = data_crc(type, values, n);
  out.entry.flags |= kHasDataCrc;
  return out;
}

// Values sampled from this rank's rows [r0, r1), gathered from all ranks, sorted.
Status sample_values(const FileCtx& ctx, const VarShape& v, uint64_t r0, uint64_t r1, uint64_t row,
                     std::vector<double>* sorted) {
  const uint64_t slab_rows = std::max<uint64_t>(1, kSampleSlabElems / row);
  const int tsize = type_size(v.type);
  std::vector<unsigned char> buf(slab_rows * row * static_cast<uint64_t>(tsize) + 8);
  std::vector<double> mine;
  Status first;
  for (int k = 0; k < kSampleSlabs; ++k) {
    std::vector<MPI_Offset> s(v.dims.size(), 0), c(v.dims.size(), 0);
    if (r1 > r0) {
      const uint64_t at = r0 + (r1 - r0) * static_cast<uint64_t>(k) / kSampleSlabs;
      s[0] = static_cast<MPI_Offset>(at);
      c = v.dims;
      c[0] = static_cast<MPI_Offset>(std::min(slab_rows, r1 - at));
      if (k > 0 && (r1 - r0) < static_cast<uint64_t>(kSampleSlabs) * slab_rows &&
          at < r0 + (r1 - r0) * static_cast<uint64_t>(k - 1) / kSampleSlabs + slab_rows)
        c[0] = 0;  // would overlap the previous slab on a small range
    }
    Status st = get_vara_all(ctx.ncid, v.varid, v.type, s.data(), c.data(), buf.data());
    if (!st.is_ok() && first.is_ok()) first = st;
    if (!st.is_ok() || c[0] == 0) continue;
    with_type(v.type, [&](auto t) {
      using T = decltype(t);
      const T* vals = reinterpret_cast<const T*>(buf.data());
      for (uint64_t i = 0; i < static_cast<uint64_t>(c[0]) * row; ++i) {
        const double d = static_cast<double>(vals[i]);
        if (std::isfinite(d)) mine.push_back(d);
      }
    });
  }
  EXA_RETURN_IF_ERROR(io::agree(ctx.comm, first));
  int n = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<size_t>(ctx.size)), displs(static_cast<size_t>(ctx.size));
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, ctx.comm)));
  int total = 0;
  for (int r = 0; r < ctx.size; ++r) {
    displs[static_cast<size_t>(r)] = total;
    total += counts[static_cast<size_t>(r)];
  }
  sorted->resize(static_cast<size_t>(total));
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allgatherv(mine.data(), n, MPI_DOUBLE, sorted->data(), counts.data(),
                                              displs.data(), MPI_DOUBLE, ctx.comm)));
  std::sort(sorted->begin(), sorted->end());
  return Status::ok();
}

struct BuildPlan {
  Fingerprint fp0;  // of the data file when the build began
  VarShape var;
  IndexSpec spec;
  uint64_t row = 1, nrows = 0, chunk_rows = 1, nchunks = 0;
};

Status plan_build(const FileCtx& ctx, int varid, const char* spec, BuildPlan* p) {
  EXA_RETURN_IF_ERROR(var_shape(ctx.ncid, varid, &p->var));
  if (p->var.dims.empty()) return {NC_EINVAL, "a scalar variable has no index"};
  EXA_RETURN_IF_ERROR(parse_spec(spec, &p->spec));
  for (size_t d = 1; d < p->var.dims.size(); ++d) p->row *= static_cast<uint64_t>(p->var.dims[d]);
  if (p->row == 0) p->row = 1;  // no values: an index of empty chunks
  if (p->row > kMaxChunkElems) return {NC_EINVAL, "rows too large for an index chunk"};
  p->nrows = static_cast<uint64_t>(p->var.dims[0]);
  p->chunk_rows = p->spec.chunk_rows ? p->spec.chunk_rows : std::max<uint64_t>(1, kDefaultChunkElems / p->row);
  if (p->chunk_rows > kMaxChunkElems / p->row) return {NC_EINVAL, "chunk larger than 2^32 values"};
  p->nchunks = (p->nrows + p->chunk_rows - 1) / p->chunk_rows;
  return Status::ok();
}

Status write_blocks(const FileCtx& ctx, const std::string& tmp, uint64_t base,
                    std::vector<BuiltChunk>* chunks) {
  Status st;
  if (ctx.rank == 0) {
    int fd = ::open(tmp.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd < 0) st = {NC_EFILE, "cannot create the index sidecar " + tmp};
    else ::close(fd);
  }
  EXA_RETURN_IF_ERROR(io::agree(ctx.comm, st));
  int fd = ::open(tmp.c_str(), O_WRONLY);
  if (fd < 0) st = {NC_EFILE, "cannot open the index sidecar " + tmp};
  uint64_t at = base;
  for (BuiltChunk& c : *chunks) {
    c.entry.offset = at;
    if (st.is_ok()) st = write_all_at(fd, c.block.data(), c.block.size(), at);
    at += c.block.size();
    std::vector<unsigned char>().swap(c.block);
  }
  if (fd >= 0) ::close(fd);
  return io::agree(ctx.comm, st);
}

}  // namespace

std::string sidecar_path(const std::string& data_path, int varid) {
  return data_path + ".exaidx." + std::to_string(varid);
}

std::vector<int> sidecar_varids(const std::string& data_path) {
  namespace fs = std::filesystem;
  const fs::path data(data_path);
  const std::string prefix = data.filename().string() + ".exaidx.";
  const fs::path dir = data.has_parent_path() ? data.parent_path() : fs::path(".");
  std::vector<int> varids;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    // Exactly sidecar_path's form: decimal digits, no sign, no suffix (".hdr" journals are not sidecars).
    const std::string digits = name.substr(prefix.size());
    if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    if (digits.size() > 1 && digits[0] == '0') continue;
    varids.push_back(std::stoi(digits));
  }
  std::sort(varids.begin(), varids.end());
  return varids;
}

namespace {

// n bytes of an index piece at offset of the data file.
Status read_piece(int ncid, uint64_t offset, uint64_t n, std::vector<unsigned char>* out) {
  layer::IndexBlocksArgs a;
  a.op = layer::IndexBlocksArgs::Op::kReadAt;
  a.offset = offset;
  a.size = n;
  EXA_RETURN_IF_ERROR(index_blocks(ncid, &a));
  out->assign(a.bytes.begin(), a.bytes.end());
  return Status::ok();
}

}  // namespace

Status LoadedIndex::load_block(uint64_t c, std::vector<unsigned char>* block) const {
  const ChunkEntry& e = header.chunks[c];
  if (in_file) {
    EXA_RETURN_IF_ERROR(read_piece(ncid, e.offset, e.length, block));
    if (crc32c(block->data(), block->size()) != e.crc) return {NC_EINVAL, "index block: chunk checksum"};
    return Status::ok();
  }
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return {NC_EREAD, "index sidecar vanished"};
  block->resize(e.length);
  Status st = read_all_at(fd, block->data(), block->size(), e.offset);
  ::close(fd);
  EXA_RETURN_IF_ERROR(st);
  if (crc32c(block->data(), block->size()) != e.crc) return {NC_EINVAL, "index sidecar: chunk checksum"};
  return Status::ok();
}

Status LoadedIndex::load_block_head(uint64_t c, uint64_t n, std::vector<unsigned char>* head) const {
  const ChunkEntry& e = header.chunks[c];
  if (n > e.length) return {NC_EINVAL, "index sidecar: chunk block too short"};
  if (in_file) return read_piece(ncid, e.offset, n, head);
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return {NC_EREAD, "index sidecar vanished"};
  head->resize(n);
  Status st = read_all_at(fd, head->data(), n, e.offset);
  ::close(fd);
  return st;
}

namespace {

// The put records of every rank (in rank order), from this rank's.
Status gather_puts(const FileCtx& ctx, const std::vector<PutRecord>& mine, std::vector<PutRecord>* all) {
  constexpr int kWords = 5;  // row0, row1, flags, lo, hi
  std::vector<unsigned long long> words;
  for (const PutRecord& r : mine) {
    unsigned long long lo, hi;
    std::memcpy(&lo, &r.bounds.lo, 8);
    std::memcpy(&hi, &r.bounds.hi, 8);
    const unsigned long long flags = (r.bounds.bounded ? 1u : 0u) | (r.bounds.any ? 2u : 0u) | (r.bounds.nan ? 4u : 0u) |
                                     (r.whole_rows ? 8u : 0u);
    words.insert(words.end(), {r.row0, r.row1, flags, lo, hi});
  }
  int n = static_cast<int>(words.size());
  std::vector<int> counts(static_cast<size_t>(ctx.size)), displs(static_cast<size_t>(ctx.size));
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, ctx.comm)));
  int total = 0;
  for (int r = 0; r < ctx.size; ++r) {
    displs[static_cast<size_t>(r)] = total;
    total += counts[static_cast<size_t>(r)];
  }
  std::vector<unsigned long long> every(static_cast<size_t>(total));
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allgatherv(words.data(), n, MPI_UNSIGNED_LONG_LONG, every.data(), counts.data(),
                                              displs.data(), MPI_UNSIGNED_LONG_LONG, ctx.comm)));
  all->clear();
  for (size_t i = 0; i + kWords <= every.size(); i += kWords) {
    PutRecord r;
    r.row0 = every[i];
    r.row1 = every[i + 1];
    r.bounds.bounded = every[i + 2] & 1;
    r.bounds.any = every[i + 2] & 2;
    r.bounds.nan = every[i + 2] & 4;
    r.whole_rows = every[i + 2] & 8;
    std::memcpy(&r.bounds.lo, &every[i + 3], 8);
    std::memcpy(&r.bounds.hi, &every[i + 4], 8);
    all->push_back(r);
  }
  return Status::ok();
}

// Rank 0: h's header bytes into the sidecar at path.
Status store_header(const std::string& path, const IndexHeader& h, const std::vector<unsigned char>& bytes) {
  Status st;
  if (h.minmax_only()) {
    // A min/max record is its header alone, and may change length (chunks
    // of new records): written whole and renamed into place.
    const std::string tmp = path + ".tmp";
    int fd = ::open(tmp.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd < 0) return {NC_EWRITE, "cannot write the min/max record " + tmp};
    st = write_all_at(fd, bytes.data(), bytes.size(), 0);
    ::close(fd);
    if (st.is_ok() && std::rename(tmp.c_str(), path.c_str()) != 0) st = {NC_EWRITE, "cannot rename " + tmp};
    if (!st.is_ok()) ::unlink(tmp.c_str());
    if (st.is_ok()) ::unlink(journal_path(path).c_str());  // (one left over no longer applies: its CRC)
    return st;
  }
  return rewrite_header_journaled(path, bytes);
}

// The stored CRC of the sidecar's header as it stands (false: none readable).
bool disk_header_crc(const std::string& path, uint32_t* crc) {
  std::vector<unsigned char> bytes;
  if (!current_header(path, &bytes)) return false;
  *crc = stored_crc(bytes);
  return true;
}

// An index block's header: committed (with a new generation) after the
// data is synced, so the marks are durable with the data they describe.
// Fingerprint fields 0. Collective.
// During the close's commit (close_batching) the header only joins the
// batch: prepare_close commits the batch in one generation.
Status commit_index_block(const FileCtx& ctx, IndexHeader* h, uint32_t* disk_crc) {
  if (close_batching(ctx.ncid)) {
    h->data_size = 0;
    h->data_mtime_ns = 0;
    h->data_digest = 0;
    std::vector<unsigned char> bytes = encode_header(*h);
    *disk_crc = stored_crc(bytes);
    std::lock_guard<std::mutex> lock(g_mutex);
    auto& batch = g_close_batch[ctx.ncid];
    std::erase_if(batch, [&](const auto& e) { return e.first == static_cast<int>(h->varid); });
    batch.emplace_back(static_cast<int>(h->varid), std::move(bytes));
    return Status::ok();
  }
  EXA_RETURN_IF_ERROR(io::agree(ctx.comm, nc(ncmpi_sync(ctx.ncid), "ncmpi_sync")));
  h->data_size = 0;
  h->data_mtime_ns = 0;
  h->data_digest = 0;
  layer::IndexBlocksArgs a;
  a.op = layer::IndexBlocksArgs::Op::kCommit;
  a.headers.emplace_back(static_cast<int>(h->varid), encode_header(*h));
  *disk_crc = stored_crc(a.headers.back().second);
  return index_blocks(ctx.ncid, &a);
}

// Writes h back over the sidecar's header (same length: only entries and
// the fingerprint change) after the data file is synced, with the data
// file's fingerprint now; a version-1 sidecar is left alone. An index block
// (in_file) is committed anew instead. Collective.
// *disk_crc: the stored CRC of the header on disk afterwards.
Status write_back_header(const FileCtx& ctx, IndexHeader* h, uint32_t* disk_crc, bool in_file = false) {
  if (in_file) return commit_index_block(ctx, h, disk_crc);
  if (h->version == kIndexVersionV1) return Status::ok();
  EXA_RETURN_IF_ERROR(io::agree(ctx.comm, nc(ncmpi_sync(ctx.ncid), "ncmpi_sync")));
  unsigned long long fp[3] = {0, 0, 0};
  Status st;
  if (ctx.rank == 0) {
    Fingerprint f;
    st = fingerprint(ctx.path, &f);
    if (st.is_ok()) wait_past(f.mtime_ns);
    fp[0] = f.size;
    fp[1] = static_cast<unsigned long long>(f.mtime_ns);
    fp[2] = f.digest;
  }
  EXA_RETURN_IF_ERROR(io::agree(ctx.comm, st));
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Bcast(fp, 3, MPI_UNSIGNED_LONG_LONG, 0, ctx.comm)));
  h->data_size = fp[0];
  h->data_mtime_ns = static_cast<int64_t>(fp[1]);
  h->data_digest = static_cast<uint32_t>(fp[2]);
  const std::vector<unsigned char> bytes = encode_header(*h);
  if (ctx.rank == 0) st = store_header(sidecar_path(ctx.path, static_cast<int>(h->varid)), *h, bytes);
  EXA_RETURN_IF_ERROR(io::agree(ctx.comm, st));
  *disk_crc = stored_crc(bytes);
  return Status::ok();
}

}  // namespace

uint64_t minmax_chunk_elems() {
  // Read once (every put segments its values by it: a getenv per put was
  // 1% of a 4 KiB put's CPU, docs/perf/query_minmax.md).
  static const uint64_t elems = [] {
    const char* e = std::getenv("EXACDF_QUERY_MINMAX_CHUNK");
    const uint64_t n = e != nullptr ? std::strtoull(e, nullptr, 10) : 0;
    return n > 0 ? n : kDefaultChunkElems;
  }();
  return elems;
}

namespace {

// A new min/max record of v from the communicator's puts since the last
// look (no record, or one that is not trusted: the chunks the puts wrote
// whole get bounds, the others none), written when some chunk is bounded.
// Collective (every rank has the same puts).
// in_file: as an index block of the partitioned file (the close's commit),
// not a sidecar.
Status start_minmax(const FileCtx& ctx, const VarShape& v, const std::vector<PutRecord>& puts,
                    LoadedIndex* out, IndexState* state, bool in_file) {
  if (v.dims.empty() || puts.empty()) return Status::ok();
  uint64_t row = 1;
  for (size_t d = 1; d < v.dims.size(); ++d) row *= static_cast<uint64_t>(v.dims[d]);
  if (row == 0 || row > kMaxChunkElems || v.dims[0] <= 0) return Status::ok();
  const uint64_t chunk_rows = std::max<uint64_t>(1, minmax_chunk_elems() / row);
  IndexHeader h = minmax_header(static_cast<uint32_t>(v.varid), static_cast<uint32_t>(v.type),
                                static_cast<uint32_t>(v.dims.size()), v.name, static_cast<uint64_t>(v.dims[0]),
                                row, chunk_rows);
  static_cast<void>(apply_puts(puts, &h));
  if (h.bounded_chunks() == 0) return Status::ok();  // nothing known: no record
  uint32_t crc = 0;
  EXA_RETURN_IF_ERROR(write_back_header(ctx, &h, &crc, in_file));
  uint64_t puts_now = 0;
  EXA_RETURN_IF_ERROR(comm_puts(ctx, &puts_now));
  set_session(ctx.ncid, v.varid, crc, h, puts_now);
  out->header = std::move(h);
  out->path = sidecar_path(ctx.path, v.varid);
  out->in_file = in_file;
  state->matches = state->usable = state->minmax = true;
  return Status::ok();
}

}  // namespace

Status load_index(const FileCtx& ctx, const VarShape& v, LoadedIndex* out, IndexState* state, bool commit_marks) {
  *state = IndexState{};
  note_indexed(ctx.ncid, v.varid, true);  // queried: this process's later puts keep min/max
  std::vector<unsigned char> bytes;
  bool present = false, matches = false, fp_ok = false, minmax = false, in_file = false;
  if (ctx.rank == 0)
    EXA_RETURN_IF_ERROR(read_header(ctx, v, &bytes, &present, &matches, &fp_ok, &minmax, &in_file));
  unsigned long long info[5] = {present ? 1ull : 0ull, matches ? bytes.size() : 0ull, fp_ok ? 1ull : 0ull,
                                minmax ? 1ull : 0ull, in_file ? 1ull : 0ull};
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Bcast(info, 5, MPI_UNSIGNED_LONG_LONG, 0, ctx.comm)));
  out->in_file = info[4] != 0;
  out->ncid = ctx.ncid;
  // A min/max record is not a bitmap index (exa_index_inq says none).
  state->present = info[0] != 0 && info[3] == 0;
  // This communicator's puts since the last look: they go into the index
  // if it is used, and are moot otherwise (a rebuild reads the values).
  std::vector<PutRecord> puts;
  settle_puts(ctx.ncid);  // puts a stack deferred (async, cache) count once it wrote them
  EXA_RETURN_IF_ERROR(gather_puts(ctx, take_puts(ctx.ncid, v.varid), &puts));
  // The close's commit of a partitioned file keeps min/max records inside
  // it (an index block; before, and in a query's load, a sidecar: a commit
  // per query would cost a generation each).
  const bool record_in_file = commit_marks && close_batching(ctx.ncid);
  if (info[1] == 0) {
    if (info[0] == 0 || info[3] != 0) return start_minmax(ctx, v, puts, out, state, record_in_file);
    return Status::ok();
  }
  bytes.resize(info[1]);
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Bcast(bytes.data(), static_cast<int>(info[1]), MPI_BYTE, 0, ctx.comm)));
  const uint32_t disk_crc = stored_crc(bytes);
  IndexHeader h;
  uint64_t puts_at = 0, puts_now = 0;
  bool known = session_header(ctx.ncid, v.varid, disk_crc, &h, &puts_at);
  int all_known = 0, mine = known ? 1 : 0;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allreduce(&mine, &all_known, 1, MPI_INT, MPI_MIN, ctx.comm)));
  EXA_RETURN_IF_ERROR(comm_puts(ctx, &puts_now));
  // The file changed although this communicator put nothing since: someone
  // else wrote it (or this process redefined it); the session's view is void.
  known = all_known == 1 && (info[2] != 0 || puts_now != puts_at);
  if (!known) {
    if (info[2] == 0 || !decode_header(bytes.data(), bytes.size(), &h).is_ok()) {
      // The file changed since the sidecar was built, by writes this
      // process did not see: only a rebuild (its CRCs) can tell which chunks.
      drop_session(ctx.ncid, v.varid);
      // A min/max record says nothing any more: begin anew from the puts.
      if (info[3] != 0) return start_minmax(ctx, v, puts, out, state, record_in_file);
      state->matches = true;
      out->header = IndexHeader{};
      static_cast<void>(decode_header(bytes.data(), bytes.size(), &out->header));
      out->path = sidecar_path(ctx.path, v.varid);
      return Status::ok();
    }
  }
  state->matches = true;
  state->minmax = h.minmax_only();
  const uint64_t rows_before = h.nrows;
  if (state->minmax) grow_minmax(&h, static_cast<uint64_t>(v.dims[0]));  // records appended since
  const bool changed = apply_puts(puts, &h) || h.nrows != rows_before;
  // (The same on every rank: sessions change collectively.)
  // A min/max record in a sidecar of a partitioned file moves inside it at
  // the close (prepare_close removes the sidecar once committed).
  const bool moves_in = record_in_file && state->minmax && !out->in_file;
  if (moves_in) out->in_file = true;
  const bool dirty = changed || moves_in || (known && session_unsaved(ctx.ncid, v.varid));
  uint32_t new_crc = disk_crc;
  // (An index block is written back only by a handle that may write: one
  // that may not has put nothing, and keeps what it knows in its session.
  // Its writer keeps the marks in its session until its close: nobody else
  // trusts the index blocks meanwhile, and a commit costs a new generation
  // -- in a file with records, a new record section.)
  const layer::IndexBlocksArgs where = out->in_file ? index_blocks_info(ctx.ncid) : layer::IndexBlocksArgs{};
  const bool may_write = !out->in_file || where.writable;
  const bool defer = out->in_file && where.writer && !commit_marks && info[2] != 0;
  if ((dirty || info[2] == 0) && may_write && !defer)
    EXA_RETURN_IF_ERROR(write_back_header(ctx, &h, &new_crc, out->in_file));
  set_session(ctx.ncid, v.varid, new_crc, h, puts_now, dirty && defer);
  out->header = std::move(h);
  out->path = sidecar_path(ctx.path, v.varid);
  state->usable = true;
  return Status::ok();
}

bool has_sessions(int ncid) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_sessions.lower_bound({ncid, std::numeric_limits<int>::min()});
  return it != g_sessions.end() && it->first.first == ncid;
}

namespace {

// The varids of ctx's puts whose min/max the close keeps although nobody
// looked at them (keep_notes, prepare_close): of a partitioned file this
// handle writes, every variable some rank's puts wrote whole rows of with
// known values; of a classic file, those that already have a sidecar
// (listed), and with EXACDF_QUERY_MINMAX=put/always every such variable.
// The union over the ranks (one allreduce). Collective.
// (out's varids, the sessions of this rank, join the union: a session
// begun at the open -- trust_at_open -- may be on some ranks only.)
Status noted_for_close(const FileCtx& ctx, bool inside, std::vector<int>* out) {
  settle_puts(ctx.ncid);  // puts a stack deferred (async, cache) count once written
  int nvars = 0;
  EXA_RETURN_IF_ERROR(io::agree(ctx.comm, nc(ncmpi_inq_nvars(ctx.ncid, &nvars), "ncmpi_inq_nvars")));
  std::vector<unsigned char> mine(static_cast<size_t>(std::max(nvars, 1)), 0), all(mine.size(), 0);
  std::vector<int> listed;
  const bool every = inside || minmax_requested();
  if (!every) listed = sidecar_varids(ctx.path);  // (the same directory on every rank)
  int count = 0;
  for (int varid : noted_varids(ctx.ncid)) {
    if (varid < 0 || varid >= nvars || !(every || std::binary_search(listed.begin(), listed.end(), varid))) continue;
    // At least one whole min/max chunk of values (a scalar or a small
    // variable -- compact ones, say -- costs the close more than its bounds
    // save a query).
    VarShape v;
    if (!var_shape(ctx.ncid, varid, &v).is_ok() || v.dims.empty()) continue;
    uint64_t values = 1;
    for (MPI_Offset d : v.dims) values *= static_cast<uint64_t>(std::max<MPI_Offset>(d, 0));
    if (values < minmax_chunk_elems()) continue;
    mine[static_cast<size_t>(varid)] = 1;
    ++count;
  }
  for (int varid : *out)
    if (varid >= 0 && varid < nvars) mine[static_cast<size_t>(varid)] = 1, ++count;
  out->clear();
  int any = 0;  // (nothing to keep, the usual case: one int reduced, not the map)
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allreduce(&count, &any, 1, MPI_INT, MPI_MAX, ctx.comm)));
  if (any == 0) return Status::ok();
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allreduce(mine.data(), all.data(), static_cast<int>(all.size()),
                                            MPI_UNSIGNED_CHAR, MPI_MAX, ctx.comm)));
  for (int varid = 0; varid < nvars; ++varid)
    if (all[static_cast<size_t>(varid)] != 0) out->push_back(varid);
  return Status::ok();
}

// The close's one commit of the batch gathered for a partitioned file
// (close_batching): every header in one new generation that also clears the
// writer-open flag, after the data is synced; then the sidecars of min/max
// records that moved inside go. Collective.
Status commit_close_batch(const FileCtx& ctx) {
  std::vector<std::pair<int, std::vector<unsigned char>>> batch;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = g_close_batch.find(ctx.ncid);
    if (it != g_close_batch.end()) {
      batch = std::move(it->second);
      g_close_batch.erase(it);
    }
  }
  if (batch.empty()) return Status::ok();  // (the same on every rank: the batch is collective)
  std::sort(batch.begin(), batch.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  EXA_RETURN_IF_ERROR(io::agree(ctx.comm, nc(ncmpi_sync(ctx.ncid), "ncmpi_sync")));
  layer::IndexBlocksArgs a;
  a.op = layer::IndexBlocksArgs::Op::kCommit;
  a.closing = true;
  std::vector<int> varids;
  for (auto& [varid, bytes] : batch) {
    varids.push_back(varid);
    a.headers.emplace_back(varid, std::vector<uint8_t>(bytes.begin(), bytes.end()));
  }
  EXA_RETURN_IF_ERROR(index_blocks(ctx.ncid, &a));
  if (ctx.rank == 0)
    for (int varid : varids) {  // (an index's sidecar went at its build; a min/max record's may be there)
      const std::string side = sidecar_path(ctx.path, varid);
      ::unlink(side.c_str());
      ::unlink(journal_path(side).c_str());
    }
  return Status::ok();
}

}  // namespace

void trust_at_open(int ncid, const std::string& path) {
  if (index_blocks_info(ncid).inside) return;  // (a partitioned file keeps its records inside)
  const std::vector<int> varids = sidecar_varids(path);
  if (varids.empty()) return;
  Fingerprint fp;
  if (!fingerprint(path, &fp).is_ok()) return;
  for (int varid : varids) {
    std::vector<unsigned char> bytes;
    IndexHeader h;
    if (!current_header(sidecar_path(path, varid), &bytes) || !decode_header(bytes.data(), bytes.size(), &h).is_ok())
      continue;
    // (Min/max records only: an index of a file written by a process that
    // never looked at it stays untrusted until an update, as before.)
    if (h.version == kIndexVersionV1 || h.varid != static_cast<uint32_t>(varid) || !h.minmax_only()) continue;
    if (h.data_size != fp.size || h.data_mtime_ns != fp.mtime_ns || h.data_digest != fp.digest) continue;
    set_session(ncid, varid, stored_crc(bytes), h, /*puts_at=*/0);
  }
}

bool close_keeps_notes(int ncid, const std::string& path) {
  const layer::IndexBlocksArgs where = index_blocks_info(ncid);
  if (!where.writable) return false;
  if (where.inside) return minmax_at_every_put();
  return minmax_requested() || !sidecar_varids(path).empty();
}

Status prepare_close(const FileCtx& ctx, CloseStamp* out, bool keep_notes) {
  std::vector<int> vars;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    for (const auto& [key, session] : g_sessions)
      if (key.first == ctx.ncid) vars.push_back(key.second);
  }
  // The writer of index blocks gives every one of them its puts (also those
  // of variables it never queried), then lets the close clear the
  // writer-open flag (docs/format.md "Index blocks").
  const bool writer = index_blocks_writer(ctx.ncid);  // (the same on every rank)
  const layer::IndexBlocksArgs where = index_blocks_info(ctx.ncid);
  const bool inside = where.inside && where.writable;
  std::vector<int> with_blocks;
  if (writer) {
    layer::IndexBlocksArgs a;
    a.op = layer::IndexBlocksArgs::Op::kList;
    EXA_RETURN_IF_ERROR(index_blocks(ctx.ncid, &a));
    with_blocks = a.varids;
    vars.insert(vars.end(), a.varids.begin(), a.varids.end());
  }
  // Min/max of puts nobody queried: kept beyond the close ("min and max
  // always"), inside a partitioned file, in sidecars beside a classic one.
  if (keep_notes) EXA_RETURN_IF_ERROR(noted_for_close(ctx, inside, &vars));
  std::sort(vars.begin(), vars.end());
  vars.erase(std::unique(vars.begin(), vars.end()), vars.end());
  if (vars.empty()) return Status::ok();  // (the same on every rank: sessions change collectively)
  // A partitioned file this handle writes: every index block the loads
  // below write (stale marks, min/max records) goes into one commit.
  const char* sidecar_env = std::getenv("EXACDF_QUERY_SIDECAR");
  const bool batch = inside && !(sidecar_env != nullptr && std::strcmp(sidecar_env, "1") == 0);
  if (batch) {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_close_batch[ctx.ncid];
  }
  Status st;
  for (int varid : vars) {
    VarShape v;
    // (An index block's variable that is gone: its block says nothing of any variable.)
    const bool listed = std::find(with_blocks.begin(), with_blocks.end(), varid) != with_blocks.end();
    if (listed && !var_shape(ctx.ncid, varid, &v).is_ok()) continue;
    st = io::agree(ctx.comm, var_shape(ctx.ncid, varid, &v));
    if (!st.is_ok()) break;
    LoadedIndex idx;
    IndexState state;
    st = load_index(ctx, v, &idx, &state, /*commit_marks=*/true);  // this communicator's last puts go in
    if (!st.is_ok()) break;
    if (idx.in_file) continue;  // (committed with the data: no fingerprint to give)
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = g_sessions.find({ctx.ncid, varid});
    if (it == g_sessions.end()) continue;
    out->headers.push_back(it->second.header);
    out->crcs.push_back(it->second.disk_crc);
  }
  if (batch) {
    if (st.is_ok()) {
      st = commit_close_batch(ctx);
    } else {
      std::lock_guard<std::mutex> lock(g_mutex);
      g_close_batch.erase(ctx.ncid);
    }
  }
  EXA_RETURN_IF_ERROR(st);
  if (writer) {
    layer::IndexBlocksArgs a;
    a.op = layer::IndexBlocksArgs::Op::kApplied;
    EXA_RETURN_IF_ERROR(index_blocks(ctx.ncid, &a));
  }
  if (out->headers.empty()) return Status::ok();
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_dup(ctx.comm, &out->comm)));
  out->rank = ctx.rank;
  out->path = ctx.path;
  return Status::ok();
}

Status finish_close(CloseStamp* stamp) {
  if (stamp->comm == MPI_COMM_NULL) return Status::ok();
  Status st;
  if (stamp->rank == 0) {
    Fingerprint fp;
    st = fingerprint(stamp->path, &fp);
    bool wrote = false;
    for (size_t i = 0; i < stamp->headers.size() && st.is_ok(); ++i) {
      IndexHeader& h = stamp->headers[i];
      if (h.version == kIndexVersionV1) continue;
      if (h.data_size == fp.size && h.data_mtime_ns == fp.mtime_ns && h.data_digest == fp.digest) continue;
      const std::string path = sidecar_path(stamp->path, static_cast<int>(h.varid));
      uint32_t crc = 0;
      if (!disk_header_crc(path, &crc) || crc != stamp->crcs[i]) continue;  // not the one this process trusted
      h.data_size = fp.size;
      h.data_mtime_ns = fp.mtime_ns;
      h.data_digest = fp.digest;
      st = store_header(path, h, encode_header(h));
      wrote = true;
    }
    if (wrote) wait_past(fp.mtime_ns);  // a later write changes the mtime
  }
  Status agreed = io::agree(stamp->comm, st);
  Status freed = EXA_MPI(MPI_Comm_free(&stamp->comm));
  stamp->comm = MPI_COMM_NULL;
  EXA_RETURN_IF_ERROR(agreed);
  return freed;
}

void forget_trust(int ncid) {
  std::lock_guard<std::mutex> lock(g_mutex);
  for (auto it = g_sessions.begin(); it != g_sessions.end();)
    it = it->first.first == ncid ? g_sessions.erase(it) : std::next(it);
}

namespace {

// The chunk pieces varid's committed index block points at and `next` (the
// new header's bytes) does not: space the commit of `next` stops
// referencing. Rank 0 reads the committed block and broadcasts the list
// (the same on every rank); none when there is no block or one of the two
// does not decode; `next` empty: the block goes, all its pieces with it (the space then stays unused). Collective.
Status pieces_released(const FileCtx& ctx, int varid, const std::vector<unsigned char>& next,
                       std::vector<std::pair<uint64_t, uint64_t>>* out) {
  std::vector<unsigned long long> flat;
  if (ctx.rank == 0) {
    std::vector<unsigned char> old;
    bool found = false, trusted = false;
    read_index_block(ctx, varid, &old, &found, &trusted);
    IndexHeader before, after;  // (no next: the block is removed)
    if (!old.empty() && decode_header(old.data(), old.size(), &before).is_ok() &&
        (next.empty() || decode_header(next.data(), next.size(), &after).is_ok())) {
      std::set<uint64_t> kept;
      for (const ChunkEntry& c : after.chunks) kept.insert(c.offset);
      for (const ChunkEntry& c : before.chunks)
        if (c.length > 0 && !kept.count(c.offset)) flat.insert(flat.end(), {c.offset, c.length});
    }
  }
  unsigned long long n = flat.size();
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, ctx.comm)));
  flat.resize(static_cast<size_t>(n));
  if (n > 0) EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Bcast(flat.data(), static_cast<int>(n), MPI_UNSIGNED_LONG_LONG, 0, ctx.comm)));
  for (size_t k = 0; k + 1 < flat.size(); k += 2) out->emplace_back(flat[k], flat[k + 1]);
  return Status::ok();
}

// What a rebuild does with each chunk of this rank.
enum class ChunkPlan { kBuild, kKeep, kKeepIfSameData };

// This rank's new chunk pieces written past the data file's space in use
// (kept ones stay where they are), at or after offset at_least (the
// header's length: chunk offsets lie past it, as in a sidecar). Collective.
Status store_pieces(const FileCtx& ctx, uint64_t at_least, std::vector<BuiltChunk>* built) {
  layer::IndexBlocksArgs a;
  a.op = layer::IndexBlocksArgs::Op::kStore;
  a.at_least = at_least;
  for (BuiltChunk& c : *built) {
    if (c.in_place) continue;
    c.entry.offset = a.bytes.size();
    a.bytes.insert(a.bytes.end(), c.block.begin(), c.block.end());
    std::vector<unsigned char>().swap(c.block);
  }
  EXA_RETURN_IF_ERROR(index_blocks(ctx.ncid, &a));
  for (BuiltChunk& c : *built)
    if (!c.in_place) c.entry.offset += a.offset;
  return Status::ok();
}

// The new index from this rank's built chunks: a sidecar (blocks after the
// header, in chunk order; rank 0 writes the header and renames it into
// place), or index blocks in the data file (in_file: pieces past the space
// in use, then the header block committed with a new generation).
Status store_sidecar(const FileCtx& ctx, const BuildPlan& p, const std::vector<double>& edges,
                     std::vector<BuiltChunk>* built, bool in_file) {
  IndexHeader h;
  h.varid = static_cast<uint32_t>(p.var.varid);
  h.var_type = static_cast<uint32_t>(p.var.type);
  h.ndims = static_cast<uint32_t>(p.var.dims.size());
  h.nrows = p.nrows;
  h.row_elems = p.row;
  h.chunk_rows = p.chunk_rows;
  h.var_name = p.var.name;
  h.edges = edges;
  h.chunks.resize(p.nchunks);
  const uint64_t header_len = encode_header(h).size();
  unsigned long long my_bytes = 0, before = 0;
  for (const BuiltChunk& b : *built) my_bytes += b.block.size();
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Exscan(&my_bytes, &before, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, ctx.comm)));
  if (ctx.rank == 0) before = 0;
  const std::string final_path = sidecar_path(ctx.path, p.var.varid);
  const std::string tmp = final_path + ".tmp";
  if (in_file) EXA_RETURN_IF_ERROR(store_pieces(ctx, header_len, built));
  else EXA_RETURN_IF_ERROR(write_blocks(ctx, tmp, header_len + before, built));
  // The directory to rank 0, which writes the header and renames.
  constexpr int kWords = 6;
  std::vector<unsigned long long> entries;
  for (const BuiltChunk& b : *built) {
    unsigned long long mnb, mxb;
    std::memcpy(&mnb, &b.entry.min, 8);
    std::memcpy(&mxb, &b.entry.max, 8);
    entries.insert(entries.end(), {b.entry.offset, b.entry.length, mnb, mxb,
                                   (static_cast<unsigned long long>(b.entry.flags) << 32) | b.entry.crc,
                                   b.entry.data_crc});
  }
  int n = static_cast<int>(entries.size());
  std::vector<int> counts(static_cast<size_t>(ctx.size)), displs(static_cast<size_t>(ctx.size));
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, ctx.comm)));
  int total = 0;
  for (int r = 0; r < ctx.size; ++r) {
    displs[static_cast<size_t>(r)] = total;
    total += counts[static_cast<size_t>(r)];
  }
  std::vector<unsigned long long> all(ctx.rank == 0 ? static_cast<size_t>(total) : 0);
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Gatherv(entries.data(), n, MPI_UNSIGNED_LONG_LONG, all.data(),
                                          counts.data(), displs.data(), MPI_UNSIGNED_LONG_LONG, 0, ctx.comm)));
  Status st;
  std::vector<unsigned char> head;
  if (ctx.rank == 0) {
    st = [&]() -> Status {
      for (uint64_t c = 0; c < p.nchunks; ++c) {
        ChunkEntry& e = h.chunks[c];
        const unsigned long long* x = all.data() + kWords * c;
        e.offset = x[0];
        e.length = x[1];
        std::memcpy(&e.min, &x[2], 8);
        std::memcpy(&e.max, &x[3], 8);
        e.crc = static_cast<uint32_t>(x[4]);
        e.flags = static_cast<uint32_t>(x[4] >> 32);
        e.data_crc = static_cast<uint32_t>(x[5]);
      }
      if (in_file) {  // (fingerprint fields 0: the commit ties it to the data)
        head = encode_header(h);
        return Status::ok();
      }
      Fingerprint fp1;
      EXA_RETURN_IF_ERROR(fingerprint(ctx.path, &fp1));
      if (fp1.size != p.fp0.size || fp1.mtime_ns != p.fp0.mtime_ns || fp1.digest != p.fp0.digest)
        return {NC_EINVAL, "the data file changed while its index was built"};
      h.data_size = p.fp0.size;
      h.data_mtime_ns = p.fp0.mtime_ns;
      h.data_digest = p.fp0.digest;
      head = encode_header(h);
      int fd = ::open(tmp.c_str(), O_WRONLY);
      if (fd < 0) return {NC_EFILE, "cannot open the index sidecar " + tmp};
      // No fsync: a sidecar torn by a crash fails its checksums and is not used.
      Status ws = write_all_at(fd, head.data(), head.size(), 0);
      ::close(fd);
      EXA_RETURN_IF_ERROR(ws);
      if (std::rename(tmp.c_str(), final_path.c_str()) != 0) return {NC_EWRITE, "cannot rename the index sidecar"};
      ::unlink(journal_path(final_path).c_str());  // (one left over no longer applies: its CRC)
      return Status::ok();
    }();
    if (!st.is_ok() && !in_file) ::unlink(tmp.c_str());
  }
  EXA_RETURN_IF_ERROR(io::agree(ctx.comm, st));
  // Every rank gets the header: the session's state (current, nothing stale).
  unsigned long long len = head.size();
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Bcast(&len, 1, MPI_UNSIGNED_LONG_LONG, 0, ctx.comm)));
  head.resize(len);
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Bcast(head.data(), static_cast<int>(len), MPI_BYTE, 0, ctx.comm)));
  if (in_file) {
    layer::IndexBlocksArgs a;
    a.op = layer::IndexBlocksArgs::Op::kCommit;
    a.headers.emplace_back(p.var.varid, std::vector<uint8_t>(head.begin(), head.end()));
    EXA_RETURN_IF_ERROR(pieces_released(ctx, p.var.varid, head, &a.released));
    EXA_RETURN_IF_ERROR(index_blocks(ctx.ncid, &a));
    // An old sidecar (or min/max record) of the variable is replaced.
    if (ctx.rank == 0) ::unlink(final_path.c_str());
  }
  IndexHeader written;
  EXA_RETURN_IF_ERROR(decode_header(head.data(), head.size(), &written));
  uint64_t puts_now = 0;
  EXA_RETURN_IF_ERROR(comm_puts(ctx, &puts_now));
  set_session(ctx.ncid, p.var.varid, stored_crc(head), written, puts_now);
  return Status::ok();
}

}  // namespace

Status index_create(const FileCtx& ctx, int varid, const char* spec) {
  BuildPlan p;
  Status st = plan_build(ctx, varid, spec, &p);
  EXA_RETURN_IF_ERROR(io::agree(ctx.comm, st));
  // A partitioned file this process may write keeps the index inside
  // (EXACDF_QUERY_SIDECAR=1: a sidecar all the same -- tests of sidecars
  // on partitioned files; the same on every rank, as every environment
  // setting of the query engine).
  const layer::IndexBlocksArgs where = index_blocks_info(ctx.ncid);
  const char* sidecar = std::getenv("EXACDF_QUERY_SIDECAR");
  const bool in_file = where.inside && where.writable && !(sidecar != nullptr && std::strcmp(sidecar, "1") == 0);
  // An update keeps the sidecar's bins and chunks and the chunks whose data
  // did not change: known from the stale marks when this process trusts
  // the sidecar, else from the chunks' data CRCs.
  LoadedIndex old;
  IndexState old_state;
  // A full build reads every value: the puts so far are in it.
  if (!p.spec.update) static_cast<void>(take_puts(ctx.ncid, varid));
  if (p.spec.update) {
    EXA_RETURN_IF_ERROR(load_index(ctx, p.var, &old, &old_state));
    if (old_state.matches && old.header.nrows > 0 && !old_state.minmax) {  // (a min/max record: a full build)
      p.chunk_rows = old.header.chunk_rows;
      p.nchunks = (p.nrows + p.chunk_rows - 1) / p.chunk_rows;
      p.spec.edges = old.header.edges;
      p.spec.bins = static_cast<uint32_t>(old.header.edges.size()) + 1;
    } else {
      old_state.matches = false;
    }
  }
  // Everything written so far reaches the file before the fingerprint.
  EXA_RETURN_IF_ERROR(io::agree(ctx.comm, nc(ncmpi_sync(ctx.ncid), "ncmpi_sync")));
  if (ctx.rank == 0 && !in_file) {
    st = fingerprint(ctx.path, &p.fp0);
    if (st.is_ok()) wait_past(p.fp0.mtime_ns);
  }
  EXA_RETURN_IF_ERROR(io::agree(ctx.comm, st));
  const uint64_t c_begin = p.nchunks * static_cast<uint64_t>(ctx.rank) / static_cast<uint64_t>(ctx.size);
  const uint64_t c_end = p.nchunks * static_cast<uint64_t>(ctx.rank + 1) / static_cast<uint64_t>(ctx.size);
  const uint64_t r0 = std::min(p.nrows, c_begin * p.chunk_rows), r1 = std::min(p.nrows, c_end * p.chunk_rows);
  std::vector<double> edges = p.spec.edges;
  if (!old_state.matches && edges.empty() && p.spec.bins > 1) {
    std::vector<double> sample;
    EXA_RETURN_IF_ERROR(sample_values(ctx, p.var, r0, r1, p.row, &sample));
    edges = equal_weight_edges(sample, p.spec.bins);
  }
  // What to do with each chunk of this rank; kept chunks' blocks are read
  // from the old sidecar (a block that fails its CRC is rebuilt).
  std::vector<BuiltChunk> built(c_end - c_begin);
  std::vector<ChunkPlan> plan(c_end - c_begin, ChunkPlan::kBuild);
  const IndexHeader& oh = old.header;
  for (uint64_t c = c_begin; c < c_end && old_state.matches; ++c) {
    const uint64_t k = c - c_begin;
    if (c >= oh.chunks.size() || oh.chunk_elems(c) != std::min(p.chunk_rows, p.nrows - c * p.chunk_rows) * p.row)
      continue;  // new rows, or the last chunk grew
    const ChunkEntry& e = oh.chunks[c];
    if (e.flags & kStale) continue;
    if (!old_state.usable && !(e.flags & kHasDataCrc)) continue;  // nothing tells whether it changed
    if (!old.load_block(c, &built[k].block).is_ok()) continue;
    built[k].entry = e;
    built[k].in_place = old.in_file && in_file;  // (from a sidecar: written into the file)
    plan[k] = old_state.usable ? ChunkPlan::kKeep : ChunkPlan::kKeepIfSameData;
  }
  std::vector<uint64_t> to_read;
  for (uint64_t k = 0; k < plan.size(); ++k)
    if (plan[k] != ChunkPlan::kKeep) to_read.push_back(c_begin + k);
  // One chunk per round on every rank.
  unsigned long long mine = to_read.size(), rounds = 0;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allreduce(&mine, &rounds, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, ctx.comm)));
  const int tsize = type_size(p.var.type);
  std::vector<unsigned char> buf(p.chunk_rows * p.row * static_cast<uint64_t>(tsize) + 8);
  Status first;
  uint64_t rebuilt = 0;
  for (uint64_t r = 0; r < rounds; ++r) {
    std::vector<MPI_Offset> s(p.var.dims.size(), 0), c(p.var.dims.size(), 0);
    if (r < mine && first.is_ok()) {
      const uint64_t row0 = to_read[r] * p.chunk_rows;
      s[0] = static_cast<MPI_Offset>(row0);
      c = p.var.dims;
      c[0] = static_cast<MPI_Offset>(std::min(p.chunk_rows, p.nrows - row0));
    }
    Status rs = get_vara_all(ctx.ncid, varid, p.var.type, s.data(), c.data(), buf.data());
    if (!rs.is_ok() && first.is_ok()) first = rs;
    if (!rs.is_ok() || r >= mine) continue;
    const uint64_t k = to_read[r] - c_begin;
    const uint64_t n = c.empty() ? 0 : static_cast<uint64_t>(c[0]) * (p.var.dims.size() > 1 ? p.row : 1);
    bool empty_rows = false;
    for (MPI_Offset x : c) empty_rows = empty_rows || x == 0;
    const uint64_t nv = empty_rows ? 0 : n;
    if (plan[k] == ChunkPlan::kKeepIfSameData && data_crc(p.var.type, buf.data(), nv) == built[k].entry.data_crc)
      continue;
    built[k] = build_chunk(p.var.type, buf.data(), nv, edges);
    ++rebuilt;
  }
  EXA_RETURN_IF_ERROR(io::agree(ctx.comm, first));
  EXA_RETURN_IF_ERROR(store_sidecar(ctx, p, edges, &built, in_file));
  unsigned long long counts[2] = {rebuilt, (c_end - c_begin) - rebuilt}, sums[2] = {0, 0};
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allreduce(counts, sums, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, ctx.comm)));
  set_rebuilt(ctx.ncid, varid, sums[0], sums[1]);
  note_indexed(ctx.ncid, varid, true);
  return Status::ok();
}

Status index_drop(const FileCtx& ctx, int varid) {
  VarShape v;
  Status st = var_shape(ctx.ncid, varid, &v);
  const layer::IndexBlocksArgs where = index_blocks_info(ctx.ncid);
  if (st.is_ok() && where.inside && where.writable) {
    layer::IndexBlocksArgs list;
    list.op = layer::IndexBlocksArgs::Op::kList;
    EXA_RETURN_IF_ERROR(index_blocks(ctx.ncid, &list));
    if (std::find(list.varids.begin(), list.varids.end(), varid) != list.varids.end()) {
      layer::IndexBlocksArgs a;
      a.op = layer::IndexBlocksArgs::Op::kCommit;
      a.headers.emplace_back(varid, std::vector<uint8_t>());
      EXA_RETURN_IF_ERROR(pieces_released(ctx, varid, {}, &a.released));
      EXA_RETURN_IF_ERROR(index_blocks(ctx.ncid, &a));
    }
  }
  if (st.is_ok() && ctx.rank == 0) {
    const std::string path = sidecar_path(ctx.path, varid);
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) st = {NC_EWRITE, "cannot remove " + path};
    ::unlink(journal_path(path).c_str());  // (none, usually)
  }
  drop_session(ctx.ncid, varid);  // on every rank (sessions are the same everywhere)
  note_indexed(ctx.ncid, varid, false);
  return io::agree(ctx.comm, st);
}

Status index_inq(const FileCtx& ctx, int varid, IndexInfo* info) {
  VarShape v;
  EXA_RETURN_IF_ERROR(io::agree(ctx.comm, var_shape(ctx.ncid, varid, &v)));
  LoadedIndex idx;
  IndexState state;
  EXA_RETURN_IF_ERROR(load_index(ctx, v, &idx, &state));
  *info = IndexInfo{};
  info->present = state.present;
  info->current = state.usable && !state.minmax;
  if (state.minmax && state.usable) {
    info->minmax_chunks = idx.header.chunks.size();
    info->minmax_bounded = idx.header.bounded_chunks();
  }
  if (state.matches && !state.minmax) {
    info->nbins = static_cast<int>(idx.header.nbins()) - 1;  // value bins (the NaN bin not counted)
    info->nchunks = idx.header.chunks.size();
    info->nstale = state.usable ? idx.header.stale_chunks() : idx.header.chunks.size();
  }
  long long bytes = 0;
  struct stat sb {};
  if (idx.in_file && state.matches) {
    bytes = static_cast<long long>(encode_header(idx.header).size());
    for (const ChunkEntry& e : idx.header.chunks) bytes += static_cast<long long>(e.length);
  } else if (ctx.rank == 0 && state.present && ::stat(sidecar_path(ctx.path, varid).c_str(), &sb) == 0) {
    bytes = sb.st_size;
  }
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Bcast(&bytes, 1, MPI_LONG_LONG, 0, ctx.comm)));
  info->bytes = bytes;
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_sessions.find({ctx.ncid, varid});
  if (it != g_sessions.end()) {
    info->last_rebuilt = it->second.last_rebuilt;
    info->last_kept = it->second.last_kept;
  }
  return Status::ok();
}

}  // namespace exa::query
