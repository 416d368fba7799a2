// `exacdf convert [-f cdf1|cdf2|cdf5|partitioned] [-q] IN OUT`: copies a
// file into another format -- dimensions, attributes, variables, data --
// through the ncmpi API. Each rank copies its share of every variable's
// first dimension. A progress bar goes to a terminal (rank 0's stderr) when
// the copy takes more than two seconds. Names with paths (partitioned files)
// become legal classic names and back by exa_classic_name / exa_path_name.
#include <exacdf.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "data_extent.hpp"
#include "mpi_check.hpp"
#include "nc_error.hpp"
#include "nc_mpi_type.hpp"
#include "subcommands.hpp"
#include "var_slabs.hpp"

namespace exa::tool {
namespace {

constexpr const char* kUsage =
    "usage: exacdf convert [-f cdf1|cdf2|cdf5|partitioned] [-q] IN OUT\n"
    "       exacdf convert -h\n"
    "  -f   format of OUT (default: partitioned for a classic IN, cdf5 for a partitioned one)\n"
    "  -q   no progress bar\n"
    "Names: the classic formats allow no '/' in names. Converting a partitioned file to\n"
    "cdf1/cdf2/cdf5, the name of a dimension or variable loses its leading\n"
    "'/', every other '/' becomes \"__\" and a '_' followed by '_', '-' or '/' becomes \"_-\"\n"
    "(/g00000/x -> g00000__x, a__b -> a_-_b); converting to partitioned reverses it.\n"
    "Names without '/', \"__\" or \"_-\" and attribute names are kept (docs/format.md,\n"
    "\"Converting to classic formats\").\n";

// How names change between IN and OUT.
enum class NameMap { kSame, kToClassic, kFromClassic };

NameMap name_map_for(int in_format, int cmode) {
  const bool in_partitioned = in_format == EXA_FORMAT_PARTITIONED_V1;
  const bool out_partitioned = (cmode & EXA_FORMAT_PARTITIONED) != 0;
  if (in_partitioned == out_partitioned) return NameMap::kSame;
  return out_partitioned ? NameMap::kFromClassic : NameMap::kToClassic;
}

// The name in OUT of a dimension or variable named `name` in IN.
std::string out_name(const char* name, NameMap map) {
  if (map == NameMap::kSame) return name;
  std::vector<char> buf(EXA_MAX_PATH + NC_MAX_NAME + 2);
  if (map == NameMap::kToClassic) {
    nc_check(exa_classic_name(name, buf.data()), std::string("classic name of ") + name);
  } else {
    nc_check(exa_path_name(name, buf.data()), std::string("path name of ") + name);
  }
  return buf.data();
}

int cmode_for(const std::string& f, int in_format, bool* ok) {
  *ok = true;
  if (f == "cdf1") return NC_CLOBBER;
  if (f == "cdf2") return NC_CLOBBER | NC_64BIT_OFFSET;
  if (f == "cdf5") return NC_CLOBBER | NC_64BIT_DATA;
  if (f == "partitioned") return NC_CLOBBER | EXA_FORMAT_PARTITIONED;
  if (f.empty())
    return in_format == EXA_FORMAT_PARTITIONED_V1 ? NC_CLOBBER | NC_64BIT_DATA
                                                  : NC_CLOBBER | EXA_FORMAT_PARTITIONED;
  *ok = false;
  return 0;
}

void copy_atts(int in, int in_var, int out, int out_var) {
  int natts = 0;
  nc_check(ncmpi_inq_varnatts(in, in_var, &natts), "ncmpi_inq_varnatts");
  for (int a = 0; a < natts; ++a) {
    char name[NC_MAX_NAME + 1];
    nc_check(ncmpi_inq_attname(in, in_var, a, name), "ncmpi_inq_attname");
    nc_check(ncmpi_copy_att(in, in_var, name, out, out_var), std::string("attribute ") + name);
  }
}

// A bar on rank 0's terminal, shown once the conversion has taken more than
// kDelay (a short conversion prints nothing, and never to a file or pipe).
class Progress {
 public:
  explicit Progress(bool enabled) : enabled_(enabled), start_(Clock::now()) {}
  void show(int done, int total) {
    if (!enabled_) return;
    if (!drawn_ && Clock::now() - start_ < kDelay) return;
    drawn_ = true;
    const int width = 40, filled = total ? width * done / total : width;
    std::fprintf(stderr, "\rconverting [%.*s%*s] %d/%d variables", filled,
                 "########################################", width - filled, "", done, total);
    std::fflush(stderr);
  }
  void finish(int total) {
    if (!drawn_) return;
    show(total, total);
    std::fputc('\n', stderr);
  }

