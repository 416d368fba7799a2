#include "cdl_dump.hpp"

#include <pnetcdf.h>

#include <algorithm>
#include <array>
#include <optional>
#include <string_view>

#include "cdl_format.hpp"
#include "cdl_writer.hpp"
#include "nc_error.hpp"
#include "nc_typed_io.hpp"

namespace exa::cdl {
namespace {

using tool::nc_check;

struct DimInfo {
  std::string name;
  MPI_Offset len = 0;
  bool unlimited = false;
};

struct VarInfo {
  std::string name;
  nc_type type = NC_NAT;
  std::vector<int> dimids;
  int natts = 0;
};

// Variable names that CDL would misread before ":" (see the ncgen manual); ncdump 4.9
// separates them from the colon with a space.
bool is_cdl_keyword(std::string_view name) {
  static constexpr std::array<std::string_view, 5> kKeywords = {"variables", "dimensions", "data",
                                                                "group", "types"};
  return std::find(kKeywords.begin(), kKeywords.end(), name) != kKeywords.end();
}

std::string inq_name(int status, const char* buf, const std::string& context) {
  nc_check(status, context);
  return std::string(buf);
}

class CdlDumper {
 public:
  CdlDumper(int ncid, const DumpOptions& options, std::FILE* out)
      : ncid_(ncid), options_(options), w_(out, options.max_line_len) {}

  void run() {
    load_schema();
    w_.raw("netcdf " + escape_name(options_.dataset_name) + " {\n");
    print_dimensions();
    print_variables();
    print_global_attributes();
    if (!options_.header_only && !vars_.empty()) {
      w_.raw("data:\n");
      for (int varid = 0; varid < static_cast<int>(vars_.size()); ++varid) {
        if (wants_data(varid)) print_var_data(varid);
      }
    }
    w_.raw("}\n");
  }

 private:
  void load_schema() {
    int ndims = 0, nvars = 0, unlimdim = -1;
    nc_check(ncmpi_inq(ncid_, &ndims, &nvars, &ngatts_, &unlimdim), "inquiring dataset");
    char name[NC_MAX_NAME + 1] = {};
    for (int d = 0; d < ndims; ++d) {
      DimInfo dim;
      dim.name = inq_name(ncmpi_inq_dim(ncid_, d, name, &dim.len), name, "dimension");
      dim.unlimited = d == unlimdim;
      dims_.push_back(std::move(dim));
    }
    for (int v = 0; v < nvars; ++v) {
      VarInfo var;
      int nd = 0;
      nc_check(ncmpi_inq_varndims(ncid_, v, &nd), "variable");
      var.dimids.resize(static_cast<std::size_t>(nd));
      var.name = inq_name(
          ncmpi_inq_var(ncid_, v, name, &var.type, nullptr, var.dimids.data(), &var.natts), name,
          "variable");
      if (type_name(var.type) == nullptr) throw tool::NcError(NC_EBADTYPE, "variable " + var.name);
      vars_.push_back(std::move(var));
    }
  }

  void print_dimensions() {
    if (dims_.empty()) return;
    w_.raw("dimensions:\n");
    for (const DimInfo& dim : dims_) {
      std::string line = "\t" + escape_name(dim.name) + " = ";
      if (dim.unlimited) {
        line += "UNLIMITED ; // (" + std::to_string(static_cast<long long>(dim.len)) + " currently)\n";
      } else {
        line += std::to_string(static_cast<unsigned long long>(dim.len)) + " ;\n";
      }
      w_.raw(line);
    }
  }

  void print_variables() {
    if (vars_.empty()) return;
    w_.raw("variables:\n");
    for (int varid = 0; varid < static_cast<int>(vars_.size()); ++varid) {
      const VarInfo& var = vars_[static_cast<std::size_t>(varid)];
      std::string line = "\t" + std::string(type_name(var.type)) + " " + escape_name(var.name);
      for (std::size_t i = 0; i < var.dimids.size(); ++i) {
        line += i == 0 ? "(" : ", ";
        line += escape_name(dims_.at(static_cast<std::size_t>(var.dimids[i])).name);
      }
      line += var.dimids.empty() ? " ;\n" : ") ;\n";
      w_.raw(line);
      for (int a = 0; a < var.natts; ++a) print_attribute(varid, var.name, a);
    }
  }

