// Native connector: file-level operations (create, open, enddef, redef,
// sync, close, abort, fill mode).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstring>

#include "exacdf.h"
#include "io/collective.hpp"
#include "io/data_mover.hpp"
#include "io/fill.hpp"
#include "io/header_io.hpp"
#include "io/mpi_errors.hpp"
#include "io/partitioned_io.hpp"
#include "io/reopen_space.hpp"
#include "layer/data_checks.hpp"
#include "layer/native_connector.hpp"
#include "layer/native_internal.hpp"
#include "layer/native_plan.hpp"

namespace exa::layer {

namespace {

std::atomic<int> g_default_format{NC_FORMAT_CLASSIC};

// The mode bits PnetCDF 1.12.3's header defines and exacdf's own: any other
// bit is a mistake (PnetCDF ignores it; exacdf says so).
constexpr int kKnownModeBits = NC_WRITE | NC_NOCLOBBER | NC_DISKLESS | NC_MMAP | NC_64BIT_DATA |
                               NC_UDF0 | NC_UDF1 | NC_CLASSIC_MODEL | NC_64BIT_OFFSET | NC_LOCK |
                               NC_SHARE | NC_NETCDF4 | NC_MPIIO | NC_PERSIST | NC_INMEMORY | NC_BP |
                               NC_NOATTCREORD | NC_32BIT | EXA_INDEP_DEFINE | EXA_FORMAT_PARTITIONED |
                               EXA_SWMR_WRITE | EXA_SWMR_READ;

// The checks of a create mode (rank 0's, so every rank gives the same answer).
Status check_cmode(int cmode) {
  if (cmode & NC_NETCDF4) return {NC_ENOTBUILT, "netCDF-4 files are not supported"};
  if ((cmode & NC_64BIT_OFFSET) && (cmode & NC_64BIT_DATA))
    return {NC_EINVAL_CMODE, "NC_64BIT_OFFSET and NC_64BIT_DATA together"};
  if ((cmode & EXA_FORMAT_PARTITIONED) && (cmode & (NC_64BIT_OFFSET | NC_64BIT_DATA)))
    return {NC_EINVAL_CMODE, "EXA_FORMAT_PARTITIONED with a classic format flag"};
  if (cmode & (NC_DISKLESS | NC_MMAP)) return {NC_EINVAL_CMODE, "NC_DISKLESS/NC_MMAP are not supported"};
  if (cmode & ~kKnownModeBits) return {NC_EINVAL_CMODE, "unknown create mode bits"};
  if (cmode & EXA_SWMR_READ) return {NC_EINVAL_CMODE, "EXA_SWMR_READ is an open mode (a reader)"};
  return Status::ok();
}

// The checks of an open mode. NC_NETCDF4 and the format flags are ignored
// (the file tells its format), as PnetCDF does.
Status check_omode(int omode) {
  if (omode & (NC_DISKLESS | NC_MMAP)) return {NC_EINVAL_OMODE, "NC_DISKLESS/NC_MMAP are not supported"};
  if (omode & ~kKnownModeBits) return {NC_EINVAL_OMODE, "unknown open mode bits"};
  if ((omode & EXA_SWMR_WRITE) && !(omode & NC_WRITE))
    return {NC_EINVAL_OMODE, "EXA_SWMR_WRITE without NC_WRITE"};
  if ((omode & EXA_SWMR_READ) && (omode & (NC_WRITE | EXA_SWMR_WRITE)))
    return {NC_EINVAL_OMODE, "EXA_SWMR_READ opens read-only"};
  return Status::ok();
}

Status version_for_cmode(int cmode, format::Version* version) {
  EXA_RETURN_IF_ERROR(check_cmode(cmode));
  if (cmode & NC_64BIT_DATA) {
    *version = format::Version::kCdf5;
  } else if (cmode & NC_64BIT_OFFSET) {
    *version = format::Version::kCdf2;
  } else {
    int def = g_default_format.load();
    *version = def == NC_FORMAT_CDF5 || def == EXA_FORMAT_PARTITIONED_V1 ? format::Version::kCdf5
             : def == NC_FORMAT_CDF2 ? format::Version::kCdf2 : format::Version::kCdf1;
  }
  return Status::ok();
}

}  // namespace

std::vector<io::FillRegion> fill_regions_for_new_vars(const NativeFile& nf, int first_new) {
  std::vector<io::FillRegion> regions;
  const auto& h = nf.ds.header();
  for (int id = first_new; id < nf.ds.nvars(); ++id) {
    if (nf.ds.var_no_fill(id)) continue;
    const auto& var = h.vars[static_cast<size_t>(id)];
    if (nf.partitioned && var.begin == 0) continue;  // compact: filled in its block
    int64_t bytes = format::record_elements(h, var) * format::external_size(var.type);
    if (!nf.ds.is_record_var(id)) {
      regions.push_back({var.begin, bytes, nf.ds.fill_value_external(id)});
      continue;
    }
    io::VarGeometry place;
    if (!place_of_var(nf.ds, id, &place).is_ok()) continue;  // a layout this writer just planned: never
    const std::vector<uint8_t> fill = nf.ds.fill_value_external(id);
    const size_t first = regions.size();
    for (int64_t r = 0; r < nf.ds.numrecs(); ++r) {
      const int64_t at = format::record_offset(place.pieces, var.begin, nf.ds.layout().recsize, r);
      // Records back to back (a new variable's old records in their section): one region.
      if (regions.size() > first && regions.back().offset + regions.back().nbytes == at)
        regions.back().nbytes += bytes;
      else
        regions.push_back({at, bytes, fill});
    }
  }
  return regions;
}

Status open_indep_handle(NativeFile& nf) {
  if (nf.indep.handle() != MPI_FILE_NULL) return Status::ok();
  MPI_Info mpi_info = MPI_INFO_NULL;
  EXA_RETURN_IF_ERROR(io::to_mpi_info(nf.hints, &mpi_info));
  Status st = nf.indep.open(MPI_COMM_SELF, nf.path, nf.file.writable(), mpi_info);
  Status freed = io::free_info(&mpi_info);
  return st.is_ok() ? freed : st;
}

void attach_index(NativeFile& nf, io::OpenedIndex opened) {
  namespace pf = format::partitioned;
  NativeFile* file = &nf;
  nf.superblock = opened.sb;
  nf.opened_below_damage = opened.newer_damaged ? opened.sb.generation : 0;
  nf.damage_passed_over = opened.newer_problem;
  nf.record_blocks.reset();
  nf.index = std::make_shared<pf::PagedIndex>(opened.sb, std::move(opened.head), opened.file_size,
                                              [file](uint64_t offset, uint64_t size, std::vector<uint8_t>* bytes) {
                                                EXA_RETURN_IF_ERROR(open_indep_handle(*file));
                                                return io::read_extent(file->indep, {offset, size}, bytes);
                                              });
  nf.index->supply_decoded_page(0, std::move(opened.page0));
}

model::Dataset::BlockReader block_reader(NativeFile& nf) {
  NativeFile* file = &nf;
  return [file](const format::partitioned::BlockEntry& e, format::partitioned::Block* block) {
    const bool cached = file->swmr == NativeFile::Swmr::kRead;
    const auto key = std::make_tuple(e.offset, e.size, e.crc);
    if (cached) {
      if (auto it = file->block_cache.find(key); it != file->block_cache.end()) {
        it->second.used_in = file->refreshes;
        *block = it->second.block;  // the same bytes: checked when first read
        return Status::ok();
      }
    }
    EXA_RETURN_IF_ERROR(check_view_age(*file));  // its space may have been reused since
    EXA_RETURN_IF_ERROR(open_indep_handle(*file));
    EXA_RETURN_IF_ERROR(io::read_block(file->indep, file->superblock, e, block));
    if (cached) file->block_cache[key] = {*block, file->refreshes};
    return Status::ok();
  };
}

void set_partitioned_layout(NativeFile& nf) {
  format::Layout layout;
  layout.nvars = nf.ds.nvars();
  layout.begin_rec = int64_t(nf.superblock.record_begin);
  layout.recsize = int64_t(nf.superblock.record_size);
  if (nf.superblock.record_sections && nf.index) layout.sections = nf.index->sections();
  layout.header_size = int64_t(nf.superblock.index_offset + nf.superblock.index_size);
  layout.header_extent = layout.header_size;
  nf.ds.set_layout(layout);
  note_committed_end(nf);
}

void note_committed_end(NativeFile& nf) {
  nf.file.set_committed_end(int64_t(nf.superblock.file_end));
  nf.indep.set_committed_end(int64_t(nf.superblock.file_end));
}

int default_create_format() { return g_default_format.load(); }
void set_default_create_format(int format) { g_default_format.store(format); }

namespace {

// The SWMR role of a file being created or opened (the mode flag or the
// hint exa_swmr; the same on every rank: rank 0's mode, agreed hints).
Status adopt_swmr(NativeFile& nf, int mode) {
  const bool write = (mode & EXA_SWMR_WRITE) != 0 || nf.hints.swmr == "write";
  const bool read = (mode & EXA_SWMR_READ) != 0 || nf.hints.swmr == "read";
  if (write && read) return {NC_EINVAL, "exa_swmr: a writer and a reader at once"};
  if (read && nf.file.writable()) return {NC_EINVAL, "exa_swmr=read opens read-only"};
  if (write && !nf.file.writable()) return {NC_EINVAL, "exa_swmr=write needs NC_WRITE"};
  nf.swmr = write ? NativeFile::Swmr::kWrite : read ? NativeFile::Swmr::kRead : NativeFile::Swmr::kOff;
  nf.file.set_heartbeat(write);
  if (write) nf.reusable.set_bound(nf.hints.swmr_refresh_bound);
  return Status::ok();
}

// Collective. An SWMR writer with a refresh bound that opens a partitioned
// file: the space neither the opened generation nor its predecessor
// references is released now, as if by the generation before the opened
// one (so the next commit, which overwrites the predecessor's slot, may
// write it) at this moment (so only 2Δt from now, whenever it was really
// released: a reader may still view an older generation). Rank 0 finds it
// (io::unreferenced_space) and broadcasts it. Reuse is an optimization:
// when anything is in doubt the list stays empty, and the open goes on.
void rebuild_reusable(NativeFile& nf) {
  namespace pf = format::partitioned;
  if (nf.swmr != NativeFile::Swmr::kWrite || !nf.partitioned || !nf.reusable.enabled()) return;
  // Index blocks' chunk pieces are referenced by their header blocks, not
  // by the index table: space that looks unreferenced may hold them.
  if (nf.superblock.index_blocks) return;
  // count (-1: none), rank 0's clock, then (offset, size) pairs
  std::vector<int64_t> flat(2, -1);
  double now = 0;
  std::vector<pf::Span> spans;
  Status st;
  if (nf.file.rank() == 0) {
    st = open_indep_handle(nf);
    if (st.is_ok()) st = io::unreferenced_space(nf.indep, nf.superblock, &spans);
    if (st.is_ok() && spans.size() <= size_t(1) << 24) {  // (one broadcast of them)
      now = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
      flat[0] = int64_t(spans.size());
      std::memcpy(&flat[1], &now, sizeof now);
      for (const pf::Span& span : spans) flat.insert(flat.end(), {span.offset, span.size});
    }
  }
  // A failed broadcast only costs the reuse, on every rank alike.
  if (!io::agree(nf.comm(), EXA_MPI(MPI_Bcast(flat.data(), 2, MPI_INT64_T, 0, nf.comm()))).is_ok()) return;
  if (flat[0] <= 0) return;  // nothing free, or in doubt: only what this writer's commits release
  flat.resize(size_t(2 + 2 * flat[0]));
  if (!io::agree(nf.comm(), EXA_MPI(MPI_Bcast(flat.data() + 2, int(2 * flat[0]), MPI_INT64_T, 0, nf.comm())))
           .is_ok())
    return;
  std::memcpy(&now, &flat[1], sizeof now);
  const uint64_t gen = nf.superblock.generation > 0 ? nf.superblock.generation - 1 : 0;
  for (int64_t k = 0; k < flat[0]; ++k) nf.reusable.release(flat[size_t(2 + 2 * k)], flat[size_t(3 + 2 * k)], gen, now);
}

}  // namespace

Status NativeConnector::create(MPI_Comm comm, const std::string& path, int cmode, MPI_Info info,
                               std::unique_ptr<FileState>* out) {
  auto nf = std::make_unique<NativeFile>();
  // The mode is rank 0's on every rank (the stack's agreement, as PnetCDF's
  // dispatcher): its checks give the same answer everywhere, no agreement.
  format::Version version = format::Version::kCdf1;
  EXA_RETURN_IF_ERROR(version_for_cmode(cmode, &version));
  // The hints were read once by the stack's agreement, which failed on every
  // rank if they were bad on one; what fails here now travels in the open's.
  Status st = io::gather_hints(info, &nf->hints);
  MPI_Info mpi_info = MPI_INFO_NULL;
  if (st.is_ok()) st = io::to_mpi_info(nf->hints, &mpi_info);
  st = nf->file.create(comm, path, (cmode & NC_NOCLOBBER) != 0, mpi_info, st);
  // (After a collective create, a rank-local failure to free is not a reason to fail.)
  io::free_info(&mpi_info).set_aside("the hints' info object leaks; the file is fine");
  EXA_RETURN_IF_ERROR(st);
  io::read_striping(nf->file.handle(), &nf->hints);
  nf->ds = model::Dataset(version);
  nf->path = path;
  nf->mode = cmode | NC_WRITE;
  nf->safe_mode = safe_mode_requested();
  nf->independent_define = (cmode & EXA_INDEP_DEFINE) != 0 || nf->hints.independent_define;
  nf->partitioned = (cmode & EXA_FORMAT_PARTITIONED) != 0 || nf->hints.partitioned ||
                    (!(cmode & (NC_64BIT_OFFSET | NC_64BIT_DATA)) &&
                     g_default_format.load() == EXA_FORMAT_PARTITIONED_V1);
  if (nf->partitioned) {
    nf->ds = model::Dataset(format::Version::kCdf5);  // the CDF-5 types
    nf->ds.set_partitioned(true);
  }
  EXA_RETURN_IF_ERROR(adopt_swmr(*nf, cmode));
  nf->define_mode = true;
  nf->never_ended = true;
  *out = std::move(nf);
  return Status::ok();
}

Status NativeConnector::open(MPI_Comm comm, const std::string& path, int omode, MPI_Info info,
                             std::unique_ptr<FileState>* out) {
  auto nf = std::make_unique<NativeFile>();
  EXA_RETURN_IF_ERROR(check_omode(omode));  // rank 0's mode (as at create)
  Status st = io::gather_hints(info, &nf->hints);
  MPI_Info mpi_info = MPI_INFO_NULL;
  if (st.is_ok()) st = io::to_mpi_info(nf->hints, &mpi_info);
  // Rank 0 reads what the file is -- partitioned (its superblock slots) or
  // the classic header's bytes -- before the open's agreement, which carries
  // the outcome, the header's size (0: partitioned) and, when it is small,
  // the header itself to every rank.
  bool partitioned = false;
  std::vector<uint8_t> slots, header;  // what rank 0 read
  const int64_t chunk = nf->hints.header_read_chunk;
  auto first_look = [&](io::MpiFile& file, io::MpiFile::RootLook* look) -> Status {
    EXA_RETURN_IF_ERROR(io::probe_partitioned_on_root(file, &partitioned, &slots));
    if (!partitioned) EXA_RETURN_IF_ERROR(io::read_header_on_root(file, chunk, &header));
    look->fact = int64_t(header.size());
    if (header.size() <= io::MpiFile::kRootPayload) look->payload = header;
    return Status::ok();
  };
  io::MpiFile::RootLook look;
  st = nf->file.open(comm, path, (omode & NC_WRITE) != 0, mpi_info, st, first_look, &look);
  // (After a collective open, a rank-local failure to free is not a reason to fail.)
  io::free_info(&mpi_info).set_aside("the hints' info object leaks; the file is fine");
  EXA_RETURN_IF_ERROR(st);
  const int64_t header_size = look.fact;
  partitioned = header_size == 0;
  if (partitioned) {
    // The superblock, the index table's head and first page, and the root
    // block now; other pages and blocks when used.
    format::partitioned::Block root;
    io::OpenedIndex opened;
    st = io::read_partitioned_root(nf->file, std::move(slots), &opened, &root);
    if (st.is_ok()) {
      attach_index(*nf, std::move(opened));
      st = nf->ds.open_lazily(nf->index, std::move(root), block_reader(*nf));
    }
    if (!st.is_ok()) {
      nf->file.close().set_aside("open failed: the index's error is reported");
      return st;
    }
    set_partitioned_layout(*nf);
    nf->partitioned = true;
  } else {
    // A small header came with the agreement; a larger one is broadcast now.
    format::DecodeResult decoded = int64_t(look.payload.size()) == header_size
                                       ? format::decode(look.payload)
                                       : io::share_header(nf->file, header_size, std::move(header));
    if (!decoded.status.is_ok()) {
      nf->file.close().set_aside("open failed: the header's error is reported");
      return decoded.status;
    }
    nf->ds = model::Dataset(std::move(decoded.header));
    nf->ds.adopt_layout_from_header();
  }
  io::read_striping(nf->file.handle(), &nf->hints);
  if (!nf->ds.lazy())  // (a lazy dataset has no fill in data mode)
    for (int id = 0; id < nf->ds.nvars(); ++id) nf->ds.set_var_no_fill(id, true);
  nf->path = path;
  nf->mode = omode;
  nf->safe_mode = safe_mode_requested();
  nf->independent_define = (omode & EXA_INDEP_DEFINE) != 0 || nf->hints.independent_define;
  EXA_RETURN_IF_ERROR(adopt_swmr(*nf, omode));
  rebuild_reusable(*nf);
  if (nf->partitioned) {
    st = adopt_index_blocks(*nf);
    if (!st.is_ok()) {
      nf->indep.close().set_aside("open failed: the index blocks' error is reported");
      nf->file.close().set_aside("open failed: the index blocks' error is reported");
      return st;
    }
  }
  nf->refreshed_at = std::chrono::steady_clock::now();
  *out = std::move(nf);
  return Status::ok();
}

namespace {

// The distinct non-negative values among `values`, sorted.
std::vector<size_t> distinct(const std::vector<int64_t>& values) {
  std::vector<size_t> out;
  for (int64_t v : values)
    if (v >= 0) out.push_back(size_t(v));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// The distinct non-negative values the ranks give, sorted (the same list on every rank).
Status union_of(MPI_Comm comm, int64_t mine, std::vector<size_t>* out) {
  int p = 1;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_size(comm, &p)));
  std::vector<int64_t> all(size_t(p), -1);
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allgather(&mine, 1, MPI_INT64_T, all.data(), 1, MPI_INT64_T, comm)));
  *out = distinct(all);
  return Status::ok();
}

