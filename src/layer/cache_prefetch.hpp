// The cache connector's read prefetch, the MPI-free part (unit-tested):
// boxes of a variable, the access history of one variable and the stride it
// predicts, ghost zones, and copying a selection out of a prefetched box.
// The connector (cache_connector.cpp) fetches the predicted boxes into the
// fast tier and serves covered reads from there.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

namespace exa::layer::prefetch {

// Part of a variable: per dimension the first index and how many.
struct Box {
  std::vector<int64_t> start, count;
  int64_t elements() const;
  bool empty() const { return elements() == 0; }
  bool operator==(const Box&) const = default;
};

// The smallest box holding every element a selection reaches (stride null:
// 1); empty when a count is 0.
Box bounding_box(size_t ndims, const int64_t* start, const int64_t* count, const int64_t* stride);

// Whether every element of `inner` lies in `outer`.
bool covers(const Box& outer, const Box& inner);

// The box grown by ghost[d] on both sides of dimension d and clipped to
// [0, dims[d]) (empty when nothing of it is left).
Box grown(const Box& b, const std::vector<int64_t>& ghost, const std::vector<int64_t>& dims);

// The ghost widths of a variable of ndims dimensions from the setting
// (`ghost=1,1,1`): one value applies to every dimension, n values to the last
// n dimensions (the ones before get 0; a longer list keeps its last ndims).
std::vector<int64_t> ghost_for(const std::vector<int64_t>& setting, size_t ndims);

// The access history of one variable: the reads' bounding boxes. A stride is
// established when two successive reads moved by the same step (of their
// starts, or of their ends: reads clipped at an edge); it predicts the next
// boxes from the last read, until another pair of equal steps establishes
// another one. A read off the stride is the wrap of a chunk loop to its next
// row: the steps made since the previous wrap are the row's run, and the
// prediction wraps by the same step after as many steps.
class History {
 public:
  void note(const Box& b);
  // The next `depth` boxes (the last read's shape, moved by the stride), or
  // none without an established stride. A last read clipped at the lower
  // edge (start 0, smaller than the reads before) predicts the full size.
  std::vector<Box> predict(int depth) const;
  // Whether a stride is established, and the last reads (up to three).
  bool has_stride() const { return !stride_.empty(); }
  const std::deque<Box>& last() const { return last_; }

 private:
  std::deque<Box> last_;          // the last three reads
  std::vector<int64_t> stride_;   // established step (empty: none)
  std::vector<int64_t> wrap_;     // the last step off the stride (empty: none)
  int64_t run_ = 0;               // strides between the last two wraps (0: unknown)
  int64_t since_wrap_ = 0;        // strides since the last wrap
};

// The chunk a read holds, as a chunk loop reading with the ghost zone
// `ghost` reads it: the read less the ghost zone on every side not at one of
// the variable's edges (dims); the read itself when narrower than that.
// Chunks are regular where reads clipped at the edges are not.
Box core_of(const Box& read, const std::vector<int64_t>& ghost, const std::vector<int64_t>& dims);

// Before a stride is established: the next `depth` reads guessed from the
// first one or two reads of a variable (`last`, oldest first), knowing the
// variable's shape and the ghost zone the reads carry. A read is taken as a
// chunk (its core: the read less `ghost` on each side not at an edge) grown
// by the ghost zone. After one read: the chunk loop runs along the innermost
// dimension the chunk does not fill, by the core's extent. After two: by the
// step between their cores. Guesses stop at the variable's edges (no wrap).
std::vector<Box> guess(const std::deque<Box>& last, const std::vector<int64_t>& ghost,
                       const std::vector<int64_t>& dims, int depth);

// A chunk loop over a regular grid of the variable, in row-major order
// (each rank its share of it): when the last reads' chunks (`cores`, oldest
// first, at least two) all lie on the grid of their largest shape -- each
// starts at a multiple of it and has its size or ends at the variable's edge
// -- and their linear chunk indexes moved by the same positive step, the
// next `depth` chunks by that step, across the ends of rows and planes (the
// loop's wraps at every level), up to the variable's last chunk. Else none.
std::vector<Box> grid_predict(const std::deque<Box>& cores, const std::vector<int64_t>& dims, int depth);

// The byte extents of a box in a classic file: `pitch[d]` bytes between
// successive indexes of dimension d (the last: the element size; the first
// of a record variable: the record size), the first element at `begin`.
// Runs closer than `gap` bytes are merged into one extent (reading the gap
// costs less than another request). Offset-ordered pairs (offset, length).
std::vector<std::pair<int64_t, int64_t>> extents(const Box& box, const std::vector<int64_t>& pitch, int64_t begin,
                                                 int64_t gap);

// Whether two boxes of one variable share an element.
bool overlaps(const Box& a, const Box& b);

// Copies the elements of the selection (start, count, stride; within `box`)
// out of the box's values (row-major, `elem` bytes each) into `out`, packed
// in the selection's order.
void gather(const Box& box, const uint8_t* values, int64_t elem, size_t ndims, const int64_t* start,
            const int64_t* count, const int64_t* stride, uint8_t* out);

}  // namespace exa::layer::prefetch
