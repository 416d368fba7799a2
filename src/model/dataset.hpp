// The in-memory dataset of one open file: its classic header (dims, vars,
// attributes), name indexes, and the define-time rules of the netCDF data
// model. Purely local: no MPI. The io layer reads and writes it; the native
// connector decides when.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "format/classic_header.hpp"
#include "format/layout.hpp"
#include "model/name_index.hpp"
#include "util/status.hpp"

namespace exa::model {

class Dataset {
 public:
  explicit Dataset(format::Version version = format::Version::kCdf1);
  // Adopts a decoded header (after open); rebuilds the name indexes.
  explicit Dataset(format::Header header);

  const format::Header& header() const { return header_; }
  format::Header& mutable_header() { return header_; }
  format::Version version() const { return header_.version; }

  int ndims() const { return static_cast<int>(header_.dims.size()); }
  int nvars() const { return static_cast<int>(header_.vars.size()); }
  // Id of the unlimited dimension, or -1.
  int unlimited_dim() const { return unlimited_dim_; }
  // Id of a named dimension/variable, or -1.
  int find_dim(std::string_view name) const;
  int find_var(std::string_view name) const;
  bool valid_dim(int id) const { return id >= 0 && id < ndims(); }
  bool valid_var(int id) const { return id >= 0 && id < nvars(); }
  bool is_record_var(int varid) const;

  // Define calls. Each validates as PnetCDF does and changes nothing on error.
  Status def_dim(std::string_view name, int64_t length, int* id);
  Status def_var(std::string_view name, nc_type type, std::span<const int> dimids, int* id);
  // Renames; in data mode (define_mode false) the new name may not be longer.
  Status rename_dim(int id, std::string_view name, bool define_mode);
  Status rename_var(int id, std::string_view name, bool define_mode);

  // Attribute list of a variable or of the file (NC_GLOBAL); NC_ENOTVAR if invalid.
  Status att_list(int varid, const std::vector<format::Attribute>** out) const;
  // Finds an attribute; NC_ENOTVAR / NC_ENOTATT.
  Status find_att(int varid, std::string_view name, const format::Attribute** out,
                  int* attnum = nullptr) const;
  // Creates or replaces an attribute whose values are already external.
  // In data mode only an existing attribute may be replaced, and not by a
  // larger one (NC_ENOTINDEFINE), as PnetCDF documents.
  Status put_att(int varid, std::string_view name, nc_type xtype, int64_t nelems,
                 std::vector<uint8_t> xvalues, bool define_mode);
  Status del_att(int varid, std::string_view name);
  Status rename_att(int varid, std::string_view name, std::string_view new_name,
                    bool define_mode);

  // Per-variable fill setting of ncmpi_def_var_fill (the value itself is the
  // _FillValue attribute). Default: fill enabled, decided by the file's mode.
  bool var_no_fill(int varid) const { return var_no_fill_[static_cast<size_t>(varid)] != 0; }
  void set_var_no_fill(int varid, bool no_fill) {
    var_no_fill_[static_cast<size_t>(varid)] = no_fill ? 1 : 0;
  }
  // The fill value of a variable in external form: its _FillValue or the default.
  std::vector<uint8_t> fill_value_external(int varid) const;

  // A partitioned-format file (docs/format.md): dimension and variable names
  // may carry a path ("/event1/x").
  bool partitioned() const { return partitioned_; }
  void set_partitioned(bool p) { partitioned_ = p; }
  void set_layout(const format::Layout& layout) { layout_ = layout; }

  // Layout as last computed (valid in data mode). compute_layout places the
  // variables in file order.
  const format::Layout& layout() const { return layout_; }
  Status compute_layout(const format::LayoutHints& hints, const format::Layout* previous);

  // File order. The ids this dataset hands out (local ids) are the positions
  // in header().dims/vars. They equal the positions in the file (global ids)
  // unless an independent-define enddef appended objects other ranks defined:
  // then each rank keeps its own ids and the file order is this permutation,
  // file position -> local id. Ids beyond the permutation map to themselves.
  int file_dim_id(int file_pos) const;
  int file_var_id(int file_pos) const;
  // Local id -> file position, for every dimension (or variable).
  std::vector<int> dim_file_positions() const;
  std::vector<int> var_file_positions() const;
  void set_file_order(std::vector<int> dims, std::vector<int> vars);
  const std::vector<int>& file_dim_order() const { return dim_order_; }
  const std::vector<int>& file_var_order() const { return var_order_; }
  bool file_order_is_identity() const { return dim_order_.empty() && var_order_.empty(); }
  // A copy of the header in file order, and the same encoded.
  format::Header file_header() const;
  std::vector<uint8_t> encode_file_header() const;

  // Objects merged in from other ranks (independent define mode). They take
  // the next local ids; names must be new (the merge checked them).
  int append_dim(format::Dimension dim);
  int append_var(format::Variable var, bool no_fill);
  // Undoes appends: keeps only the first ndims dimensions and nvars variables.
  void truncate(int ndims, int nvars);
  // Replaces the global attribute list.
  void set_global_atts(std::vector<format::Attribute> atts) { header_.gatts = std::move(atts); }
  // Derives the layout from the begins and vsizes of a decoded header (after open).
  void adopt_layout_from_header();

  // Number of records (the unlimited dimension's current length).
  int64_t numrecs() const { return header_.numrecs; }
  void set_numrecs(int64_t n) { header_.numrecs = n; }

 private:
  std::vector<format::Attribute>* mutable_att_list(int varid);
  void rebuild_indexes();
  auto dim_name_of() const {
    return [this](int id) -> std::string_view { return header_.dims[static_cast<size_t>(id)].name; };
  }
  auto var_name_of() const {
    return [this](int id) -> std::string_view { return header_.vars[static_cast<size_t>(id)].name; };
  }
  // Reorders dims and vars: element i of the result is old element perm[i].
  void permute(const std::vector<int>& dim_perm, const std::vector<int>& var_perm);
  std::vector<int> full_dim_order() const;
  std::vector<int> full_var_order() const;

  format::Header header_;
  format::Layout layout_;
  NameIndex dim_index_;
  NameIndex var_index_;
  std::vector<uint8_t> var_no_fill_;
  std::vector<int> dim_order_;  // file position -> local id; empty: identity
  std::vector<int> var_order_;
  int unlimited_dim_ = -1;
  bool partitioned_ = false;
  Status check_object_name(std::string_view name) const;
};

}  // namespace exa::model