// The minimum over the ranks of each flag (1: this rank has it), in place.
Status on_every_rank(MPI_Comm comm, std::vector<uint8_t>* flags) {
  if (flags->empty()) return Status::ok();
  return EXA_MPI(
      MPI_Allreduce(MPI_IN_PLACE, flags->data(), int(flags->size()), MPI_UINT8_T, MPI_MIN, comm));
}

// Of these pages (the same list on every rank), those some rank has not
// loaded: read once each and shared.
Status share_pages(NativeFile& nf, const std::vector<size_t>& pages) {
  format::partitioned::PagedIndex& index = *nf.index;
  std::vector<uint8_t> loaded(pages.size());
  for (size_t i = 0; i < pages.size(); ++i) loaded[i] = index.page_loaded(pages[i]) ? 1 : 0;
  EXA_RETURN_IF_ERROR(on_every_rank(nf.comm(), &loaded));
  std::vector<size_t> need;
  std::vector<io::Extent> extents;
  for (size_t i = 0; i < pages.size(); ++i) {
    if (loaded[i]) continue;
    need.push_back(pages[i]);
    extents.emplace_back();
    index.page_extent(pages[i], &extents.back().offset, &extents.back().size);
  }
  return io::share_extents(nf.file, extents, [&](size_t k, std::span<const uint8_t> bytes) {
    return index.supply_page(need[k], bytes);
  });
}

