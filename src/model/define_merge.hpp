// Independent define mode, the MPI-free half of the merge at enddef.
//
// Each rank describes the objects it defined since the last enddef by
// fixed-size records (two 64-bit name hashes, content digests, sizes). The
// layer sends each record to the rank its name hash picks; that rank sorts
// what it received and compares only names defined on several ranks. The
// lowest defining rank owns a shared object; the others drop their copy.
// Owners then send their objects' full metadata to every rank as payloads,
// and every rank appends the objects it did not define itself. Global ids
// (file positions) follow rank order, then each rank's definition order, so
// the file is the one the same definitions made collectively in that order
// would give. The MPI half is layer/native_merge.cpp.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "model/dataset.hpp"
#include "util/status.hpp"

namespace exa::model {

enum ObjectKind : int32_t { kDimObject = 0, kVarObject = 1, kGlobalAttObject = 2 };

// One new object, as sent to the rank that checks its name.
struct ObjectRecord {
  uint64_t name_hash[2];
  uint64_t shape;    // dimension: length; variable: digest of its dimension names; attribute: nelems
  uint64_t content;  // variable: digest of its attributes; attribute: digest of its values
  int32_t kind;      // ObjectKind
  int32_t rank;      // the defining rank
  int32_t index;     // position in that rank's new objects of this kind
  int32_t type;      // variable, attribute: external type
  int32_t ndims;     // variable
  int32_t natts;     // variable
  int32_t no_fill;   // variable
  int32_t unused;
};
static_assert(sizeof(ObjectRecord) == 64, "records travel as 64-byte units");

// A record that lost to a lower rank's definition of the same object.
struct DroppedRecord {
  int32_t kind;
  int32_t index;
};

// Where the objects defined since the last enddef start: dimensions and
// variables with these local ids or higher, global attributes from this
// position in the list on.
struct NewObjectBase {
  int ndims = 0;
  int nvars = 0;
  int ngatts = 0;
};

// Records of this rank's new objects: dimensions, then variables, then global attributes.
std::vector<ObjectRecord> describe_new_objects(const Dataset& ds, const NewObjectBase& base,
                                               int rank);

// Digest of the objects that existed at the last enddef, in file order, with
// their current names, attributes and fill settings.
uint64_t digest_old_objects(const Dataset& ds, const NewObjectBase& base);

// Collective define mode: every rank defined the whole file, and all must
// have defined it alike. One digest per aspect, in the order they are
// checked; definition_conflict(k) is the NC_EMULTIDEFINE_* code of aspect k
// (DIM_NUM, DIM_NAME, DIM_SIZE, VAR_NUM, VAR_NAME, VAR_NDIMS, VAR_TYPE,
// VAR_DIMIDS, VAR_FILL_MODE, ATTR_NUM, ATTR_VAL).
inline constexpr size_t kDefinitionAspects = 11;
std::array<uint64_t, kDefinitionAspects> digest_definitions(const Dataset& ds);
Status definition_conflict(size_t aspect);

// The rank that checks a record.
int checking_rank(const ObjectRecord& record, int nprocs);

// Sorts the records one rank received and checks every name defined on
// several ranks against the lowest rank's definition. dropped[r] receives the
// records of rank r that lose. Returns the first conflict in sort order
// (NC_EMULTIDEFINE_DIM_SIZE, _VAR_TYPE, _VAR_NDIMS, _VAR_DIMIDS,
// _VAR_FILL_MODE, _ATTR_NUM, _ATTR_TYPE, _ATTR_LEN, _ATTR_VAL).
Status check_records(std::vector<ObjectRecord>& records,
                     std::vector<std::vector<DroppedRecord>>* dropped);

// What a rank defined and which of it it owns, by kind.
struct OwnObjects {
  std::vector<int> dims;   // owned new dimensions, local ids in definition order
  std::vector<int> vars;   // owned new variables
  std::vector<int> gatts;  // owned new global attributes, list positions
};

// Payloads of the objects a rank owns (native byte order: they never leave the job).
std::vector<uint8_t> encode_dims(const Dataset& ds, std::span<const int> dim_ids);
// Variables refer to dimensions by file position (dim_file_pos: local id -> position).
std::vector<uint8_t> encode_vars_and_gatts(const Dataset& ds, std::span<const int> var_ids,
                                           const std::vector<int>& dim_file_pos,
                                           std::span<const int> gatt_indexes);

// Applies every rank's dimension payload (segments in rank order) to ds:
// appends the dimensions this rank did not define, checks the shared ones it
// defined but does not own, and sets the dimension file order. NC_EUNLIMIT
// when the merged file would have two unlimited dimensions.
// `own` lists what this rank owns (its payload is segments[my_rank]).
Status apply_dims(Dataset& ds, const NewObjectBase& base, const OwnObjects& own, int my_rank,
                  std::span<const std::span<const uint8_t>> segments);

// The same for variables and global attributes; apply_dims must have run.
Status apply_vars_and_gatts(Dataset& ds, const NewObjectBase& base, const OwnObjects& own,
                            int my_rank, std::span<const std::span<const uint8_t>> segments);

// Global attributes alone (the enddef of layer/native_private_blocks.cpp,
// where blocks need no merge): a rank's list as a payload, and every rank's
// lists (segments in rank order) merged into one: each name where the
// lowest rank defined it, in rank order, then definition order. A name
// defined differently on two ranks: NC_EMULTIDEFINE_ATTR_TYPE, _LEN or _VAL.
std::vector<uint8_t> encode_global_atts(const Dataset& ds);
Status merge_global_atts(std::span<const std::span<const uint8_t>> segments,
                         std::vector<format::Attribute>* out);

// Saved state for undoing a merge that failed after it changed the dataset.
struct MergeMark {
  int ndims = 0;
  int nvars = 0;
  std::vector<format::Attribute> gatts;
  std::vector<int> dim_order, var_order;
};
MergeMark mark_for_merge(const Dataset& ds);
void undo_merge(Dataset& ds, MergeMark mark);

}  // namespace exa::model