 private:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::seconds kDelay{2};
  bool enabled_, drawn_ = false;
  Clock::time_point start_;
};

// Closes the files of a conversion that stopped on an error (the output, never
// completed, is removed by ncmpi_abort).
struct OpenFiles {
  int in = -1, out = -1;
  ~OpenFiles() {
    if (out >= 0) ncmpi_abort(out);
    if (in >= 0) ncmpi_close(in);
  }
};

void convert(const std::string& in_path, const std::string& out_path, const std::string& format,
             bool quiet, int rank, int nprocs) {
  Progress bar(!quiet && rank == 0 && isatty(fileno(stderr)));
  OpenFiles files;
  int& in = files.in;
  int& out = files.out;
  int in_format = 0;
  nc_check(ncmpi_open(MPI_COMM_WORLD, in_path.c_str(), NC_NOWRITE, MPI_INFO_NULL, &in), in_path);
  nc_check(ncmpi_inq_format(in, &in_format), "ncmpi_inq_format");
  if (const DataExtent extent = data_extent(in, in_path); extent.far_too_short())
    throw NcError(NC_ETRUNC, in_path + ": data section shorter than the header describes (" + extent.describe() + ")");
  bool ok = false;
  const int cmode = cmode_for(format, in_format, &ok);
  if (!ok) throw NcError(NC_EINVAL, "format '" + format + "'");
  nc_check(ncmpi_create(MPI_COMM_WORLD, out_path.c_str(), cmode, MPI_INFO_NULL, &out), out_path);
  nc_check(ncmpi_set_fill(out, NC_NOFILL, nullptr), "ncmpi_set_fill");
  const NameMap map = name_map_for(in_format, cmode);
  int ndims = 0, nvars = 0, ngatts = 0, unlimdim = -1;
  nc_check(ncmpi_inq(in, &ndims, &nvars, &ngatts, &unlimdim), "ncmpi_inq");
  std::vector<char> name(EXA_MAX_PATH + NC_MAX_NAME + 2);
  for (int d = 0; d < ndims; ++d) {
    MPI_Offset len = 0;
    int id = -1;
    nc_check(ncmpi_inq_dim(in, d, name.data(), &len), "ncmpi_inq_dim");
    const std::string new_name = out_name(name.data(), map);
    nc_check(ncmpi_def_dim(out, new_name.c_str(), d == unlimdim ? NC_UNLIMITED : len, &id),
             std::string("dimension ") + name.data());
  }
  copy_atts(in, NC_GLOBAL, out, NC_GLOBAL);  // (attribute names have no paths: kept)
  for (int v = 0; v < nvars; ++v) {
    nc_type type = NC_NAT;
    int nd = 0, id = -1;
    std::vector<int> dimids(NC_MAX_VAR_DIMS > 1024 ? 1024 : NC_MAX_VAR_DIMS);
    nc_check(ncmpi_inq_var(in, v, name.data(), &type, &nd, dimids.data(), nullptr), "ncmpi_inq_var");
    nc_check(ncmpi_def_var(out, out_name(name.data(), map).c_str(), type, nd, dimids.data(), &id),
             std::string("variable ") + name.data());
    copy_atts(in, v, out, id);
  }
  nc_check(ncmpi_enddef(out), "ncmpi_enddef");
  // Data: ids are the same in both files (defined in the same order).
  nc_check(ncmpi_begin_indep_data(in), "ncmpi_begin_indep_data");
  nc_check(ncmpi_begin_indep_data(out), "ncmpi_begin_indep_data");
  int failed = NC_NOERR;
  for (int v = 0; v < nvars; ++v) {
    bar.show(v, nvars);
    if (failed != NC_NOERR) continue;  // keep the collective calls below matched
    try {
      VarShape vs = var_shape(in, v);
      const MPI_Datatype mtype = mpi_type_of(vs.type);
      failed = for_each_slab(in, v, vs, size_t(64) << 20, rank, nprocs,
                             [&](const MPI_Offset* start, const MPI_Offset* count, const void* values) {
                               bar.show(v, nvars);
                               MPI_Offset n = 1;
                               for (size_t d = 0; d < vs.shape.size(); ++d) n *= count[d];
                               return ncmpi_put_vara(out, v, start, count, values, n, mtype);
                             });
      if (failed == NC_ERANGE) failed = NC_NOERR;
    } catch (const NcError& e) {
      failed = e.code();
    } catch (const std::exception&) {
      failed = NC_ENOMEM;
    }
  }
  bar.finish(nvars);
  ncmpi_end_indep_data(out);
  ncmpi_end_indep_data(in);
  int worst = failed;
  mpi_check(MPI_Allreduce(&failed, &worst, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
  const int closed_out = ncmpi_close(out);
  out = -1;
  const int closed_in = ncmpi_close(in);
  in = -1;
  nc_check(closed_out, "ncmpi_close " + out_path);
  nc_check(closed_in, "ncmpi_close " + in_path);
  nc_check(worst, "copying data");
}

}  // namespace

int convert_main(int argc, char** argv) {
  std::string format;
  bool quiet = false;
  if (argc == 2 && std::strcmp(argv[1], "--help") == 0) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  optind = 1;
  opterr = 0;
  for (int c; (c = getopt(argc, argv, "f:qh")) != -1;) {
    if (c == 'h') {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (c == 'f') {
      format = optarg;
    } else if (c == 'q') {
      quiet = true;
    } else {
      std::fputs(kUsage, stderr);
      return 2;
    }
  }
  if (optind != argc - 2) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  int rank = 0, nprocs = 1;
  mpi_check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
  mpi_check(MPI_Comm_size(MPI_COMM_WORLD, &nprocs), "MPI_Comm_size");
  try {
    convert(argv[optind], argv[optind + 1], format, quiet, rank, nprocs);
  } catch (const NcError& e) {
    if (rank == 0) std::fprintf(stderr, "exacdf convert: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {  // e.g. no memory: an error, never a crash
    std::fprintf(stderr, "exacdf convert: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace exa::tool
