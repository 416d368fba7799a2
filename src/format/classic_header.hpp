// The netCDF classic header (CDF-1, CDF-2, CDF-5) as plain data, and its
// pure codec: encode to and decode from bytes exactly as the netCDF classic
// format specification says. No MPI, no file I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "exacdf_nc_constants.h"
#include "util/status.hpp"

namespace exa::format {

// The classic format versions, numbered as the fourth byte of the magic.
enum class Version : int { kCdf1 = 1, kCdf2 = 2, kCdf5 = 5 };

// numrecs value meaning "streaming" (written by netCDF while a record write is in progress).
inline constexpr int64_t kStreamingNumrecs = -1;

// An attribute. Values are kept in external form (big-endian XDR), nelems
// elements of the external type, without the trailing padding.
struct Attribute {
  std::string name;
  nc_type type = NC_NAT;
  int64_t nelems = 0;
  std::vector<uint8_t> xvalues;
  bool operator==(const Attribute&) const = default;
};

// A dimension; length 0 (NC_UNLIMITED) marks the record dimension.
struct Dimension {
  std::string name;
  int64_t length = 0;
  bool operator==(const Dimension&) const = default;
};

// A variable. begin is the file offset of its first element. vsize is the
// variable's size in bytes (one record's worth for a record variable) rounded
// up to 4, as compute_layout sets it. encode() writes 2^32-1 instead in
// CDF-1/CDF-2 when vsize does not fit in 32 bits (the CDF-2 rule for a huge
// last variable).
// decode() keeps the value found in the file without trusting it (PnetCDF
// ignores it too; sizes always come from the dimensions).
struct Variable {
  std::string name;
  std::vector<int> dimids;
  std::vector<Attribute> atts;
  nc_type type = NC_NAT;
  int64_t vsize = 0;
  int64_t begin = 0;
  bool operator==(const Variable&) const = default;
};

// A whole classic header. dims/vars/gatts are in id order.
struct Header {
  Version version = Version::kCdf1;
  int64_t numrecs = 0;
  std::vector<Dimension> dims;
  std::vector<Attribute> gatts;
  std::vector<Variable> vars;
  bool operator==(const Header&) const = default;
};

// Size in bytes of one element of an external type in the classic formats
// (NC_CHAR is 1); 0 for a type the classic formats do not have.
int64_t external_size(nc_type type);

// Whether a type may appear in a file of this version (CDF-5 types only in CDF-5).
bool type_valid_for(nc_type type, Version version);

// Exact encoded size of the header in bytes (what encode() returns the size of).
int64_t encoded_size(const Header& header);

// The order in which objects are stored: file position -> index into
// Header::dims (Header::vars). An empty span is the identity. With a dims
// order, Variable::dimids are indexes into Header::dims and are written as
// the dimensions' positions.
struct FileOrder {
  std::span<const int> dims;
  std::span<const int> vars;
};

// Encodes the header. Padding bytes are zero. Counts above the version's
// limits are the caller's mistake (model checks them first).
std::vector<uint8_t> encode(const Header& header, const FileOrder& order = {});

// Result of decoding: on success, the header and the number of bytes it used.
struct DecodeResult {
  Status status;
  Header header;
  int64_t consumed = 0;
  // When status is NC_ENOTNC because bytes ran out, the number of bytes a
  // reader should offer next time (at least bytes.size() + 1); 0 otherwise.
  int64_t need_bytes = 0;
};

// Decodes a classic header from the start of a file. Never reads outside
// `bytes`; never allocates more than the input could describe. A prefix of a
// valid header yields NC_ENOTNC with need_bytes set, so a reader can fetch
// more and try again. Malformed input yields NC_ENOTNC (bad magic, bad tag,
// variable offsets below the header, out of order or overlapping, as
// PnetCDF's open checks them), NC_EBADDIM (dimension id out of range),
// NC_EUNLIMIT (two unlimited dimensions), NC_EUNLIMPOS (unlimited dimension
// not first), NC_EBADTYPE (unknown type or one the version lacks),
// NC_EMAXNAME (name longer than NC_MAX_NAME), NC_EBADNAME (illegal name),
// NC_ENAMEINUSE (two dimensions, two variables or two attributes of one list
// with the same name), NC_EMAXDIMS/NC_EMAXATTS/NC_EMAXVARS (count above
// INT_MAX), NC_EINVAL (a 64-bit size field with the sign bit set, or an
// attribute larger than 2^63 bytes), NC_EVARSIZE (variable too large for the
// version). Non-zero padding bytes are accepted.
DecodeResult decode(std::span<const uint8_t> bytes);

}  // namespace exa::format