// Blocks (the same list on every rank, their pages loaded everywhere) read
// once each and given to the dataset.
Status share_blocks(NativeFile& nf, const std::vector<size_t>& blocks, bool fail_on_bad_block) {
  std::vector<io::Extent> extents;
  Status st;
  for (size_t b : blocks) {
    const format::partitioned::BlockEntry* e = nullptr;
    if (st.is_ok()) st = nf.index->entry(b, &e);
    extents.push_back(st.is_ok() ? io::Extent{e->offset, e->size} : io::Extent{});
  }
  EXA_RETURN_IF_ERROR(io::agree(nf.comm(), st));
  return io::share_extents(nf.file, extents, [&](size_t k, std::span<const uint8_t> bytes) {
    Status applied = nf.ds.supply_block(blocks[k], bytes);
    // (Unless asked to fail, a bad block fails its variables later, on the ranks using them.)
    return fail_on_bad_block ? applied : Status::ok();
  });
}

}  // namespace

Status load_index_pages(NativeFile& nf, const std::vector<size_t>& pages) { return share_pages(nf, pages); }

Status load_whole_index(NativeFile& nf, format::partitioned::IndexTable* out) {
  std::vector<size_t> pages(nf.index->npages());
  for (size_t k = 0; k < pages.size(); ++k) pages[k] = k;
  EXA_RETURN_IF_ERROR(share_pages(nf, pages));
  return io::agree(nf.comm(), nf.index->table(out));  // every page is loaded: no I/O
}

Status load_every_block(NativeFile& nf) {
  if (!nf.ds.lazy()) return Status::ok();
  format::partitioned::IndexTable table;
  EXA_RETURN_IF_ERROR(load_whole_index(nf, &table));
  std::vector<uint8_t> loaded = nf.ds.loaded_blocks();
  EXA_RETURN_IF_ERROR(on_every_rank(nf.comm(), &loaded));
  std::vector<size_t> need;
  for (size_t b = 0; b < loaded.size(); ++b)
    if (!loaded[b]) need.push_back(b);
  return share_blocks(nf, need, true);
}

Status share_blocks_of_var(NativeFile& nf, int varid) {
  if (!nf.ds.lazy() || nf.define_mode) return Status::ok();  // the same on every rank
  // One allgather of each rank's index page and missing block. A rank whose
  // page is not loaded yet cannot name its block (-2): it does in a second
  // round, once the pages are shared.
  int64_t mine[2] = {-1, -1};
  if (varid >= 0 && varid < nf.ds.nvars()) {
    const size_t k = nf.index->page_of_var(varid);
    mine[0] = int64_t(k);
    mine[1] = nf.index->page_loaded(k) ? nf.ds.unloaded_block_of_var(varid) : -2;
  }
  std::vector<int64_t> all(2 * size_t(nf.file.nprocs()));
  EXA_RETURN_IF_ERROR(
      EXA_MPI(MPI_Allgather(mine, 2, MPI_INT64_T, all.data(), 2, MPI_INT64_T, nf.comm())));
  std::vector<int64_t> pages, blocks;
  bool unknown = false;
  for (size_t i = 0; i < all.size(); i += 2) {
    pages.push_back(all[i]);
    blocks.push_back(all[i + 1]);
    unknown = unknown || all[i + 1] == -2;
  }
  EXA_RETURN_IF_ERROR(share_pages(nf, distinct(pages)));
  if (unknown) {
    std::vector<size_t> wanted;
    EXA_RETURN_IF_ERROR(union_of(nf.comm(), nf.ds.unloaded_block_of_var(varid), &wanted));
    return share_blocks(nf, wanted, false);
  }
  return share_blocks(nf, distinct(blocks), false);
}

