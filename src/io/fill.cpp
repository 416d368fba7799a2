#include "io/fill.hpp"

#include <algorithm>

#include "io/collective.hpp"

namespace exa::io {

namespace {

constexpr int64_t kFillBufferBytes = 4 << 20;

Status fill_range(MpiFile& file, int64_t offset, int64_t nbytes, const std::vector<uint8_t>& pattern) {
  const auto width = static_cast<int64_t>(pattern.size());
  int64_t buf_elems = std::max<int64_t>(1, std::min(nbytes, kFillBufferBytes) / width);
  std::vector<uint8_t> buf(static_cast<size_t>(buf_elems * width));
  for (int64_t i = 0; i < buf_elems; ++i)
    std::copy(pattern.begin(), pattern.end(), buf.begin() + i * width);
  for (int64_t done = 0; done < nbytes;) {
    int64_t n = std::min(nbytes - done, static_cast<int64_t>(buf.size()));
    EXA_RETURN_IF_ERROR(file.write_at(offset + done, buf.data(), n));
    done += n;
  }
  return Status::ok();
}

// Rank r of p writes part r of each region (p = 1: the whole region).
Status fill_parts(MpiFile& file, const std::vector<FillRegion>& regions, int64_t p, int64_t r) {
  Status st = file.use_byte_view();
  for (const FillRegion& region : regions) {
    const auto width = static_cast<int64_t>(region.pattern.size());
    if (width == 0 || region.nbytes <= 0) continue;
    int64_t elems = region.nbytes / width;
    int64_t lo = elems * r / p, hi = elems * (r + 1) / p;
    if (st.is_ok() && hi > lo)
      st = fill_range(file, region.offset + lo * width, (hi - lo) * width, region.pattern);
  }
  Status synced = file.sync_all();
  return agree(file.comm(), st.is_ok() ? synced : st);
}

}  // namespace

Status write_fill(MpiFile& file, const std::vector<FillRegion>& regions) {
  return fill_parts(file, regions, file.nprocs(), file.rank());
}

Status write_own_fill(MpiFile& file, const std::vector<FillRegion>& regions) {
  return fill_parts(file, regions, 1, 0);
}

}  // namespace exa::io
