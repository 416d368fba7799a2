// The in-memory dataset of one open file: its classic header (dims, vars,
// attributes), name indexes, and the define-time rules of the netCDF data
// model. Purely local: no MPI. The io layer reads and writes it; the native
// connector decides when.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "format/classic_header.hpp"
#include "format/layout.hpp"
#include "format/partitioned.hpp"
#include "format/partitioned_index.hpp"
#include "model/id_map.hpp"
#include "model/path_name_index.hpp"
#include "util/status.hpp"

namespace exa::model {

class Dataset {
 public:
  explicit Dataset(format::Version version = format::Version::kCdf1);
  // Adopts a decoded header (after open); rebuilds the name indexes.
  explicit Dataset(format::Header header);

  // The whole header. A lazily opened partitioned file keeps only the
  // objects of the blocks it loaded: its header() has the global attributes
  // and numrecs but no dimensions or variables; use dim() and var().
  const format::Header& header() const { return header_; }
  format::Header& mutable_header() { return header_; }
  format::Version version() const { return header_.version; }

  int ndims() const { return lazy_ ? int(lazy_->ndims) : static_cast<int>(header_.dims.size()); }
  int nvars() const { return lazy_ ? int(lazy_->nvars) : static_cast<int>(header_.vars.size()); }
  // A dimension or variable by id, which must be valid (valid_dim/valid_var
  // checked it, which loads it in a lazy dataset).
  const format::Dimension& dim(int id) const;
  const format::Variable& var(int id) const;
  // Elements of one record of a valid variable (all of a fixed-size one),
  // and its bytes in external form: saturate at INT64_MAX.
  int64_t record_elements(int varid) const;
  int64_t var_bytes(int varid) const;
  // Id of the unlimited dimension, or -1.
  int unlimited_dim() const { return unlimited_dim_; }
  // Id of a named dimension/variable, or -1.
  int find_dim(std::string_view name) const;
  int find_var(std::string_view name) const;
  // Whether an id is valid. In a lazily opened partitioned file this also
  // loads the object's metadata block (and, for a variable, the blocks of
  // its dimensions): check an id before reading header().dims/vars at it.
  bool valid_dim(int id) const { return id >= 0 && id < ndims() && load_dim(id); }
  bool valid_var(int id) const { return id >= 0 && id < nvars() && load_var(id); }
  // valid_var as a status: NC_ENOTVAR, or why the variable's block could not be read.
  Status check_var(int id) const {
    const int64_t failures = load_failures();
    if (valid_var(id)) return Status::ok();
    if (load_failures() != failures) return lazy_status();
    return {NC_ENOTVAR, "invalid variable id"};
  }
  bool is_record_var(int varid) const;

  // Define calls. Each validates as PnetCDF does and changes nothing on error.
  Status def_dim(std::string_view name, int64_t length, int* id);
  // def_var checks in PnetCDF's order: name, type, ndims < 0 (NC_EINVAL), name
  // in use, null dimids (NC_EINVAL), dimension ids, unlimited position.
  Status def_var(std::string_view name, nc_type type, int ndims, const int* dimids, int* id);
  Status def_var(std::string_view name, nc_type type, std::span<const int> dimids, int* id) {
    return def_var(name, type, static_cast<int>(dimids.size()), dimids.data(), id);
  }
  Status check_var_size(nc_type type, std::span<const int> dimids) const;
  // Renames; in data mode (define_mode false) the new name may not be longer.
  Status rename_dim(int id, std::string_view name, bool define_mode);
  Status rename_var(int id, std::string_view name, bool define_mode);

