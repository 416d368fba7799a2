// Reading and writing a classic header through MPI-IO: the root reads in
// chunks of nc_header_read_chunk_size and broadcasts; rank 0 writes.
#pragma once

#include <cstdint>
#include <vector>

#include "format/classic_header.hpp"
#include "io/mpi_file.hpp"

namespace exa::io {

// Collective. Rank 0 reads the header (growing the read by `chunk` bytes
// until the decoder has what it needs), broadcasts the bytes, and every rank
// decodes them. A netCDF-4/HDF5 file gives NC_ENOTBUILT, anything else that
// is not a classic file NC_ENOTNC. Same result on every rank.
format::DecodeResult read_header(MpiFile& file, int64_t chunk);

// The two halves of read_header for an open that reads before its agreement
// (MpiFile::RootStep): rank 0 reads the header's bytes, then -- once every
// rank knows their number from the open's agreement -- one broadcast of
// them and every rank decodes them.
Status read_header_on_root(MpiFile& file, int64_t chunk, std::vector<uint8_t>* bytes);
format::DecodeResult share_header(MpiFile& file, int64_t nbytes, std::vector<uint8_t> bytes);

// Collective. Rank 0 writes the encoded header at offset 0 unless its
// `carried` (this rank's error from before, e.g. its layout) failed; one
// agreement of every rank's `carried` and rank 0's write, unless !agreed
// (no MPI call but a view restore: rank 0's failure is rank 0's, as PnetCDF).
Status write_header(MpiFile& file, const std::vector<uint8_t>& bytes, const Status& carried = Status::ok(),
                    bool agreed = true);

// Collective over `comm`. Rank 0 rewrites only the numrecs field through
// `writer` (rank 0's handle whose view is bytes; nullptr on the other ranks);
// errors agreed, unless !agreed (a data call: no MPI call, rank 0's failure
// is rank 0's, as PnetCDF). `carried`: this rank's outcome of the I/O before
// it, carried by the agreement (agreed only) so every rank returns a write
// that failed on one.
Status write_numrecs(MPI_Comm comm, MpiFile* writer, format::Version version, int64_t numrecs, bool agreed = true,
                     const Status& carried = Status::ok());

}  // namespace exa::io

namespace exa::io {

// Independent. The NC_FORMAT_* of a file from its magic number
// (NC_FORMAT_NETCDF4 for HDF5, NC_FORMAT_UNKNOWN for anything else).
Status probe_format(const char* path, int* format);

}  // namespace exa::io
