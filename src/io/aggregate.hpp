// Aggregated transfers: many requests' bytes, anywhere in the file, moved
// by ONE MPI-IO call. Requests are flattened into file segments, sorted,
// overlaps resolved in posting order (later writes win), file-adjacent
// segments merged, and the result becomes one hindexed file view.
#pragma once

#include <cstdint>
#include <vector>

#include "io/access_plan.hpp"
#include "io/mpi_file.hpp"

namespace exa::io {

// A run of bytes at a file offset and where they are (write) or go (read) in memory.
struct Segment {
  int64_t offset = 0;
  int64_t length = 0;
  uint8_t* data = nullptr;
};

// Appends the contiguous file runs of a selection, in the order its packed
// external bytes (starting at `packed`) are laid out.
void flatten(const VarGeometry& var, const Selection& sel, uint8_t* packed,
             std::vector<Segment>* out);

// Zeroes the bytes of segments (read from the file) at or past file offset
// `size`: bytes past the end of the file read as zeros.
void zero_segments_past(const std::vector<Segment>& segments, int64_t size);
// Zeroes what a short read left unfilled: the bytes of segments (in memory
// order, as they were read) after the first `got`.
void zero_segments_unread(const std::vector<Segment>& segments, int64_t got);

// How many segments flatten() appends for a selection (to reserve them).
int64_t flat_segments(const VarGeometry& var, const Selection& sel);

// Segments in posting order -> disjoint segments sorted by offset, the later
// of two overlapping ones winning.
std::vector<Segment> resolve_overlaps(std::vector<Segment> posted);

// One write of all segments (given in posting order: on overlap the later
// one wins). Collective calls are made by every rank, with or without segments.
// `all_end`: in a collective call, one past the last byte any rank writes,
// when the ranks agreed it before (0: not known); then only the ranks that
// reach it extend the file first (MpiFile::extend_before_write).
Status write_segments(MpiFile& file, std::vector<Segment> segments, bool collective, int64_t all_end = 0);

// One read filling every segment (overlaps allowed).
Status read_segments(MpiFile& file, std::vector<Segment> segments, bool collective);

}  // namespace exa::io