  void print_global_attributes() {
    if (ngatts_ <= 0) return;
    w_.raw("\n// global attributes:\n");
    for (int a = 0; a < ngatts_; ++a) print_attribute(NC_GLOBAL, "", a);
  }

  void print_attribute(int varid, const std::string& varname, int attnum) {
    char buf[NC_MAX_NAME + 1] = {};
    const std::string name =
        inq_name(ncmpi_inq_attname(ncid_, varid, attnum, buf), buf, "attribute of " + varname);
    nc_type type = NC_NAT;
    MPI_Offset len = 0;
    nc_check(ncmpi_inq_att(ncid_, varid, name.c_str(), &type, &len), "attribute " + name);
    std::string line = "\t\t" + escape_name(varname);
    if (is_cdl_keyword(varname)) line += ' ';
    line += ":" + escape_name(name) + " = ";
    if (len == 0) {
      line += "\"\"";  // ncdump shows every empty attribute as an empty string
    } else {
      const std::vector<unsigned char> values = tool::read_att_values(ncid_, varid, name, type, len);
      if (type == NC_CHAR) {
        line += format_att_text(
            std::string_view(reinterpret_cast<const char*>(values.data()), values.size()));
      } else {
        line += format_att_numbers(type, values.data(), static_cast<std::size_t>(len));
      }
    }
    line += " ;\n";
    w_.raw(line);
  }

  bool is_coordinate_var(const VarInfo& var) const {
    if (var.dimids.size() != 1) return false;
    return std::any_of(dims_.begin(), dims_.end(),
                       [&](const DimInfo& dim) { return dim.name == var.name; });
  }

  bool wants_data(int varid) const {
    const VarInfo& var = vars_[static_cast<std::size_t>(varid)];
    if (!options_.vars.empty() &&
        std::find(options_.vars.begin(), options_.vars.end(), var.name) == options_.vars.end()) {
      return false;
    }
    return !options_.coordinates_only || is_coordinate_var(var);
  }

  FillMatcher fill_matcher(int varid, const VarInfo& var) const {
    nc_type type = NC_NAT;
    MPI_Offset len = 0;
    if (ncmpi_inq_att(ncid_, varid, "_FillValue", &type, &len) == NC_NOERR && type == var.type &&
        len == 1) {
      const auto value = tool::read_att_values(ncid_, varid, "_FillValue", type, 1);
      return FillMatcher(var.type, value.data());
    }
    alignas(8) unsigned char fill[8] = {};
    return default_fill_for_dump(var.type, fill) ? FillMatcher(var.type, fill) : FillMatcher();
  }

  // The C_format attribute, which ncdump uses as the printf format of the data.
  std::optional<std::string> c_format(int varid) const {
    nc_type type = NC_NAT;
    MPI_Offset len = 0;
    if (ncmpi_inq_att(ncid_, varid, "C_format", &type, &len) != NC_NOERR || type != NC_CHAR ||
        len == 0 || len >= 100) {
      return std::nullopt;
    }
    const auto text = tool::read_att_values(ncid_, varid, "C_format", type, len);
    std::string fmt(text.begin(), text.end());
    fmt.resize(fmt.find('\0') == std::string::npos ? fmt.size() : fmt.find('\0'));
    return fmt;
  }

  void print_var_data(int varid);