// This rank's written bytes to storage, then every rank's outcome agreed
// (the barrier): one MPI_File_sync per rank, as PnetCDF's ncmpi_sync (sync,
// barrier), plus the independent handle's (opened on MPI_COMM_SELF) when it
// wrote since its last sync. MpiFile::sync_all's second sync after the
// barrier (MPI-IO's rule for reading another rank's bytes through this
// handle) flushes nothing more: every rank's bytes are on storage already.
Status sync_written(NativeFile& nf) {
  Status st;
  if (nf.indep.handle() != MPI_FILE_NULL && nf.indep.writable() && nf.indep.has_unsynced_writes())
    st = nf.indep.sync();
  Status lanes = sync_lanes(nf);
  if (st.is_ok()) st = lanes;
  Status synced = nf.file.sync();
  return io::agree(nf.comm(), st.is_ok() ? synced : st);
}

namespace {

// The classic numrecs as a commit: the records' bytes on disk first (every
// rank), then the field, synced.
// An SWMR writer's file reaches the records it is about to count (a hole
// where no variable was written), so a reader can check a numrecs against
// the file's size. After a sync: the size seen is every rank's.
Status reach_records_end(NativeFile& nf, int64_t numrecs) {
  const format::Layout& layout = nf.ds.layout();
  const int64_t end = layout.begin_rec + numrecs * layout.recsize;
  int64_t grow = 0;
  Status st;
  if (nf.file.rank() == 0) {
    int64_t size = 0;
    st = nf.file.size(&size);
    grow = st.is_ok() && size < end ? 1 : 0;
  }
  EXA_RETURN_IF_ERROR(io::agree(nf.comm(), st));
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Bcast(&grow, 1, MPI_INT64_T, 0, nf.comm())));
  if (!grow) return Status::ok();
  io::note_io_event();
  EXA_RETURN_IF_ERROR(io::agree(
      nf.comm(), io::from_mpi(MPI_File_set_size(nf.file.handle(), end), io::MpiOp::kWrite, "MPI_File_set_size")));
  return io::agree(nf.comm(), nf.file.sync_all());
}

Status write_numrecs_ordered(NativeFile& nf, int64_t numrecs, bool agreed, const Status& carried) {
  EXA_RETURN_IF_ERROR(agreed ? io::agree(nf.comm(), carried) : carried);
  EXA_RETURN_IF_ERROR(sync_written(nf));
  if (nf.swmr == NativeFile::Swmr::kWrite) EXA_RETURN_IF_ERROR(reach_records_end(nf, numrecs));
  EXA_RETURN_IF_ERROR(nf.file.use_byte_view());  // every rank is here: a collective point
  if (nf.file.rank() == 0) io::note_commit_point();
  EXA_RETURN_IF_ERROR(io::write_numrecs(nf.comm(), nf.file.rank() == 0 ? &nf.file : nullptr, nf.ds.version(),
                                        numrecs, true));
  return sync_written(nf);
}

// Rank 0's handle for the numrecs field: the collective one while its view
// is bytes, else the independent one (opened on first use), so a record put
// needs no collective set_view after its data (PnetCDF keeps the header in
// rank 0's view instead).
Status numrecs_writer(NativeFile& nf, io::MpiFile** writer) {
  *writer = nullptr;
  if (nf.file.rank() != 0) return Status::ok();
  if (nf.file.has_byte_view()) {
    *writer = &nf.file;
    return Status::ok();
  }
  EXA_RETURN_IF_ERROR(open_indep_handle(nf));
  *writer = &nf.indep;
  return Status::ok();
}

}  // namespace

Status write_numrecs(NativeFile& nf, int64_t numrecs, bool agreed, const Status& carried, bool ordered) {
  if (!nf.partitioned) {
    if (ordered || nf.swmr == NativeFile::Swmr::kWrite) return write_numrecs_ordered(nf, numrecs, agreed, carried);
    io::MpiFile* writer = nullptr;
    Status opened = numrecs_writer(nf, &writer);
    if (!opened.is_ok()) return agreed ? io::agree(nf.comm(), opened) : opened;
    return io::write_numrecs(nf.comm(), writer, nf.ds.version(), numrecs, agreed, carried);
  }
  // A failed write of any rank: no new generation counts records that may not be there
  // (!agreed: `carried` is already the same on every rank).
  EXA_RETURN_IF_ERROR(agreed ? io::agree(nf.comm(), carried) : carried);
  // A superblock of the next generation in the other slot: the current one
  // stays valid until the new one is written.
  auto sb = nf.superblock;
  sb.generation += 1;
  sb.numrecs = uint64_t(numrecs);
  int64_t records_end = 0;
  if (!format::current_records_end(nf.ds.layout().sections, int64_t(sb.record_begin), int64_t(sb.record_size),
                                   numrecs, &records_end))
    return {NC_EVARSIZE, "records beyond 2^63 bytes"};
  sb.file_end = std::max(sb.file_end, uint64_t(records_end));
  // What independent puts wrote through this rank's own handle is synced
  // first (a local sync); commit_superblock syncs every rank's writes through
  // the file before the new superblock counts them.
  Status indep_synced;
  if (nf.indep.handle() != MPI_FILE_NULL && nf.indep.writable()) indep_synced = nf.indep.sync();
  if (Status lanes = sync_lanes(nf); indep_synced.is_ok()) indep_synced = lanes;
  EXA_RETURN_IF_ERROR(io::commit_superblock(nf.file, sb, indep_synced));
  nf.superblock = sb;
  note_committed_end(nf);
  return Status::ok();
}

Status write_file_header(NativeFile& nf, const Status& carried, bool agreed) {
  std::vector<uint8_t> bytes;
  if (nf.file.rank() == 0 && carried.is_ok()) bytes = nf.ds.encode_file_header();  // only rank 0 writes it
  return io::write_header(nf.file, bytes, carried, agreed);
}

namespace {

// The superblock of the state a define phase ends in (generation + 1).
format::partitioned::Superblock next_superblock(const NativeFile& nf, const format::Layout& layout,
                                                int64_t data_end) {
  format::partitioned::Superblock sb;
  sb.generation = nf.superblock.generation + 1;
  sb.ndims = uint64_t(nf.ds.ndims());
  sb.nvars = uint64_t(nf.ds.nvars());
  sb.numrecs = uint64_t(nf.ds.numrecs());
  if (layout.recsize > 0) {
    sb.record_begin = uint64_t(layout.begin_rec);
    sb.record_size = uint64_t(layout.recsize);
  }
  sb.record_sections = layout.sections.present;
  int64_t records_end = 0;  // planned inside 2^63 bytes
  if (!format::current_records_end(layout.sections, layout.begin_rec, int64_t(sb.record_size), int64_t(sb.numrecs),
                                   &records_end))
    records_end = INT64_MAX;
  sb.file_end = std::max(uint64_t(data_end), uint64_t(records_end));
  const int unlimited = nf.ds.unlimited_dim();  // a local id: its file position
  if (unlimited >= 0) sb.record_dim = uint64_t(nf.ds.dim_file_positions()[size_t(unlimited)]) + 1;
  return sb;
}

}  // namespace

Status compact_variables(const NativeFile& nf, int first_new, std::vector<uint8_t>* compact) {
  const auto& h = nf.ds.header();
  compact->assign(h.vars.size(), 0);
  bool any_record = false, any_old_compact = false;
  for (int id = 0; id < nf.ds.nvars() && nf.ds.unlimited_dim() >= 0; ++id)
    any_record = any_record || nf.ds.is_record_var(id);
  namespace pf = format::partitioned;
  for (int id = 0; id < first_new; ++id) {
    // Compact on disk: rewritten with all its data (the fill value if never written).
    (*compact)[size_t(id)] = nf.before_redef.vars[size_t(id)].begin == 0 ? pf::kCompactFull : pf::kNotCompact;
    any_old_compact = any_old_compact || (*compact)[size_t(id)];
  }
  if (any_record && any_old_compact)
    return {NC_ENOTSUPPORT, "record variables cannot be added to a file with compact variables"};
  const int64_t most = nf.hints.compact_max;
  if (any_record || most <= 0) return Status::ok();
  // New ones carry no data until some rank writes it (the first commit).
  for (int id = first_new; id < nf.ds.nvars(); ++id)
    if (format::var_bytes(h, h.vars[size_t(id)], false) <= most) (*compact)[size_t(id)] = pf::kCompactPending;
  return Status::ok();
}

