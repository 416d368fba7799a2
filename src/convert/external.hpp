// Conversion between memory values and the external (big-endian XDR)
// representation of the classic formats, with netCDF's range rules.
// Memory types are named by the nc_type whose native C type they are
// (NC_BYTE = signed char, NC_UBYTE = unsigned char, NC_CHAR = char text,
// NC_SHORT = short, NC_USHORT, NC_INT = int, NC_UINT, NC_FLOAT, NC_DOUBLE,
// NC_INT64 = long long, NC_UINT64 = unsigned long long; C long maps to
// NC_INT64 on LP64). No MPI, no I/O.
#pragma once

#include <cstdint>
#include <cstring>

#include "convert/value_range.hpp"
#include "exacdf_nc_constants.h"
#include "util/status.hpp"

namespace exa::convert {

// Bytes of one native value of a memory type (0 if the type is unknown).
int64_t native_size(nc_type mem_type);

// Whether values of mem_type may be converted to/from external type xtype:
// NC_CHAR only with NC_CHAR; numeric with numeric. Gives NC_ECHAR otherwise,
// NC_EBADTYPE for unknown types.
Status check_convertible(nc_type mem_type, nc_type xtype);

// What an element that gives NC_ERANGE becomes. PnetCDF 1.12.3 as Debian
// builds it (erange-fill) stores a fill value there and still returns
// NC_ERANGE: on a put into a variable, the variable's fill value (its
// _FillValue, else its type's default); on a get, the default fill value of
// the memory type; on an attribute put, the default of the attribute's type.
// keep_converted() leaves the converted value of the rules above instead
// (exacdf hint exa_erange_fill=disable).
class ErangeFill {
 public:
  // The default fill value (NC_FILL_*) of the destination type.
  static ErangeFill type_default() { return ErangeFill(Kind::kTypeDefault); }
  // A put into a variable whose fill value is `xfill` (`size` bytes,
  // external form: Dataset::fill_value_external). A size that is not that of
  // the external type falls back to the type's default.
  static ErangeFill value(const void* xfill, int64_t size) {
    ErangeFill f(Kind::kValue);
    f.size_ = size > 0 && size <= 8 ? size : 0;
    if (f.size_ > 0) std::memcpy(f.xvalue_, xfill, static_cast<size_t>(f.size_));
    return f;
  }
  static ErangeFill keep_converted() { return ErangeFill(Kind::kKeep); }

  bool keeps_converted() const { return kind_ == Kind::kKeep; }
  // The external bytes of value(), when they are `size` bytes; else null.
  const unsigned char* external_value(int64_t size) const {
    return kind_ == Kind::kValue && size_ == size ? xvalue_ : nullptr;
  }