  int ncid_;
  const DumpOptions& options_;
  CdlWriter w_;
  int ngatts_ = 0;
  std::vector<DimInfo> dims_;
  std::vector<VarInfo> vars_;
};

// Streams one variable's values into rows along its last dimension, wrapping and
// delimiting them like ncdump.  Fed values in row-major order, in any chunking.
class RowPrinter {
 public:
  RowPrinter(CdlWriter& w, nc_type type, const DataValueFormat& format, const FillMatcher& fill,
             std::size_t ncols, std::size_t nrows)
      : w_(w), size_(type_size(type)), format_(format), fill_(fill), ncols_(ncols), nrows_(nrows) {}

  void feed(const void* values, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(values);
    for (std::size_t i = 0; i < n; ++i, p += size_) {
      if (format_.text_as_strings()) {
        text_value(*p);
      } else {
        numeric_value(p);
      }
    }
  }

 private:
  void numeric_value(const unsigned char* p) {
    item_.clear();
    if (fill_.matches(p)) {
      item_ = "_";
    } else {
      format_.append(item_, p);
    }
    if (col_ + 1 < ncols_) {
      item_ += ", ";
      w_.item(item_);
      ++col_;
    } else {
      w_.item(item_);
      end_row();
    }
  }

  // Text rows print as one string; trailing NULs of a row are dropped, so NULs are
  // held back until a later non-NUL character shows they are embedded.
  void text_value(unsigned char c) {
    if (col_ == 0) {
      text_ = "\"";
      pending_nuls_ = 0;
    }
    if (c == 0) {
      ++pending_nuls_;
    } else {
      for (; pending_nuls_ > 0; --pending_nuls_) append_text_data_char(text_, 0);
      append_text_data_char(text_, c);
    }
    if (text_.size() > (std::size_t{1} << 16)) {
      w_.raw(text_);
      text_.clear();
    }
    if (col_ + 1 < ncols_) {
      ++col_;
    } else {
      text_ += '"';
      w_.raw(text_);
      end_row();
    }
  }

  void end_row() {
    if (row_ + 1 == nrows_) {
      w_.item(" ;");
      w_.item("\n");
    } else {
      w_.item(",\n");
      w_.item("  ");
    }
    col_ = 0;
    ++row_;
  }

  CdlWriter& w_;
  std::size_t size_;
  const DataValueFormat& format_;
  const FillMatcher& fill_;
  std::size_t ncols_;
  std::size_t nrows_;
  std::size_t col_ = 0;
  std::size_t row_ = 0;
  std::size_t pending_nuls_ = 0;
  std::string item_;
  std::string text_;
};

void CdlDumper::print_var_data(int varid) {
  const VarInfo& var = vars_[static_cast<std::size_t>(varid)];
  std::vector<MPI_Offset> shape;
  for (int dimid : var.dimids) {
    MPI_Offset len = 0;
    nc_check(ncmpi_inq_dimlen(ncid_, dimid, &len), "dimension of " + var.name);
    if (len == 0) return;  // no records yet: ncdump prints nothing for the variable
    shape.push_back(len);
  }
  const FillMatcher fill = fill_matcher(varid, var);
  const DataValueFormat format(var.type, c_format(varid));

  w_.raw("\n " + escape_name(var.name));
  if (shape.size() <= 1) {
    w_.raw(" = ");
    w_.set_column(var.name.size() + 4);
  } else {
    w_.raw(" =\n  ");
    w_.set_column(2);
  }
  std::size_t total = 1;
  for (MPI_Offset len : shape)
    if (__builtin_mul_overflow(total, static_cast<std::size_t>(len), &total))
      throw tool::NcError(NC_EINTOVERFLOW, "number of values of " + var.name);
  const std::size_t ncols = shape.empty() ? 1 : static_cast<std::size_t>(shape.back());
  RowPrinter rows(w_, var.type, format, fill, ncols, total / ncols);
  tool::read_var_in_chunks(ncid_, varid, var.type, shape, options_.read_chunk_bytes,
                           [&](const void* values, std::size_t n) { rows.feed(values, n); });
}

}  // namespace

void dump_cdl(int ncid, const DumpOptions& options, std::FILE* out) {
  CdlDumper(ncid, options, out).run();
}

}  // namespace exa::cdl