namespace {

// Which rank writes each block of the image. In independent define mode, the
// lowest rank that defined a new object of the block in this phase (a block
// no rank added to, or collective mode where every rank defined everything:
// the ranks in turn).
Status block_writers(NativeFile& nf, const format::partitioned::Image& image, std::vector<int>* out) {
  const int p = nf.file.nprocs();
  const size_t nblocks = image.index.blocks.size();
  std::vector<int> writer(nblocks, INT_MAX);
  if (nf.independent_define) {
    const auto& base = nf.define_base;
    const auto& own = nf.own_end;
    for (size_t b = 0; b < nblocks; ++b) {
      bool mine = false;
      for (int64_t pos = image.first_dim[b]; pos < image.first_dim[b + 1] && !mine; ++pos) {
        const int id = image.dim_order[size_t(pos)];
        mine = id >= base.ndims && id < own.ndims;
      }
      for (int64_t pos = image.first_var[b]; pos < image.first_var[b + 1] && !mine; ++pos) {
        const int id = image.var_order[size_t(pos)];
        mine = id >= base.nvars && id < own.nvars;
      }
      if (mine) writer[b] = nf.file.rank();
    }
    if (!writer.empty())
      EXA_RETURN_IF_ERROR(EXA_MPI(
          MPI_Allreduce(MPI_IN_PLACE, writer.data(), int(writer.size()), MPI_INT, MPI_MIN, nf.comm())));
  }
  for (size_t b = 0; b < writer.size(); ++b)
    if (writer[b] == INT_MAX) writer[b] = int(b % size_t(p));
  *out = std::move(writer);
  return Status::ok();
}

// Whether a redef keeps the records where they are (record sections): yes
// unless the hint exa_redef_records=copy asks to lay them out again (issue
// 19: a new record variable must not copy the whole record section). Only
// partitioned files come here; classic files keep PnetCDF's layout.
bool split_records_at_redef(const NativeFile& nf) { return nf.hints.redef_records != "copy"; }

// Rank 0's steady clock in seconds, the same on every rank (one broadcast),
// when a redef of this writer may reuse space; else -1 (no broadcast).
double redef_reuse_clock(const NativeFile& nf) {
  if (nf.swmr != NativeFile::Swmr::kWrite || !nf.reusable.enabled()) return -1;
  double now = 0;
  if (nf.file.rank() == 0)
    now = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  // A failed broadcast only costs the reuse of this redef, on every rank alike.
  if (!io::agree(nf.comm(), EXA_MPI(MPI_Bcast(&now, 1, MPI_DOUBLE, 0, nf.comm()))).is_ok()) return -1;
  return now;
}

// What the generation a redef committed no longer references: the old
// versions of the blocks it wrote anew, the old index table and, when the
// records were laid out again, their old place.
void release_after_redef(NativeFile& nf, const format::partitioned::Superblock& before,
                         const format::partitioned::IndexTable& on_disk, const format::partitioned::Image& image,
                         const format::partitioned::OnDisk& old, const format::Layout& layout, double now) {
  namespace pf = format::partitioned;
  const uint64_t gen = nf.superblock.generation;
  for (size_t i = 0; i < image.index.blocks.size(); ++i) {
    if (!image.reused.empty() && image.reused[i]) continue;
    const int64_t j = pf::find_block(on_disk, image.index.blocks[i].path);
    if (j >= 0) nf.reusable.release(int64_t(on_disk.blocks[size_t(j)].offset), int64_t(on_disk.blocks[size_t(j)].size), gen, now);
  }
  nf.reusable.release(int64_t(before.index_offset), int64_t(before.index_size), gen, now);
  if (!layout.sections.present && !old.sections.present && old.numrecs > 0 && old.record_size > 0)
    nf.reusable.release(old.record_begin, old.numrecs * old.record_size, gen, now);
}

// The partitioned format: groups the objects into blocks and lays the data
// out after them (format/partitioned_image), then writes blocks and index
// table, copies the records of a redef to their new place, writes fill
// values, and only then commits with a superblock of the next generation.
// A redef writes only past the end of the space in use, so a failure (or a
// crash) at any step leaves the current state as it is on disk.
Status finish_define_partitioned(NativeFile& nf, const format::LayoutHints& hints) {
  namespace pf = format::partitioned;
  double t = MPI_Wtime();
  const pf::Superblock committed = nf.superblock;  // the state a redef starts from
  pf::Image image;
  format::Layout layout;
  const int64_t align = hints.header_align > 0 ? hints.header_align : 4096;
  const int first_new = nf.in_redef ? int(nf.before_redef.vars.size()) : 0;
  bool unchanged = false;
  std::vector<uint8_t> compact;
  Status st = compact_variables(nf, first_new, &compact);
  // A redef writing a compact variable's block anew copies its data from
  // where it is now (its current file position).
  std::vector<int> old_positions;
  if (nf.in_redef) old_positions = nf.ds.var_file_positions();
  // Within a block, objects keep the merge's file order (the same on every
  // rank; local ids put each rank's own objects first).
  pf::ObjectOrder order;
  if (!nf.ds.file_order_is_identity()) order = {nf.ds.full_dim_order(), nf.ds.full_var_order()};
  pf::IndexTable on_disk;  // a redef's current state
  pf::OnDisk old{&nf.before_redef, &on_disk, int64_t(nf.superblock.file_end)};
  if (st.is_ok() && nf.in_redef) {
    st = nf.index->table(&on_disk);  // redef loaded every page
    old.numrecs = nf.ds.numrecs();
    old.record_begin = int64_t(nf.superblock.record_begin);
    old.record_size = int64_t(nf.superblock.record_size);
    old.sections = on_disk.sections;
    old.split_records = split_records_at_redef(nf);
    // Records this writer holds beyond the committed count lie past the
    // committed end: nothing new goes over them.
    int64_t records_end = 0;
    if (format::current_records_end(old.sections, old.record_begin, old.record_size, old.numrecs, &records_end))
      old.end = std::max(old.end, records_end);
    if (st.is_ok())
      st = pf::plan_redef_image(nf.ds.mutable_header(), old, &compact, align, &image, &layout, &unchanged, order);
  } else if (st.is_ok()) {
    st = pf::plan_image(nf.ds.header(), &image, &compact, order);
    if (st.is_ok()) st = pf::place_image(nf.ds.mutable_header(), image, align, &layout);
  }
  EXA_RETURN_IF_ERROR(io::agree(nf.comm(), st));
  // An SWMR writer with a refresh bound: the redef's new blocks and index
  // table go into space an older generation released, when one reusable
  // extent holds them (the data still goes past the end).
  const double reuse_now = nf.in_redef ? redef_reuse_clock(nf) : -1;
  if (reuse_now >= 0 && !unchanged) {
    const int64_t metadata = image.index_offset + image.index_size - (old.end + 3) / 4 * 4;
    const int64_t at = nf.reusable.take(metadata, nf.superblock.generation + 1, reuse_now);
    if (at >= 0) {
      old.metadata_at = at;
      st = pf::plan_redef_image(nf.ds.mutable_header(), old, &compact, align, &image, &layout, &unchanged, order);
      EXA_RETURN_IF_ERROR(io::agree(nf.comm(), st));
    }
  }
  nf.ds.set_file_order(image.dim_order, image.var_order);
  nf.enddef_now.layout = MPI_Wtime() - t;
  if (unchanged) return Status::ok();  // nothing to write: the file already holds this state
  t = MPI_Wtime();
  int64_t data_end = layout.begin_rec;
  for (int id = first_new; id < nf.ds.nvars(); ++id) {
    const auto& v = nf.ds.header().vars[size_t(id)];
    if (!nf.ds.is_record_var(id) && v.begin != 0) data_end = std::max(data_end, v.begin + v.vsize);
  }
  pf::Superblock sb = next_superblock(nf, layout, std::max(data_end, image.index_offset + image.index_size));
  pf::IndexTable index;
  // The data of compact variables of a redef, filled in by each block's
  // writer: their bytes as they are now (new ones carry none yet).
  const std::vector<int64_t>& first_var = image.first_var;
  auto complete = [&](size_t b, pf::Block* block) -> Status {
    for (size_t k = 0; k < block->vars.size(); ++k) {
      pf::BlockVariable& bv = block->vars[k];
      const int id = image.var_order[size_t(first_var[b]) + k];
      if (!(bv.flags & pf::kVarCompact) || id >= first_new) continue;
      const int64_t bytes = format::var_bytes(nf.ds.header(), nf.ds.header().vars[size_t(id)]);
      EXA_RETURN_IF_ERROR(nf.compact.value(nf, id, old_positions[size_t(id)], &bv.data));
      if (int64_t(bv.data.size()) != bytes)
        return {NC_EFILEMETA, "compact variable '" + bv.var.name + "' holds a data size its dimensions do not give"};
    }
    return Status::ok();
  };
  std::vector<int> writers;
  std::vector<pf::PageRef> placement;  // where the table's pages go
  io::WrittenRuns written;              // for the first compact commit (CompactStore::hold_written)
  EXA_RETURN_IF_ERROR(block_writers(nf, image, &writers));
  EXA_RETURN_IF_ERROR(io::write_blocks_and_index(nf.file, nf.ds.header(), image, writers, complete, &sb, &index,
                                                 &placement, &written));
  if (nf.in_redef && !layout.sections.present) {
    // The records move to the new record section; their old copies stay
    // valid (the current state's) until the commit. (With record sections
    // they stay where they are.)
    auto moves = io::plan_relocation(nf.before_redef, nf.layout_before_redef, nf.ds.header(), layout,
                                     nf.ds.numrecs());
    EXA_RETURN_IF_ERROR(io::move_data(nf.file, std::move(moves)));
  }
  nf.ds.set_layout(layout);
  auto regions = fill_regions_for_new_vars(nf, first_new);
  if (!regions.empty()) EXA_RETURN_IF_ERROR(io::write_fill(nf.file, regions));
  EXA_RETURN_IF_ERROR(io::commit_superblock(nf.file, sb));
  nf.superblock = sb;
  note_committed_end(nf);
  if (reuse_now >= 0) release_after_redef(nf, committed, on_disk, image, old, layout, reuse_now);
  nf.index = std::make_shared<pf::PagedIndex>(sb, index);
  nf.index->set_placement(placement);  // a compact commit keeps the pages it does not change
  nf.record_blocks.reset();
  nf.compact.reset();
  for (auto& [offset, bytes] : written) nf.compact.hold_written(offset, std::move(bytes));
  nf.enddef_now.header_io = MPI_Wtime() - t;
  return Status::ok();
}

}  // namespace