  // Attribute list of a variable or of the file (NC_GLOBAL); NC_ENOTVAR if invalid.
  Status att_list(int varid, const std::vector<format::Attribute>** out) const;
  // The arguments of a new attribute value in PnetCDF's order: owner
  // (NC_ENOTVAR), name (NC_EBADNAME), type (NC_EBADTYPE / NC_ESTRICTCDF2).
  Status check_att_args(int varid, std::string_view name, nc_type xtype) const;
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
  // (An opened file is in data mode, where fill does not apply: no fill.)
  bool var_no_fill(int varid) const { return lazy_ || var_no_fill_[static_cast<size_t>(varid)] != 0; }
  void set_var_no_fill(int varid, bool no_fill) {
    if (lazy_) return;  // data mode: nothing to fill
    var_no_fill_[static_cast<size_t>(varid)] = no_fill ? 1 : 0;
  }
  // The fill value of a variable in external form: its _FillValue or the default.
  std::vector<uint8_t> fill_value_external(int varid) const;

  // A partitioned-format file (docs/format.md): dimension and variable names
  // may carry a path ("/event1/x").
  bool partitioned() const { return partitioned_; }

  // Lazy open of a partitioned file: the dataset knows the counts (from
  // the superblock) and the index table, which loads its pages on use; each
  // block is read (by `read`) and decoded the first time one of its objects
  // is asked for, by id or by name, and only its objects are kept. The root
  // block is given at once (the global attributes).
  using BlockReader =
      std::function<Status(const format::partitioned::BlockEntry& entry, format::partitioned::Block* out)>;
  Status open_lazily(std::shared_ptr<format::partitioned::PagedIndex> index, format::partitioned::Block root,
                     BlockReader read);
  // After an enddef in which each block was written by the one rank that
  // defined it (layer/native_private_blocks.cpp): the dataset keeps this
  // rank's own objects under the ids its define calls returned and becomes
  // lazy over the new index for everything else, whose ids follow in file
  // order (model::IdMap). dim_positions[id] / var_positions[id]: the global
  // ids of the own objects; own_blocks: the index positions of their blocks.
  // Costs O(own objects), not O(file).
  Status keep_own_go_lazy(std::shared_ptr<format::partitioned::PagedIndex> index, format::partitioned::Block root,
                          BlockReader read, std::vector<int64_t> dim_positions,
                          std::vector<int64_t> var_positions, const std::vector<size_t>& own_blocks);
  // Lazy datasets: a variable's global id (its position in the file), and
  // the variable at a position.
  int64_t var_position(int id) const { return lazy_ ? lazy_->vars_map.global(id) : id; }
  int var_at_position(int64_t pos) const { return lazy_ ? int(lazy_->vars_map.local(pos)) : int(pos); }
  // Blocks read so far (lazy datasets); the number of failed block loads and
  // the last failure (a failed block fails again, without another read).
  int64_t blocks_loaded() const;
  int64_t load_failures() const { return lazy_ ? lazy_->failures : 0; }
  Status lazy_status() const;
  // Loads every block (whole-file operations: redef, num_rec_vars).
  Status load_all() const;
  bool lazy() const { return lazy_ != nullptr; }
  // Lazy datasets: the index page holding variable `id` if it is not
  // loaded yet, else -1 (no I/O); the block holding it if it is not loaded
  // yet (nor failed before), else -1 (loads its page).
  int64_t unloaded_page_of_var(int id) const;
  int64_t unloaded_block_of_var(int id) const;
  // Which blocks are loaded (1) or not (0), by index position; empty when
  // the dataset is not lazy.
  std::vector<uint8_t> loaded_blocks() const;
  // Decodes and applies a block read elsewhere (read once and shared by a
  // collective call); a block already loaded is left as it is.
  Status supply_block(size_t block, std::span<const uint8_t> bytes);
  // The data of a compact variable that came with its block (lazy datasets),
  // handed over once: false if there is none (not loaded, or taken).
  bool take_compact_data(int id, std::vector<uint8_t>* out) const;
  // Whether it holds compact data take_compact_data has not taken yet.
  bool holds_compact_data() const { return lazy_ && !lazy_->compact.empty(); }
  // After every block is loaded: the dataset stops being lazy and can be
  // changed like any other (redef). NC_EINTERNAL if a block is missing.
  Status end_lazy();
  void set_partitioned(bool p) { partitioned_ = p; }
  void set_layout(const format::Layout& layout) { layout_ = layout; }
  // The current record section of a partitioned file moved to
  // record_begin (an index-block commit put index bytes where the records
  // would grow, docs/format.md "Index blocks"): every record variable known
  // so far gets begin + delta; blocks loaded later carry their new begin.
  // The layout's begin_rec and sections are the caller's (set_layout).
  void move_current_records(int64_t record_begin, int64_t delta);

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
  // The whole permutation, file position -> local id, for every object.
  std::vector<int> full_dim_order() const;
  std::vector<int> full_var_order() const;
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
    return [this](int id) -> std::string_view { return dim(id).name; };
  }
  auto var_name_of() const {
    return [this](int id) -> std::string_view { return var(id).name; };
  }
  // Reorders dims and vars: element i of the result is old element perm[i].
  void permute(const std::vector<int>& dim_perm, const std::vector<int>& var_perm);

