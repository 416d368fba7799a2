// Single writer, multiple readers (include/exacdf_swmr.h, docs/format.md
// "SWMR"): an SWMR reader moves to the newest committed generation.
#include "exacdf.h"
#include "io/collective.hpp"
#include "io/mpi_errors.hpp"
#include "layer/native_internal.hpp"

namespace exa::layer {

namespace {

// Tries before a refresh gives up on a generation it cannot read whole. A
// commit writes its superblock last, after everything it points at is on
// disk, so a valid superblock's metadata is there; a torn superblock fails
// its checksum and the other slot (the previous generation) is used. A retry
// covers what is left: a file system that shows writes out of order.
constexpr int kRefreshTries = 4;

bool is_unusable(const Status& st) { return st.code() == NC_EFILEMETA || st.code() == NC_ETRUNC; }

// Partitioned: the newest valid generation, read as an open reads it.
// Blocks and pages are read again when used (they are new objects of the
// new index). Never moves back.
Status refresh_partitioned(NativeFile& nf) {
  Status st;
  for (int t = 0; t < kRefreshTries; ++t) {
    bool partitioned = false;
    std::vector<uint8_t> slots;
    st = io::probe_partitioned(nf.file, &partitioned, &slots);
    if (st.is_ok() && !partitioned) st = {NC_EFILEMETA, "the file is no longer a partitioned file"};
    io::OpenedIndex opened;
    format::partitioned::Block root;
    if (st.is_ok()) st = io::read_partitioned_root(nf.file, std::move(slots), &opened, &root);
    if (is_unusable(st)) continue;
    EXA_RETURN_IF_ERROR(st);
    if (opened.sb.generation <= nf.superblock.generation) return Status::ok();  // nothing newer
    nf.compact = CompactStore{};  // compact data lives in the blocks: read anew
    // Blocks the view being left used stay cached (a block of the new view
    // with the same offset, size and CRC is the same bytes); others go.
    std::erase_if(nf.block_cache, [&](const auto& kv) { return kv.second.used_in < nf.refreshes; });
    ++nf.refreshes;
    attach_index(nf, std::move(opened));
    st = io::agree(nf.comm(), nf.ds.open_lazily(nf.index, std::move(root), block_reader(nf)));
    if (!st.is_ok()) return st;
    set_partitioned_layout(nf);
    return Status::ok();
  }
  return {st.code(), "refresh: no generation newer than the one in view could be read whole after " +
                         std::to_string(kRefreshTries) + " tries (" + st.message() + ")"};
}

// Classic: the newest numrecs whose records are all in the file (the
// writer makes the file reach them, synced, before it writes numrecs).
Status refresh_classic(NativeFile& nf) {
  int64_t v[2] = {0, 0};  // numrecs, file size (rank 0)
  Status st;
  if (nf.file.rank() == 0) {
    const bool cdf5 = nf.ds.version() == format::Version::kCdf5;
    uint8_t buf[8] = {0};
    const int width = cdf5 ? 8 : 4;
    st = nf.file.read_at(4, buf, width);
    for (int i = 0; i < width; ++i) v[0] = (v[0] << 8) | buf[i];
    MPI_Offset size = 0;
    if (st.is_ok()) st = io::from_mpi(MPI_File_get_size(nf.file.handle(), &size), io::MpiOp::kRead, "MPI_File_get_size");
    v[1] = size;
  }
  EXA_RETURN_IF_ERROR(io::agree(nf.comm(), st));
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Bcast(v, 2, MPI_INT64_T, 0, nf.comm())));
  const format::Layout& layout = nf.ds.layout();
  const int64_t numrecs = v[0];
  if (numrecs <= nf.ds.numrecs() || numrecs < 0) return Status::ok();
  // The records it counts must be in the file: else keep the count in view.
  if (layout.recsize > 0 && (numrecs > (INT64_MAX - layout.begin_rec) / layout.recsize ||
                             layout.begin_rec + numrecs * layout.recsize > v[1]))
    return Status::ok();
  nf.ds.set_numrecs(numrecs);
  return Status::ok();
}

}  // namespace

Status NativeConnector::refresh(FileState& f) {
  auto& nf = native(f);
  if (nf.swmr != NativeFile::Swmr::kRead) return {NC_EPERM, "not an SWMR reader (EXA_SWMR_READ)"};
  EXA_RETURN_IF_ERROR(nf.file.use_byte_view());  // collective: a data read may have left its view
  // The new view's age counts from before its superblock is read (blocks
  // read during the refresh are checked against it); a failed refresh keeps
  // the old view and its age.
  const auto before = nf.refreshed_at;
  nf.refreshed_at = std::chrono::steady_clock::now();
  Status st = nf.partitioned ? refresh_partitioned(nf) : refresh_classic(nf);
  if (!st.is_ok()) nf.refreshed_at = before;
  return st;
}

}  // namespace exa::layer