// Info hints (including PNETCDF_HINTS) win over the ncmpi__enddef
// arguments, which fill only what the hints leave unset, as in PnetCDF 1.12.3.
format::LayoutHints layout_hints(const NativeFile& nf, const format::LayoutHints* explicit_args) {
  format::LayoutHints hints = nf.hints.layout;
  if (explicit_args) {
    hints.header_minfree = explicit_args->header_minfree;
    hints.var_minfree = explicit_args->var_minfree;
    hints.enddef_v_align = explicit_args->enddef_v_align;
    hints.enddef_r_align = explicit_args->enddef_r_align;
  }
  return hints;
}

namespace {

// Whether an enddef agrees its outcome over the ranks. The first enddef of
// a classic file defined collectively does not outside safe mode, as
// PnetCDF's: the same definitions give every rank the same layout (and the
// same layout error), and rank 0's header write is rank 0's -- returned
// there once every rank left define mode, so later collective calls still
// meet. Safe mode (whose connector agrees the outcome again), a redef (it
// moves data by the new layout) and independent define mode (a merge) agree.
bool enddef_agrees(const NativeFile& nf) {
  return nf.in_redef || nf.independent_define || nf.file.nprocs() == 1 || nf.safe_mode;
}

// Lays out, moves data after a redef, writes the header and the fill values.
// `rank_only`: an error of this rank alone (see enddef_agrees), returned
// after the file left define mode.
Status finish_define(NativeFile& nf, const format::LayoutHints* explicit_args, Status* rank_only) {
  format::LayoutHints hints = layout_hints(nf, explicit_args);
  if (nf.partitioned) return finish_define_partitioned(nf, hints);
  const format::Layout* previous = nf.in_redef ? &nf.layout_before_redef : nullptr;
  if (previous) {
    // Within one open, the alignments chosen at the first enddef stay.
    if (hints.header_align == 0) hints.header_align = previous->header_align;
    if (hints.var_align == 0) hints.var_align = previous->var_align;
    if (hints.record_align == 0) hints.record_align = previous->record_align;
  }
  double t = MPI_Wtime();
  Status laid = nf.ds.compute_layout(hints, previous);
  const bool agreed = enddef_agrees(nf);
  // A redef moves data by the new layout first: agreed before. Else the
  // layout (the same definitions give the same one on every rank) is agreed
  // with the header's write, in one agreement, or not at all.
  if (nf.in_redef) EXA_RETURN_IF_ERROR(io::agree(nf.comm(), laid));
  if (!agreed) EXA_RETURN_IF_ERROR(laid);
  nf.enddef_now.layout = MPI_Wtime() - t;
  t = MPI_Wtime();
  int first_new = 0;
  if (nf.in_redef) {
    first_new = static_cast<int>(nf.before_redef.vars.size());
    // In file order on every rank, so that every rank plans the same moves.
    const bool identity = nf.ds.file_order_is_identity();
    format::Header reordered = identity ? format::Header{} : nf.ds.file_header();
    auto moves = io::plan_relocation(nf.before_redef, nf.layout_before_redef,
                                     identity ? nf.ds.header() : reordered, nf.ds.layout(),
                                     nf.ds.numrecs());
    EXA_RETURN_IF_ERROR(io::move_data(nf.file, std::move(moves)));
  }
  if (agreed)
    EXA_RETURN_IF_ERROR(write_file_header(nf, laid));
  else
    *rank_only = write_file_header(nf, laid, false);
  auto regions = fill_regions_for_new_vars(nf, first_new);
  if (!regions.empty()) EXA_RETURN_IF_ERROR(io::write_fill(nf.file, regions));
  nf.enddef_now.header_io = MPI_Wtime() - t;
  return Status::ok();
}

// Independent define mode: the merge, then the rest of the enddef. Undoes
// the merge if anything after it fails: the rank keeps its own definitions
// and stays in define mode.
Status merge_and_finish_define(NativeFile& nf, const format::LayoutHints* explicit_args) {
  model::MergeMark mark = model::mark_for_merge(nf.ds);
  nf.own_end = {nf.ds.ndims(), nf.ds.nvars(), 0};
  Status st = merge_independent_definitions(nf);
  Status unused;  // (independent define mode agrees every outcome)
  if (st.is_ok()) st = finish_define(nf, explicit_args, &unused);
  if (!st.is_ok()) model::undo_merge(nf.ds, std::move(mark));
  return st;
}

}  // namespace

Status NativeConnector::enddef(FileState& f, const format::LayoutHints* explicit_args) {
  auto& nf = native(f);
  if (!nf.define_mode) return {NC_ENOTINDEFINE, "not in define mode"};
  const double start = MPI_Wtime();
  nf.enddef_now = {};
  // A new partitioned file whose blocks are each one rank's needs no merge
  // (on one rank there is nothing to merge anyway).
  bool done = false;
  if (nf.independent_define && nf.partitioned && nf.never_ended && nf.file.nprocs() > 1)
    EXA_RETURN_IF_ERROR(enddef_private_blocks(nf, layout_hints(nf, explicit_args), &done));
  // Collective define mode: each rank lays out the partitioned file from its
  // own definitions; different ones must not reach the disk.
  if (!nf.independent_define && nf.partitioned && nf.file.nprocs() > 1)
    EXA_RETURN_IF_ERROR(check_same_definitions(nf));
  Status rank_only;
  if (!done)
    EXA_RETURN_IF_ERROR(nf.independent_define ? merge_and_finish_define(nf, explicit_args)
                                              : finish_define(nf, explicit_args, &rank_only));
  nf.enddef_now.total = MPI_Wtime() - start;
  nf.last_enddef = nf.enddef_now;
  nf.define_mode = false;
  nf.in_redef = false;
  nf.never_ended = false;
  nf.before_redef = {};
  return rank_only;
}