  mutable format::Header header_;  // mutable: lazy loads fill it in
  format::Layout layout_;
  // Lazily opened partitioned files (open_lazily); null otherwise.
  struct Lazy {
    std::shared_ptr<format::partitioned::PagedIndex> index;
    int64_t ndims = 0, nvars = 0;  // in the file
    // The objects of a loaded block; their global ids start at first_dim/first_var.
    struct Objects {
      int64_t first_dim = 0, first_var = 0;
      std::vector<format::Dimension> dims;
      std::vector<format::Variable> vars;
    };
    std::unordered_map<size_t, Objects> blocks;  // by index position
    // Local ids <-> global ids (identity after an open); the objects of
    // own_blocks are this rank's own, kept in header_ (local ids below
    // dims_map.own() / vars_map.own()).
    IdMap dims_map, vars_map;
    std::unordered_set<size_t> own_blocks;
    BlockReader read;
    int64_t record_begin = 0, record_size = 0;  // the superblock's record section
    std::map<size_t, Status> failed;  // blocks that could not be loaded, and why
    std::map<int, std::vector<uint8_t>> compact;  // compact data of loaded blocks, by id, until taken
    Status error;                     // the last failed load
    int64_t failures = 0;
    int64_t nloaded = 0;
  };
  Status go_lazy(std::shared_ptr<Lazy> lazy, format::partitioned::Block root);
  bool own_dim(int id) const { return id < lazy_->dims_map.own(); }
  bool own_var(int id) const { return id < lazy_->vars_map.own(); }
  bool load_dim(int id) const;
  bool load_var(int id) const;
  bool load_block(size_t block) const;
  // A lazy dataset's loaded objects (the id's block is loaded).
  format::Dimension& lazy_dim(int id) const;
  format::Variable& lazy_var(int id) const;
  format::Variable& mutable_var(int id) { return lazy_ ? lazy_var(id) : header_.vars[size_t(id)]; }
  format::Dimension& mutable_dim(int id) { return lazy_ ? lazy_dim(id) : header_.dims[size_t(id)]; }
  // Every object of a lazy dataset, in id order, as one header.
  format::Header materialize() const;
  bool load_block_of_name(std::string_view name) const;
  bool fail_lazily(Status st) const;
  Status apply_block(size_t block, format::partitioned::Block b) const;
  std::shared_ptr<Lazy> lazy_;
  mutable PathNameIndex dim_index_;
  mutable PathNameIndex var_index_;
  std::vector<uint8_t> var_no_fill_;
  std::vector<int> dim_order_;  // file position -> local id; empty: identity
  std::vector<int> var_order_;
  int unlimited_dim_ = -1;
  bool partitioned_ = false;
  Status check_object_name(std::string_view name) const;
  mutable std::string last_valid_path_;  // the group path check_object_name accepted last
};

}  // namespace exa::model
