#include "io/header_io.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <string>

#include "format/partitioned.hpp"
#include "io/collective.hpp"
#include "io/mpi_errors.hpp"

namespace exa::io {

namespace {

bool is_hdf5(const std::vector<uint8_t>& bytes) {
  static const uint8_t kMagic[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  return bytes.size() >= 8 && std::memcmp(bytes.data(), kMagic, 8) == 0;
}

// Rank 0 only: reads until the header decodes or the file ends.
Status read_on_root(MpiFile& file, int64_t chunk, std::vector<uint8_t>* bytes) {
  int64_t file_size = 0;
  EXA_RETURN_IF_ERROR(file.size(&file_size));
  // Not a netCDF file, and the message says why (PnetCDF 1.12.3 returns
  // NC_EFILE, "Unknown error in file operation").
  if (file_size == 0) return {NC_ENOTNC, "the file is empty (0 bytes): not a netCDF file"};
  if (file_size < 8)
    return {NC_ENOTNC, "the file (" + std::to_string(file_size) + " bytes) is too short to be a netCDF file"};
  int64_t want = std::min(std::max<int64_t>(chunk, 8), file_size);
  bytes->clear();
  for (;;) {
    int64_t have = static_cast<int64_t>(bytes->size());
    bytes->resize(static_cast<size_t>(want));
    EXA_RETURN_IF_ERROR(file.read_at(have, bytes->data() + have, want - have));
    if (is_hdf5(*bytes)) return {NC_ENOTBUILT, "netCDF-4/HDF5 files are not supported"};
    format::DecodeResult r = format::decode(*bytes);
    if (r.status.is_ok()) {
      bytes->resize(static_cast<size_t>(r.consumed));
      return Status::ok();
    }
    if (r.need_bytes == 0 || want >= file_size) return r.status;
    // Grow geometrically (each failed decode starts over, so growing by one
    // chunk at a time would cost O(size^2 / chunk) for a large header), in
    // whole chunks, at least to what the decoder asked for.
    int64_t next = std::max(r.need_bytes, std::max(want + chunk, want * 2));
    want = std::min(((next + chunk - 1) / chunk) * chunk, file_size);
  }
}

}  // namespace

Status read_header_on_root(MpiFile& file, int64_t chunk, std::vector<uint8_t>* bytes) {
  return read_on_root(file, chunk, bytes);
}

format::DecodeResult share_header(MpiFile& file, int64_t nbytes, std::vector<uint8_t> bytes) {
  format::DecodeResult result;
  bytes.resize(static_cast<size_t>(nbytes));  // (rank 0: already so)
  for (int64_t off = 0; file.nprocs() > 1 && off < nbytes && result.status.is_ok(); off += INT_MAX) {
    const int piece = static_cast<int>(std::min<int64_t>(nbytes - off, INT_MAX));
    result.status = EXA_MPI(MPI_Bcast(bytes.data() + off, piece, MPI_BYTE, 0, file.comm()));
  }
  if (!result.status.is_ok()) return result;
  return format::decode(bytes);
}

format::DecodeResult read_header(MpiFile& file, int64_t chunk) {
  std::vector<uint8_t> bytes;
  Status st;
  if (file.rank() == 0) st = read_on_root(file, chunk, &bytes);
  format::DecodeResult result;
  result.status = agree(file.comm(), st);
  if (!result.status.is_ok()) return result;
  result.status = broadcast_bytes(file.comm(), &bytes);
  if (!result.status.is_ok()) return result;
  return format::decode(bytes);
}

Status write_header(MpiFile& file, const std::vector<uint8_t>& bytes, const Status& carried, bool agreed) {
  Status st = file.use_byte_view();  // (every rank: restoring the view is collective)
  if (st.is_ok()) st = carried;
  if (st.is_ok() && file.rank() == 0) st = file.write_at(0, bytes.data(), static_cast<int64_t>(bytes.size()));
  return agreed ? agree(file.comm(), st) : st;
}

Status write_numrecs(MPI_Comm comm, MpiFile* writer, format::Version version, int64_t numrecs, bool agreed,
                     const Status& carried) {
  Status st;
  if (writer != nullptr) {
    uint8_t buf[8];
    int width = version == format::Version::kCdf5 ? 8 : 4;
    auto v = static_cast<uint64_t>(numrecs);
    for (int i = 0; i < width; ++i) buf[i] = static_cast<uint8_t>(v >> (8 * (width - 1 - i)));
    st = writer->write_at(4, buf, width);
  }
  if (st.is_ok()) st = carried;
  return agreed ? agree(comm, st) : st;
}

}  // namespace exa::io

namespace exa::io {

Status probe_format(const char* path, int* format) {
  MpiFile file;
  EXA_RETURN_IF_ERROR(file.open(MPI_COMM_SELF, path, false, MPI_INFO_NULL));
  int64_t size = 0;
  EXA_RETURN_IF_ERROR(file.size(&size));
  std::vector<uint8_t> magic(static_cast<size_t>(std::min<int64_t>(size, 8)));
  EXA_RETURN_IF_ERROR(file.read_at(0, magic.data(), static_cast<int64_t>(magic.size())));
  *format = NC_FORMAT_UNKNOWN;
  if (is_hdf5(magic)) {
    *format = NC_FORMAT_NETCDF4;
  } else if (magic.size() == 8 && std::equal(magic.begin(), magic.end(),
                                             format::partitioned::kMagic.begin())) {
    *format = 64;  // EXA_FORMAT_PARTITIONED_V1 (exacdf.h)
  } else if (magic.size() >= 4 && magic[0] == 'C' && magic[1] == 'D' && magic[2] == 'F') {
    if (magic[3] == 1) *format = NC_FORMAT_CLASSIC;
    if (magic[3] == 2) *format = NC_FORMAT_CDF2;
    if (magic[3] == 5) *format = NC_FORMAT_CDF5;
  }
  return file.close();
}

}  // namespace exa::io
