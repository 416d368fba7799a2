// CDL text for names, attribute values and data values, written the way
// netCDF-C's ncdump writes them, so `exacdf dump` output is byte-identical.
// Pure string functions: no I/O, no MPI, no library calls.
#pragma once

#include <pnetcdf.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace exa::cdl {

/** CDL keyword of a primitive type ("byte", ..., "uint64"), or nullptr if unknown. */
const char* type_name(nc_type type);

/** Size in bytes of one value of a primitive type in memory, 0 if unknown. */
std::size_t type_size(nc_type type);

/** A name with the characters special to CDL backslash-escaped (and a leading digit). */
std::string escape_name(std::string_view name);

/** The dataset name ncdump derives from a path: last component, last extension removed. */
std::string dataset_name_from_path(std::string_view path);

/**
 * Removes trailing zeros after the decimal point of a printed number, keeping the
 * point itself ("1.000000e+30f" -> "1.e+30f").  ncdump's rule for %#g output.
 */
void trim_fraction_zeros(std::string& number);

/**
 * A text attribute as a quoted CDL string: trailing NULs dropped, escapes for
 * control characters, and a string break after every embedded newline.
 */
std::string format_att_text(std::string_view text);

/** Numeric attribute values, comma separated, with CDL type suffixes (b, s, f, UB, LL...). */
std::string format_att_numbers(nc_type type, const void* values, std::size_t count);

/** Appends one character of text data in CDL string syntax (without quotes). */
void append_text_data_char(std::string& out, unsigned char c);

/**
 * How one data value of a variable is printed: ncdump's default printf format for
 * the type, or the variable's C_format attribute when that is a safe format for it.
 */
class DataValueFormat {
 public:
  /** Default format for `type`, or `c_format` if it passes validation for the type. */
  DataValueFormat(nc_type type, const std::optional<std::string>& c_format);

  /** Appends one value (of the variable's type, at `value`) to `out`. */
  void append(std::string& out, const void* value) const;

  /** True when char data is printed as strings along the last dimension. */
  bool text_as_strings() const { return text_as_strings_; }

 private:
  nc_type type_;
  std::string fmt_;
  bool text_as_strings_ = false;
};

/**
 * True if `fmt` holds exactly one printf conversion that is valid for a value of
 * `type` after default argument promotion, so it can be passed to snprintf safely.
 */
bool is_safe_c_format(std::string_view fmt, nc_type type);

/**
 * The fill value a variable's data is compared against, following ncdump: the
 * _FillValue attribute when it has the variable's type and one value, otherwise
 * the type's default fill, and none at all for byte and ubyte.
 */
class FillMatcher {
 public:
  FillMatcher() = default;
  /** `fill` points at one value of `type`, or is nullptr for "no fill value". */
  FillMatcher(nc_type type, const void* fill);

  /** True if `value` counts as the fill value (floats within one epsilon, NaN == NaN). */
  bool matches(const void* value) const;

 private:
  nc_type type_ = NC_NAT;
  bool active_ = false;
  alignas(8) unsigned char fill_[8] = {};
};

/** The default fill value of `type` in `out` (8 bytes); false for byte/ubyte/unknown. */
bool default_fill_for_dump(nc_type type, void* out);

}  // namespace exa::cdl
