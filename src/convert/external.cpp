// to_external / from_external: argument checks, the raw-copy cases, and the
// one dispatch per call from (memory type, external type) to a loop instance
// of kernels.hpp, generated from the type table.
#include <algorithm>
#include <cstring>

#include "convert/double_to_float.hpp"
#include "convert/external.hpp"
#include "convert/kernels.hpp"
#include "convert/simd.hpp"
#include "convert/type_table.hpp"

namespace exa::convert {

namespace {

using Kernel = bool (*)(const unsigned char*, unsigned char*, int64_t, const unsigned char*);

template <Direction dir, class M>
Kernel kernel_for_external(nc_type xtype) {
  switch (xtype) {
#define EXA_CASE(code, type)                                      \
  case code:                                                      \
    if constexpr (dir == Direction::put)                          \
      return &convert_and_fill<M, type, Direction::put>;            \
    else                                                          \
      return &convert_and_fill<type, M, Direction::get>;
    EXA_CONVERT_NUMERIC_TYPES(EXA_CASE)
#undef EXA_CASE
    default: return nullptr;
  }
}

template <Direction dir>
Kernel kernel_for(nc_type mem_type, nc_type xtype) {
  switch (mem_type) {
#define EXA_CASE(code, type) \
  case code: return kernel_for_external<dir, type>(xtype);
    EXA_CONVERT_NUMERIC_TYPES(EXA_CASE)
#undef EXA_CASE
    default: return nullptr;
  }
}

// Pairs whose bytes are copied unchanged: text, and in CDF-1/CDF-2 unsigned
// char <-> NC_BYTE, which netCDF takes as raw bytes without a range check.
bool is_raw_copy(nc_type mem_type, nc_type xtype, bool cdf5) {
  if (mem_type == NC_CHAR) return true;  // check_convertible: xtype is NC_CHAR
  return !cdf5 && mem_type == NC_UBYTE && xtype == NC_BYTE;
}

Status erange() { return Status(NC_ERANGE, "convert: value out of range"); }

// The value an NC_ERANGE element of type `dst_type` becomes, in native order,
// into `native` (8 bytes); null when the converted value stays.
const unsigned char* native_fill(const ErangeFill& fill, nc_type dst_type, int64_t dsize,
                                 unsigned char* native) {
  if (fill.keeps_converted()) return nullptr;
  if (const unsigned char* x = fill.external_value(dsize))
    std::memcpy(native, x, static_cast<size_t>(dsize));
  else
    default_fill_external(dst_type, native);
  if constexpr (std::endian::native == std::endian::little) swap_bytes_in_place(native, dsize, 1);
  return native;
}

// The shared body of to_external and from_external: src/dst sizes are those
// of the source and destination elements for this direction.
// The range of what a put writes (when `range` is not null): taken from
// each block right after the block is converted, while it is in the cache.
// Same type: the source values themselves, in the swapping copy's own pass;
// otherwise the external values written (fill values included: exactly what
// the file holds).
template <Direction dir>
Status convert(const void* in, nc_type mem_type, nc_type xtype, int64_t n, void* out,
               bool cdf5, const ErangeFill& fill, SegmentedRange* range = nullptr) {
  if constexpr (dir == Direction::get) range = nullptr;
  EXA_RETURN_IF_ERROR(check_convertible(mem_type, xtype));
  if (n < 0) return Status(NC_EINVAL, "convert: negative element count");
  if (n == 0) return Status::ok();
  const int64_t msize = native_size(mem_type);
  const int64_t xsize = native_size(xtype);
  const int64_t ssize = dir == Direction::put ? msize : xsize;
  const int64_t dsize = dir == Direction::put ? xsize : msize;
  if (n > INT64_MAX / 8) return Status(NC_EINVAL, "convert: element count too large");

  const auto* src = static_cast<const unsigned char*>(in);
  auto* dst = static_cast<unsigned char*>(out);
  const bool same = src == dst;
  if (same && ssize != dsize)
    return Status(NC_EINVAL, "convert: in-place conversion between different sizes");
  if (!same) {
    auto s0 = reinterpret_cast<uintptr_t>(src), d0 = reinterpret_cast<uintptr_t>(dst);
    if (s0 < d0 + static_cast<uintptr_t>(n * dsize) && d0 < s0 + static_cast<uintptr_t>(n * ssize))
      return Status(NC_EINVAL, "convert: input and output overlap");
  }

  if (is_raw_copy(mem_type, xtype, cdf5)) {
    if (!same) std::memcpy(dst, src, static_cast<size_t>(n));
    if (range != nullptr) range->add_native(dst, xtype, n);  // (1-byte values; NC_CHAR: unknown)
    return Status::ok();
  }
  Kernel kernel = kernel_for<dir>(mem_type, xtype);
  // Same type in place: the conversion is the byte order alone. (Out of
  // place, the kernel's one-pass swapping copy beats memcpy + swap.)
  if (mem_type == xtype && same) {
    swap_to_external_in_place(dst, xtype, n, range);
    return Status::ok();
  }

  // Same type out of place: the swapping copy (byte shuffles), taking the
  // range in its pass.
  if (mem_type == xtype && range != nullptr) {
    range->swap_out(src, dst, xtype, n);
    return Status::ok();
  }
  if (mem_type == xtype && swap_bytes_copy(src, dst, xsize, n)) return Status::ok();

  alignas(8) unsigned char fill_bytes[8] = {};
  const unsigned char* fill_value =
      native_fill(fill, dir == Direction::put ? xtype : mem_type, dsize, fill_bytes);
  bool bad = false;
  // Doubles into a float variable: one vectorised pass that converts, swaps
  // and takes the range (double_to_float.hpp), where the CPU has AVX2.
  if constexpr (dir == Direction::put) {
    if (!same && mem_type == NC_DOUBLE && xtype == NC_FLOAT) {
      bool fused = true;
      if (range == nullptr) {
        fused = put_doubles_as_floats(src, dst, n, fill_value, nullptr, &bad);
      } else if (simd_level() == Simd::kAvx2) {
        range->each_piece(n, [&](int64_t off, int64_t m, ValueRange* seg) {
          put_doubles_as_floats(src + off * 8, dst + off * 4, m, fill_value, seg, &bad);
        });
      } else {
        fused = false;
      }
      if (fused) return bad ? erange() : Status::ok();
    }
  }
  if (!same && range == nullptr) {
    bad = kernel(src, dst, n, fill_value);
  } else if (!same) {
    for (int64_t base = 0; base < n; base += kRangeBlockElements) {
      const int64_t m = std::min(kRangeBlockElements, n - base);
      bad |= kernel(src + base * ssize, dst + base * dsize, m, fill_value);
      range->add_external(dst + base * dsize, xtype, m);  // (types differ here)
    }
  } else {
    // The loops take non-overlapping buffers (so they vectorize without
    // alias checks): stage in-place calls one block at a time.
    alignas(64) unsigned char block[kBlockElements * 8];
    for (int64_t base = 0; base < n; base += kBlockElements) {
      const int64_t m = std::min(kBlockElements, n - base);
      bad |= kernel(src + base * ssize, block, m, fill_value);
      if (range != nullptr) range->add_external(block, xtype, m);  // (types differ here)
      std::memcpy(dst + base * dsize, block, static_cast<size_t>(m * dsize));
    }
  }
  return bad ? erange() : Status::ok();
}

}  // namespace

Status to_external(const void* in, nc_type mem_type, nc_type xtype, int64_t n, void* out,
                   bool cdf5, const ErangeFill& fill) {
  return convert<Direction::put>(in, mem_type, xtype, n, out, cdf5, fill);
}

Status to_external(const void* in, nc_type mem_type, nc_type xtype, int64_t n, void* out,
                   bool cdf5, const ErangeFill& fill, SegmentedRange* range) {
  return convert<Direction::put>(in, mem_type, xtype, n, out, cdf5, fill, range);
}

Status to_external(const void* in, nc_type mem_type, nc_type xtype, int64_t n, void* out) {
  return convert<Direction::put>(in, mem_type, xtype, n, out, false, ErangeFill::type_default());
}

Status from_external(const void* in, nc_type xtype, nc_type mem_type, int64_t n, void* out,
                     bool cdf5, const ErangeFill& fill) {
  return convert<Direction::get>(in, mem_type, xtype, n, out, cdf5, fill);
}

Status from_external(const void* in, nc_type xtype, nc_type mem_type, int64_t n, void* out) {
  return convert<Direction::get>(in, mem_type, xtype, n, out, false, ErangeFill::type_default());
}

}  // namespace exa::convert
