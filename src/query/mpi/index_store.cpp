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
#include <ctime>
#include <limits>
#include <map>
#include <mutex>
#include <type_traits>
#include <utility>

#include "io/collective.hpp"
#include "io/mpi_errors.hpp"
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

// Put counts of this process at the time an index was built here (see put_epoch.hpp).
std::mutex g_mutex;
std::map<std::pair<int, int>, uint64_t> g_built;

uint64_t built_count(int ncid, int varid) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_built.find({ncid, varid});
  return it == g_built.end() ? 0 : it->second;
}
void set_built_count(int ncid, int varid, uint64_t n) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_built[{ncid, varid}] = n;
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

// Rank 0: the sidecar's header bytes if it is current for v.
Status read_current_header(const FileCtx& ctx, const VarShape& v, std::vector<unsigned char>* bytes,
                           bool* current, bool* present) {
  *current = *present = false;
  const std::string path = sidecar_path(ctx.path, v.varid);
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return Status::ok();
  unsigned char prefix[kIndexPrefixBytes];
  uint64_t hlen = 0;
  Status st = read_all_at(fd, prefix, sizeof prefix, 0);
  if (st.is_ok()) st = header_length(prefix, sizeof prefix, &hlen);
  if (st.is_ok() && hlen > kMaxHeaderBytes) st = {NC_EINVAL, "index sidecar: header too large"};
  if (st.is_ok()) {
    bytes->resize(hlen);
    st = read_all_at(fd, bytes->data(), hlen, 0);
  }
  ::close(fd);
  IndexHeader h;
  if (st.is_ok()) st = decode_header(bytes->data(), bytes->size(), &h);
  if (!st.is_ok()) return Status::ok();  // damaged: not used
  *present = true;
  Fingerprint fp;
  if (!fingerprint(ctx.path, &fp).is_ok()) return Status::ok();
  uint64_t row = 1;
  for (size_t d = 1; d < v.dims.size(); ++d) row *= static_cast<uint64_t>(v.dims[d]);
  *current = fp.size == h.data_size && fp.mtime_ns == h.data_mtime_ns && fp.digest == h.data_digest &&
             h.varid == static_cast<uint32_t>(v.varid) && h.var_name == v.name &&
             h.var_type == static_cast<uint32_t>(v.type) && h.ndims == v.dims.size() &&
             !v.dims.empty() && h.nrows <= static_cast<uint64_t>(v.dims[0]) && h.row_elems == row;
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

struct BuiltChunk {
  std::vector<unsigned char> block;
  ChunkEntry entry;
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

Status LoadedIndex::load_block(uint64_t c, std::vector<unsigned char>* block) const {
  const ChunkEntry& e = header.chunks[c];
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
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return {NC_EREAD, "index sidecar vanished"};
  head->resize(n);
  Status st = read_all_at(fd, head->data(), n, e.offset);
  ::close(fd);
  return st;
}

Status load_index(const FileCtx& ctx, const VarShape& v, LoadedIndex* out, bool* usable) {
  std::vector<unsigned char> bytes;
  bool current = false, present = false;
  if (ctx.rank == 0) EXA_RETURN_IF_ERROR(read_current_header(ctx, v, &bytes, &current, &present));
  unsigned long long len = current ? bytes.size() : 0;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Bcast(&len, 1, MPI_UNSIGNED_LONG_LONG, 0, ctx.comm)));
  // This process's puts since the index was built (or opened) make it unusable.
  int clean = put_count(ctx.ncid, v.varid) == built_count(ctx.ncid, v.varid) ? 1 : 0, all_clean = 0;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allreduce(&clean, &all_clean, 1, MPI_INT, MPI_MIN, ctx.comm)));
  *usable = false;
  if (len == 0 || !all_clean) return Status::ok();
  bytes.resize(len);
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Bcast(bytes.data(), static_cast<int>(len), MPI_BYTE, 0, ctx.comm)));
  Status st = decode_header(bytes.data(), bytes.size(), &out->header);
  if (!st.is_ok()) return Status::ok();  // rank 0 decoded it: not reached
  out->path = sidecar_path(ctx.path, v.varid);
  *usable = true;
  return Status::ok();
}

