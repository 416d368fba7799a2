// Big-endian (XDR) primitives for the classic header codec: a writer that
// appends to a byte vector and a bounds-checked reader over a byte span.
// Header-only so the codecs inline them.
#pragma once

#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace exa::format::xdr {

// Rounds n up to a multiple of 4 (the classic format's padding unit).
constexpr int64_t round4(int64_t n) { return (n + 3) & ~int64_t{3}; }

// Appends big-endian values to a byte vector.
class Writer {
 public:
  explicit Writer(std::vector<uint8_t>& out) : out_(out) {}

  void u8(uint8_t v) { out_.push_back(v); }
  void u32(uint32_t v) {
    const uint8_t b[4] = {uint8_t(v >> 24), uint8_t(v >> 16), uint8_t(v >> 8), uint8_t(v)};
    out_.insert(out_.end(), b, b + 4);
  }
  void u64(uint64_t v) {
    const uint8_t b[8] = {uint8_t(v >> 56), uint8_t(v >> 48), uint8_t(v >> 40), uint8_t(v >> 32),
                          uint8_t(v >> 24), uint8_t(v >> 16), uint8_t(v >> 8),  uint8_t(v)};
    out_.insert(out_.end(), b, b + 8);
  }
  // A 4-byte or 8-byte unsigned field, the width depending on the version.
  void uint(uint64_t v, int width) { width == 8 ? u64(v) : u32(uint32_t(v)); }
  void bytes(std::span<const uint8_t> b) { out_.insert(out_.end(), b.begin(), b.end()); }
  void bytes(std::string_view s) { out_.insert(out_.end(), s.begin(), s.end()); }
  // Zero bytes up to the next multiple of 4 of the count just written.
  void pad(int64_t written) {
    for (int64_t i = written; i < round4(written); ++i) out_.push_back(0);
  }

 private:
  std::vector<uint8_t>& out_;
};

// Reads big-endian values from a span. A read past the end fails without
// moving, and remembers how many bytes in total it would have needed, so a
// caller can ask for more input.
class Reader {
 public:
  explicit Reader(std::span<const uint8_t> bytes) : bytes_(bytes) {}

  int64_t pos() const { return pos_; }
  int64_t remaining() const { return int64_t(bytes_.size()) - pos_; }
  // Total bytes the failed read needed (0 if no read ran short).
  int64_t need() const { return need_; }

  bool u32(uint32_t* v) {
    if (!have(4)) return false;
    uint32_t r = 0;
    for (int i = 0; i < 4; ++i) r = (r << 8) | bytes_[size_t(pos_ + i)];
    pos_ += 4;
    *v = r;
    return true;
  }
  bool u64(uint64_t* v) {
    if (!have(8)) return false;
    uint64_t r = 0;
    for (int i = 0; i < 8; ++i) r = (r << 8) | bytes_[size_t(pos_ + i)];
    pos_ += 8;
    *v = r;
    return true;
  }
  // A 4-byte or 8-byte unsigned field, widened to 64 bits.
  bool uint(uint64_t* v, int width) {
    if (width == 8) return u64(v);
    uint32_t w = 0;
    if (!u32(&w)) return false;
    *v = w;
    return true;
  }
  // A view of the next n bytes (n <= remaining()).
  bool view(int64_t n, std::span<const uint8_t>* out) {
    if (!have(n)) return false;
    *out = bytes_.subspan(size_t(pos_), size_t(n));
    pos_ += n;
    return true;
  }
  // Skips the padding after n bytes. Padding content is not checked: files
  // from older netCDF, SciPy and netCDF-Java carry non-zero padding.
  bool skip_pad(int64_t n) {
    int64_t pad = round4(n) - n;
    if (!have(pad)) return false;
    pos_ += pad;
    return true;
  }

 private:
  bool have(int64_t n) {
    if (n <= remaining()) return true;
    need_ = n > INT64_MAX - pos_ ? INT64_MAX : pos_ + n;
    return false;
  }

  std::span<const uint8_t> bytes_;
  int64_t pos_ = 0;
  int64_t need_ = 0;
};

}  // namespace exa::format::xdr