Status NativeConnector::redef(FileState& f) {
  auto& nf = native(f);
  if (nf.swmr == NativeFile::Swmr::kWrite && !nf.partitioned)
    return {NC_ENOTSUPPORT, "redef of a classic file under SWMR: readers follow its records only (use the partitioned format)"};
  if (!nf.file.writable()) return {NC_EPERM, "file is open read-only"};
  if (nf.define_mode) return {NC_EINDEFINE, "already in define mode"};
  if (nf.indep_mode) EXA_RETURN_IF_ERROR(end_indep(f));
  EXA_RETURN_IF_ERROR(sync_numrecs(f));
  if (nf.partitioned) {
    EXA_RETURN_IF_ERROR(nf.compact.commit(nf));
    // A redef regroups the whole file: every block, read once and shared.
    EXA_RETURN_IF_ERROR(load_every_block(nf));
    EXA_RETURN_IF_ERROR(io::agree(nf.comm(), nf.ds.end_lazy()));
  }
  // In local ids for the partitioned format (its writer plans from them).
  nf.before_redef = nf.partitioned ? nf.ds.header() : nf.ds.file_header();
  nf.layout_before_redef = nf.ds.layout();
  nf.define_base = {nf.ds.ndims(), nf.ds.nvars(), static_cast<int>(nf.ds.header().gatts.size())};
  nf.old_touched = false;
  nf.define_mode = true;
  nf.in_redef = true;
  return Status::ok();
}

namespace {

// An SWMR writer's commit with nothing else to commit: the same state as a
// new generation, whose superblock carries the heartbeat (every rank's
// writes synced first, as in every commit).
Status commit_heartbeat(NativeFile& nf) {
  auto sb = nf.superblock;
  sb.generation += 1;
  Status indep_synced;
  if (nf.indep.handle() != MPI_FILE_NULL && nf.indep.writable()) indep_synced = nf.indep.sync();
  EXA_RETURN_IF_ERROR(io::commit_superblock(nf.file, sb, indep_synced));
  nf.superblock = sb;
  return Status::ok();
}

// Agrees the number of records and writes it when any rank grew it
// (write_numrecs; `ordered` as there). Collective.
Status agree_numrecs(NativeFile& nf, bool ordered) {
  if (nf.define_mode) return {NC_EINDEFINE, "in define mode"};
  // One allreduce: the most records any rank wrote, and whether any rank has unwritten growth.
  int64_t both[2] = {nf.ds.numrecs(), nf.numrecs_dirty ? 1 : 0};
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allreduce(MPI_IN_PLACE, both, 2, MPI_INT64_T, MPI_MAX, nf.comm())));
  const int64_t most = both[0];
  const bool any_dirty = both[1] != 0;
  nf.ds.set_numrecs(most);
  nf.numrecs_dirty = false;
  if (!any_dirty || !nf.file.writable()) return Status::ok();
  return write_numrecs(nf, most, true, Status::ok(), ordered);
}

// Whether the close must agree the number of records: a writable file with
// a record variable (the same answer on every rank: the definitions and the
// mode are). A read-only file writes no count, and with no record variable
// no put grows one, so PnetCDF's close agrees nothing there and neither does
// this one. Partitioned files commit their state at close in any case.
bool numrecs_may_grow(const NativeFile& nf) {
  if (!nf.file.writable()) return false;
  if (nf.partitioned || nf.swmr != NativeFile::Swmr::kOff || nf.ds.unlimited_dim() < 0) return true;
  for (int id = 0; id < nf.ds.nvars(); ++id)
    if (nf.ds.is_record_var(id)) return true;
  return false;
}

}  // namespace

Status NativeConnector::sync_numrecs(FileState& f) { return agree_numrecs(native(f), false); }

Status NativeConnector::sync(FileState& f) {
  auto& nf = native(f);
  if (nf.define_mode) return {NC_EINDEFINE, "in define mode"};
  // A read-only file has nothing to flush (PnetCDF returns NC_NOERR; MPI_File_sync
  // on a read-only handle fails with an access error).
  if (!nf.file.writable()) return nf.swmr == NativeFile::Swmr::kRead ? refresh(f) : Status::ok();
  const uint64_t generation = nf.superblock.generation;
  // Records grown since the last count: their bytes synced, then the count, synced.
  EXA_RETURN_IF_ERROR(agree_numrecs(nf, /*ordered=*/true));
  if (nf.partitioned) EXA_RETURN_IF_ERROR(nf.compact.commit(nf));
  // An SWMR writer commits a generation at every sync: its heartbeat.
  if (nf.partitioned && nf.swmr == NativeFile::Swmr::kWrite && nf.superblock.generation == generation)
    return commit_heartbeat(nf);
  return sync_written(nf);
}

Status NativeConnector::flush(FileState& f) {
  auto& nf = native(f);
  if (nf.define_mode) return {NC_EINDEFINE, "in define mode"};
  const uint64_t generation = nf.superblock.generation;
  EXA_RETURN_IF_ERROR(sync_numrecs(f));
  if (!nf.partitioned) return Status::ok();
  EXA_RETURN_IF_ERROR(nf.compact.commit(nf));
  if (nf.swmr == NativeFile::Swmr::kWrite && nf.file.writable() && nf.superblock.generation == generation)
    return commit_heartbeat(nf);
  return Status::ok();
}

bool swmr_commit_due(NativeFile& nf) {
  if (nf.swmr != NativeFile::Swmr::kWrite || !nf.partitioned || nf.hints.swmr_commit_interval <= 0) return false;
  const auto now = std::chrono::steady_clock::now();
  if (nf.timer_generation != nf.superblock.generation) {  // the first put since that commit
    nf.timer_generation = nf.superblock.generation;
    nf.timer_started = now;
    return false;
  }
  return std::chrono::duration<double>(now - nf.timer_started).count() >= nf.hints.swmr_commit_interval;
}

Status swmr_timer_commit(NativeFile& nf) {
  const uint64_t generation = nf.superblock.generation;
  EXA_RETURN_IF_ERROR(agree_numrecs(nf, /*ordered=*/true));
  EXA_RETURN_IF_ERROR(nf.compact.commit(nf));
  if (nf.superblock.generation == generation) return commit_heartbeat(nf);
  return Status::ok();
}

Status NativeConnector::begin_indep(FileState& f) {
  auto& nf = native(f);
  if (nf.define_mode) return {NC_EINDEFINE, "in define mode"};
  if (nf.indep_mode) return Status::ok();  // PnetCDF: no error, nothing to do
  // Some ranks may have opened their handle already (broadcast reads do so
  // lazily on the reading rank), so the outcome is agreed unconditionally.
  EXA_RETURN_IF_ERROR(io::agree(nf.comm(), open_indep_handle(nf)));
  nf.indep_mode = true;
  return Status::ok();
}

Status NativeConnector::end_indep(FileState& f) {
  auto& nf = native(f);
  if (nf.define_mode) return {NC_EINDEFINE, "in define mode"};
  if (!nf.indep_mode) return Status::ok();  // PnetCDF: no error, nothing to do
  // Make what this rank wrote independently visible to the collective handle.
  // (Also durable: the relation store's checkpoints rely on this sync and make
  // no ncmpi_sync after independent writes, src/relation/relation_io.cpp.)
  Status st;
  if (nf.indep.handle() != MPI_FILE_NULL && nf.file.writable()) st = nf.indep.sync();
  if (Status lanes = sync_lanes(nf); st.is_ok()) st = lanes;
  nf.indep_mode = false;
  Status numrecs = agree_numrecs(nf, false);
  return st.is_ok() ? numrecs : st;
}