Status index_create(const FileCtx& ctx, int varid, const char* spec) {
  BuildPlan p;
  Status st = plan_build(ctx, varid, spec, &p);
  EXA_RETURN_IF_ERROR(io::agree(ctx.comm, st));
  // Everything written so far reaches the file before the fingerprint.
  EXA_RETURN_IF_ERROR(io::agree(ctx.comm, nc(ncmpi_sync(ctx.ncid), "ncmpi_sync")));
  Fingerprint fp0;
  if (ctx.rank == 0) {
    st = fingerprint(ctx.path, &fp0);
    if (st.is_ok()) wait_past(fp0.mtime_ns);
  }
  EXA_RETURN_IF_ERROR(io::agree(ctx.comm, st));
  const uint64_t c_begin = p.nchunks * static_cast<uint64_t>(ctx.rank) / static_cast<uint64_t>(ctx.size);
  const uint64_t c_end = p.nchunks * static_cast<uint64_t>(ctx.rank + 1) / static_cast<uint64_t>(ctx.size);
  const uint64_t r0 = std::min(p.nrows, c_begin * p.chunk_rows), r1 = std::min(p.nrows, c_end * p.chunk_rows);
  std::vector<double> edges = p.spec.edges;
  if (edges.empty() && p.spec.bins > 1) {
    std::vector<double> sample;
    EXA_RETURN_IF_ERROR(sample_values(ctx, p.var, r0, r1, p.row, &sample));
    edges = equal_weight_edges(sample, p.spec.bins);
  }
  // One chunk per round on every rank.
  unsigned long long mine = c_end - c_begin, rounds = 0;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allreduce(&mine, &rounds, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, ctx.comm)));
  const int tsize = type_size(p.var.type);
  std::vector<unsigned char> buf(p.chunk_rows * p.row * static_cast<uint64_t>(tsize) + 8);
  std::vector<BuiltChunk> built;
  Status first;
  for (uint64_t r = 0; r < rounds; ++r) {
    std::vector<MPI_Offset> s(p.var.dims.size(), 0), c(p.var.dims.size(), 0);
    if (r < mine && first.is_ok()) {
      const uint64_t row0 = (c_begin + r) * p.chunk_rows;
      s[0] = static_cast<MPI_Offset>(row0);
      c = p.var.dims;
      c[0] = static_cast<MPI_Offset>(std::min(p.chunk_rows, p.nrows - row0));
    }
    Status rs = get_vara_all(ctx.ncid, varid, p.var.type, s.data(), c.data(), buf.data());
    if (!rs.is_ok() && first.is_ok()) first = rs;
    if (rs.is_ok() && r < mine) {
      const uint64_t n = c.empty() ? 0 : static_cast<uint64_t>(c[0]) * (p.var.dims.size() > 1 ? p.row : 1);
      bool empty_rows = false;
      for (MPI_Offset x : c) empty_rows = empty_rows || x == 0;
      built.push_back(build_chunk(p.var.type, buf.data(), empty_rows ? 0 : n, edges));
    }
  }
  EXA_RETURN_IF_ERROR(io::agree(ctx.comm, first));
  // Where the blocks go: after the header, in chunk order.
  IndexHeader h;
  h.varid = static_cast<uint32_t>(varid);
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
  for (const BuiltChunk& b : built) my_bytes += b.block.size();
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Exscan(&my_bytes, &before, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, ctx.comm)));
  if (ctx.rank == 0) before = 0;
  const std::string final_path = sidecar_path(ctx.path, varid);
  const std::string tmp = final_path + ".tmp";
  EXA_RETURN_IF_ERROR(write_blocks(ctx, tmp, header_len + before, &built));
  // The directory to rank 0, which writes the header and renames.
  std::vector<unsigned long long> entries;
  for (const BuiltChunk& b : built) {
    double mn = b.entry.min, mx = b.entry.max;
    unsigned long long mnb, mxb;
    std::memcpy(&mnb, &mn, 8);
    std::memcpy(&mxb, &mx, 8);
    entries.insert(entries.end(), {b.entry.offset, b.entry.length, mnb, mxb,
                                   (static_cast<unsigned long long>(b.entry.flags) << 32) | b.entry.crc});
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
  if (ctx.rank == 0) {
    st = [&]() -> Status {
      for (uint64_t c = 0; c < p.nchunks; ++c) {
        ChunkEntry& e = h.chunks[c];
        const unsigned long long* x = all.data() + 5 * c;
        e.offset = x[0];
        e.length = x[1];
        std::memcpy(&e.min, &x[2], 8);
        std::memcpy(&e.max, &x[3], 8);
        e.crc = static_cast<uint32_t>(x[4]);
        e.flags = static_cast<uint32_t>(x[4] >> 32);
      }
      Fingerprint fp1;
      EXA_RETURN_IF_ERROR(fingerprint(ctx.path, &fp1));
      if (fp1.size != fp0.size || fp1.mtime_ns != fp0.mtime_ns || fp1.digest != fp0.digest)
        return {NC_EINVAL, "the data file changed while its index was built"};
      h.data_size = fp0.size;
      h.data_mtime_ns = fp0.mtime_ns;
      h.data_digest = fp0.digest;
      const std::vector<unsigned char> head = encode_header(h);
      int fd = ::open(tmp.c_str(), O_WRONLY);
      if (fd < 0) return {NC_EFILE, "cannot open the index sidecar " + tmp};
      // No fsync: a sidecar torn by a crash fails its checksums and is not used.
      Status ws = write_all_at(fd, head.data(), head.size(), 0);
      ::close(fd);
      EXA_RETURN_IF_ERROR(ws);
      if (std::rename(tmp.c_str(), final_path.c_str()) != 0) return {NC_EWRITE, "cannot rename the index sidecar"};
      return Status::ok();
    }();
    if (!st.is_ok()) ::unlink(tmp.c_str());
  }
  EXA_RETURN_IF_ERROR(io::agree(ctx.comm, st));
  set_built_count(ctx.ncid, varid, put_count(ctx.ncid, varid));
  return Status::ok();
}