 private:
  enum class Kind { kTypeDefault, kValue, kKeep };
  explicit ErangeFill(Kind kind) : kind_(kind) {}
  Kind kind_;
  int64_t size_ = 0;
  unsigned char xvalue_[8] = {};
};

// Range rules (those of PnetCDF 1.12.3 / netCDF-C ncx.m4, checked against
// the system libpnetcdf by tests/unit/test_convert_oracle.cpp). Which value an
// NC_ERANGE element becomes is chosen by ErangeFill (below): by default the
// fill value, as Debian's PnetCDF (built with erange-fill) stores it; the
// values named here are those ErangeFill::keep_converted() leaves:
//  - integer -> integer: NC_ERANGE when the value is outside the destination
//    type (negative -> unsigned included); the element is the C cast (modular).
//  - integer -> float/double: never NC_ERANGE. float -> double: NC_ERANGE
//    for +-inf in to_external only (PnetCDF checks against +-DBL_MAX there);
//    the element is still +-inf.
//  - double -> float: NC_ERANGE when |v| > FLT_MAX (inf included, NaN not).
//    to_external writes the C cast (+-inf); from_external writes +-FLT_MAX,
//    as PnetCDF does without PNETCDF_ERANGE_FILL.
//  - float/double -> integer: NC_ERANGE when v > (double)MAX or v < (double)MIN
//    (MIN = 0 for unsigned, so -0.5 -> unsigned is NC_ERANGE, -0.0 is not);
//    in-range values are truncated toward zero. Where PnetCDF's C cast is
//    undefined we write a defined value: out-of-range elements saturate to
//    MIN/MAX; NaN (never NC_ERANGE in PnetCDF) gives the bytes PnetCDF writes
//    on x86-64 (INT32_MIN for int, 0x8000000000000000 for int64/uint64, 0 for
//    the others); exactly 2^63 -> int64 and 2^64 -> uint64 (no NC_ERANGE in
//    PnetCDF, because (double)INT64_MAX == 2^63) saturate to the maximum.
//  - unsigned char memory <-> external NC_BYTE: in CDF-1/CDF-2 the bytes are
//    taken as they are, never NC_ERANGE; in CDF-5 NC_BYTE is a signed byte and
//    values > 127 (put) / < 0 (get) give NC_ERANGE. The bytes are the same
//    either way; only the return code depends on the format (`cdf5`).
// NC_ERANGE is reported once for the call; all elements are converted (those
// that give it become what ErangeFill says).
// n < 0, or `in` and `out` overlapping other than exactly, give NC_EINVAL;
// types are checked as check_convertible does.

// Converts n values from memory (mem_type) to external form (xtype,
// big-endian) in `out`, with the range rules above. `in` and `out` may be
// the same buffer only when the native and external sizes are equal.
// `cdf5` selects the CDF-5 rule for unsigned char -> NC_BYTE; `fill` what an
// NC_ERANGE element becomes.
Status to_external(const void* in, nc_type mem_type, nc_type xtype, int64_t n, void* out,
                   bool cdf5, const ErangeFill& fill = ErangeFill::type_default());

// As above with the CDF-1/CDF-2 rule (unsigned char -> NC_BYTE unchecked)
// and the external type's default fill.
Status to_external(const void* in, nc_type mem_type, nc_type xtype, int64_t n, void* out);

// As the first to_external, and widens *range (when not null) by the values
// written to `out` as xtype (fill values included), taken block by block in
// the same pass (convert/value_range.hpp).
Status to_external(const void* in, nc_type mem_type, nc_type xtype, int64_t n, void* out,
                   bool cdf5, const ErangeFill& fill, SegmentedRange* range);

// Converts n external values (xtype, big-endian) to memory (mem_type), with
// the range rules above; same aliasing rule as to_external. `cdf5` selects
// the CDF-5 rule for NC_BYTE -> unsigned char; `fill` what an NC_ERANGE
// element becomes (PnetCDF: the memory type's default fill).
Status from_external(const void* in, nc_type xtype, nc_type mem_type, int64_t n, void* out,
                     bool cdf5, const ErangeFill& fill = ErangeFill::type_default());

// As above with the CDF-1/CDF-2 rule (NC_BYTE -> unsigned char unchecked)
// and the memory type's default fill.
Status from_external(const void* in, nc_type xtype, nc_type mem_type, int64_t n, void* out);

// Reverses the byte order of n elements of elem_size bytes in place (any
// size; 2, 4 and 8 are the fast paths, 1 and n <= 0 do nothing). This is the
// external <-> native step for same-type data on a little-endian host.
void swap_bytes_in_place(void* buf, int64_t elem_size, int64_t n);
// Copies n elements of elem_size bytes from src to dst (not overlapping)
// with each one's bytes reversed, with a vector byte shuffle; false (nothing
// done) where there is none (SSE2 alone, a big-endian host, sizes other
// than 2, 4, 8): the caller's own loop then does it.
bool swap_bytes_copy(const void* src, void* dst, int64_t elem_size, int64_t n);

// swap_bytes_in_place for n native values of type xtype (the same-type put),
// widening *range (when not null) by them, block by block in the same pass.
void swap_to_external_in_place(void* buf, nc_type xtype, int64_t n, SegmentedRange* range);

// Writes the default fill value of xtype (NC_FILL_*) in external form to out
// (native_size(xtype) bytes; nothing for an unknown type).
void default_fill_external(nc_type xtype, void* out);

}  // namespace exa::convert