Status NativeConnector::close(FileState& f) {
  auto& nf = native(f);
  Status st;
  // As PnetCDF: requests still pending at close are dropped and reported.
  bool had_pending = !nf.pending.empty();
  Status types_freed;  // the duplicate datatypes of dropped gets, each freed once
  for (auto& [id, r] : nf.pending) {
    Status freed = r.buftype.release();
    if (types_freed.is_ok()) types_freed = freed;
  }
  nf.pending.clear();
  nf.request_ids.clear();
  Status ended;
  if (nf.define_mode) ended = enddef(f, nullptr);
  // Still in define mode: the enddef failed on every rank. A new file whose
  // first enddef failed holds no header: remove it, as abort would. Else
  // (rank 0's own header write: enddef_agrees) the close goes on with the
  // others and returns it at the end.
  if (!ended.is_ok() && nf.define_mode) {
    if (nf.never_ended) {
      abort(f).set_aside("close failed: the enddef's error is reported");
      return ended;
    }
    st = ended;
  }
  // Leaving independent mode as end_indep does, but the count of records
  // ordered: their bytes synced, then the count, synced.
  Status indep_synced;
  if (st.is_ok() && nf.indep_mode) {
    if (nf.indep.handle() != MPI_FILE_NULL && nf.file.writable()) indep_synced = nf.indep.sync();
    if (Status lanes = sync_lanes(nf); indep_synced.is_ok()) indep_synced = lanes;
    nf.indep_mode = false;
  }
  if (st.is_ok() && numrecs_may_grow(nf)) st = agree_numrecs(nf, /*ordered=*/true);
  if (st.is_ok()) st = indep_synced;
  if (st.is_ok() && nf.partitioned && nf.file.writable()) st = nf.compact.commit(nf);
  if (st.is_ok() && nf.partitioned) st = release_index_blocks(nf);
  Status closed = nf.indep.close();
  if (Status lanes = close_lanes(nf); closed.is_ok()) closed = lanes;
  Status closed_all = nf.file.close();
  if (st.is_ok()) st = closed.is_ok() ? closed_all : closed;
  if (st.is_ok()) st = ended;
  if (st.is_ok()) st = types_freed;
  if (st.is_ok() && had_pending) st = {NC_EPENDING, "nonblocking requests were pending at close"};
  return st;
}

Status NativeConnector::abort(FileState& f) {
  auto& nf = native(f);
  bool remove = nf.never_ended;
  Status st = nf.indep.close();
  if (Status lanes = close_lanes(nf); st.is_ok()) st = lanes;
  int rank = nf.file.rank();
  // The file's communicator goes with the handle; the barrier that keeps ranks from
  // returning before the new file is removed needs one of its own.
  MPI_Comm comm = MPI_COMM_NULL;
  Status dup = io::from_mpi(MPI_Comm_dup(nf.comm(), &comm), io::MpiOp::kOther, "MPI_Comm_dup");
  Status closed = nf.file.close();
  if (st.is_ok()) st = closed;
  if (remove && rank == 0) {
    Status removed = io::from_mpi(MPI_File_delete(nf.path.c_str(), MPI_INFO_NULL),
                                  io::MpiOp::kOther, "MPI_File_delete");
    if (st.is_ok()) st = removed;
  }
  if (dup.is_ok()) {
    Status waited = io::from_mpi(MPI_Barrier(comm), io::MpiOp::kOther, "MPI_Barrier");
    Status freed = io::from_mpi(MPI_Comm_free(&comm), io::MpiOp::kOther, "MPI_Comm_free");
    if (st.is_ok()) st = waited.is_ok() ? freed : waited;
  } else if (st.is_ok()) {
    st = dup;
  }
  return st;
}

Status NativeConnector::set_fill(FileState& f, int fill_mode, int* old_mode) {
  auto& nf = native(f);
  if (!nf.file.writable()) return {NC_EPERM, "file is open read-only"};
  if (!nf.define_mode) return {NC_ENOTINDEFINE, "set_fill needs define mode"};
  if (fill_mode != NC_FILL && fill_mode != NC_NOFILL) return {NC_EINVAL, "bad fill mode"};
  if (old_mode) *old_mode = nf.fill_mode;
  nf.fill_mode = fill_mode;
  // As in PnetCDF, the file's mode applies to every variable defined so far.
  for (int id = 0; id < nf.ds.nvars(); ++id) nf.ds.set_var_no_fill(id, fill_mode == NC_NOFILL);
  return Status::ok();
}

Status NativeConnector::fill_var_rec(FileState& f, int varid, MPI_Offset recno) {
  auto& nf = native(f);
  // PnetCDF's order: the variable (it crashes on a bad id), record variable,
  // fill mode; it then writes even in define mode, where exacdf refuses.
  if (!nf.ds.valid_var(varid)) return {NC_ENOTVAR, "invalid variable id"};
  if (!nf.ds.is_record_var(varid)) return {NC_ENOTRECVAR, "not a record variable"};
  if (nf.ds.var_no_fill(varid)) return {NC_ENOTFILL, "fill mode is off for this variable"};
  if (nf.define_mode) return {NC_EINDEFINE, "in define mode"};
  if (recno < 0) return {NC_EINVALCOORDS, "negative record number"};
  const auto& var = nf.ds.var(varid);
  int64_t bytes = nf.ds.record_elements(varid) * format::external_size(var.type);
  io::VarGeometry place;
  EXA_RETURN_IF_ERROR(place_of_var(nf.ds, varid, &place));
  std::vector<io::FillRegion> regions{
      {format::record_offset(place.pieces, var.begin, nf.ds.layout().recsize, recno), bytes,
       nf.ds.fill_value_external(varid)}};
  EXA_RETURN_IF_ERROR(io::write_fill(nf.file, regions));
  if (recno + 1 > nf.ds.numrecs()) {
    nf.ds.set_numrecs(recno + 1);
    nf.numrecs_dirty = true;
  }
  return sync_numrecs(f);
}

Status NativeConnector::file_info(FileState& f, MPI_Info* info_used) {
  auto& nf = native(f);
  // Report the alignments in effect, as PnetCDF does, where a layout chose them.
  io::Hints reported = nf.hints;
  const format::Layout& layout = nf.ds.layout();
  if (layout.header_align > 0) reported.layout.header_align = layout.header_align;
  if (layout.var_align > 0) reported.layout.var_align = layout.var_align;
  if (layout.record_align > 0) reported.layout.record_align = layout.record_align;
  reported.partitioned = nf.partitioned;
  reported.independent_define = nf.independent_define;
  return io::file_info_used(reported, nf.file.handle(), info_used);
}

const model::Dataset& NativeConnector::dataset(FileState& f) { return native(f).ds; }

MPI_Offset NativeConnector::io_calls(FileState& f) {
  auto& nf = native(f);
  int64_t written = 0, calls = 0;
  lane_counts(nf, &written, &calls);
  return nf.file.io_calls() + nf.indep.io_calls() + calls;
}

CallModes NativeConnector::modes(FileState& f) { return native_modes(native(f)); }

FileFacts NativeConnector::facts(FileState& f) {
  auto& nf = native(f);
  FileFacts out;
  out.path = nf.path;
  out.mode = nf.mode;
  out.define_mode = nf.define_mode;
  out.indep_mode = nf.indep_mode;
  out.independent_define = nf.independent_define;
  out.fill_mode = nf.fill_mode;
  out.striping_size = static_cast<int>(nf.hints.striping_unit);
  out.striping_count = static_cast<int>(nf.hints.striping_factor);
  int64_t lane_written = 0, lane_calls = 0;
  lane_counts(nf, &lane_written, &lane_calls);
  out.put_bytes = nf.file.bytes_written() + nf.indep.bytes_written() + lane_written;
  out.get_bytes = nf.file.bytes_read() + nf.indep.bytes_read();
  out.io_calls = nf.file.io_calls() + nf.indep.io_calls() + lane_calls;
  out.last_enddef = nf.last_enddef;
  if (nf.partitioned) out.blocks = nf.index.get();
  if (nf.partitioned) out.generation = int64_t(nf.superblock.generation);
  if (nf.partitioned) out.heartbeat_us = int64_t(nf.superblock.heartbeat_us);
  out.newer_damaged = nf.opened_below_damage != 0 && nf.opened_below_damage == nf.superblock.generation;
  if (out.newer_damaged) out.generation_problem = nf.damage_passed_over;
  return out;
}

}  // namespace exa::layer