Status index_drop(const FileCtx& ctx, int varid) {
  VarShape v;
  Status st = var_shape(ctx.ncid, varid, &v);
  if (st.is_ok() && ctx.rank == 0) {
    const std::string path = sidecar_path(ctx.path, varid);
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) st = {NC_EWRITE, "cannot remove " + path};
  }
  return io::agree(ctx.comm, st);
}

Status index_inq(const FileCtx& ctx, int varid, int* present, int* current, int* nbins,
                 MPI_Offset* bytes) {
  VarShape v;
  EXA_RETURN_IF_ERROR(io::agree(ctx.comm, var_shape(ctx.ncid, varid, &v)));
  long long info[4] = {0, 0, 0, 0};  // present, current, bins, bytes
  if (ctx.rank == 0) {
    std::vector<unsigned char> head;
    bool cur = false, pres = false;
    EXA_RETURN_IF_ERROR(read_current_header(ctx, v, &head, &cur, &pres));
    IndexHeader h;
    if (pres && decode_header(head.data(), head.size(), &h).is_ok()) {
      struct stat sb {};
      info[0] = 1;
      info[1] = cur ? 1 : 0;
      info[2] = h.nbins() - 1;  // value bins (the NaN bin not counted)
      if (::stat(sidecar_path(ctx.path, varid).c_str(), &sb) == 0) info[3] = sb.st_size;
    }
  }
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Bcast(info, 4, MPI_LONG_LONG, 0, ctx.comm)));
  if (put_count(ctx.ncid, varid) != built_count(ctx.ncid, varid)) info[1] = 0;
  int cur = static_cast<int>(info[1]), all_cur = 0;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allreduce(&cur, &all_cur, 1, MPI_INT, MPI_MIN, ctx.comm)));
  if (present) *present = static_cast<int>(info[0]);
  if (current) *current = all_cur;
  if (nbins) *nbins = static_cast<int>(info[2]);
  if (bytes) *bytes = info[3];
  return Status::ok();
}

}  // namespace exa::query
