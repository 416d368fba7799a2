// `exacdf dump [-h] [-c] [-k] [-v var1,...] [-n name] [-l len] FILE`: options, opening
// the file, and the error messages; the CDL itself comes from cdl_dump.
#include <pnetcdf.h>
#include <unistd.h>

#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "cdl_dump.hpp"
#include "cdl_format.hpp"
#include "data_extent.hpp"
#include "nc_error.hpp"
#include "subcommands.hpp"

namespace exa::tool {
namespace {

constexpr const char* kUsage =
    "usage: exacdf dump [-h] [-c] [-k] [-v var1[,...]] [-n name] [-l len] FILE\n"
    "  -h             header only, no data\n"
    "  -c             header and data of coordinate variables only\n"
    "  -k             print the kind of file: classic, 64-bit offset, cdf5\n"
    "  -v var1[,...]  data of the named variables only\n"
    "  -n name        name after 'netcdf' (default: from the file name)\n"
    "  -l len         line length of the data section (default 80)\n";

struct DumpArgs {
  cdl::DumpOptions cdl;
  bool kind_only = false;
  bool name_given = false;
  std::string path;
};

std::vector<std::string> split_names(const std::string& list) {
  std::vector<std::string> names;
  std::size_t begin = 0;
  while (begin <= list.size()) {
    const std::size_t end = std::min(list.find(',', begin), list.size());
    if (end > begin) names.push_back(list.substr(begin, end - begin));
    begin = end + 1;
  }
  return names;
}

// Returns 0 and fills `args`, or the exit status for a usage error.
int parse_args(int argc, char** argv, DumpArgs& args) {
  optind = 1;
  opterr = 0;
  int c = 0;
  while ((c = getopt(argc, argv, "hckv:n:l:")) != -1) {
    switch (c) {
      case 'h': args.cdl.header_only = true; break;
      case 'c': args.cdl.coordinates_only = true; break;
      case 'k': args.kind_only = true; break;
      case 'v': {
        const auto names = split_names(optarg);
        args.cdl.vars.insert(args.cdl.vars.end(), names.begin(), names.end());
        break;
      }
      case 'n':
        args.cdl.dataset_name = optarg;
        args.name_given = true;
        break;
      case 'l': {
        char* end = nullptr;
        const long len = std::strtol(optarg, &end, 0);
        if (end == optarg || *end != '\0' || len < 10 || len > 1000000) {
          std::fprintf(stderr, "exacdf dump: unreasonable line length: %s\n", optarg);
          return 2;
        }
        args.cdl.max_line_len = static_cast<int>(len);
        break;
      }
      default:
        if (optopt != '?') std::fprintf(stderr, "exacdf dump: bad option -%c\n", optopt);
        std::fputs(kUsage, stderr);
        return 2;
    }
  }
  if (argc - optind != 1) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  args.path = argv[optind];
  // Testing knob: tiny read pieces exercise the chunked reader on small files.
  if (const char* chunk = std::getenv("EXACDF_DUMP_CHUNK_BYTES"); chunk != nullptr) {
    const long long bytes = std::atoll(chunk);
    if (bytes > 0) args.cdl.read_chunk_bytes = static_cast<std::size_t>(bytes);
  }
  if (!args.name_given) args.cdl.dataset_name = cdl::dataset_name_from_path(args.path);
  return 0;
}

const char* kind_name(int format) {
  switch (format) {
    case NC_FORMAT_CLASSIC: return "classic";
    case NC_FORMAT_64BIT_OFFSET: return "64-bit offset";
    case NC_FORMAT_64BIT_DATA: return "cdf5";
    case NC_FORMAT_NETCDF4: return "netCDF-4";
    case NC_FORMAT_NETCDF4_CLASSIC: return "netCDF-4 classic model";
    default: return nullptr;
  }
}

// Prints the dump of an open file; returns the exit status.
int dump_open_file(int ncid, const DumpArgs& args) {
  if (args.kind_only) {
    int format = 0;
    nc_check(ncmpi_inq_format(ncid, &format), args.path);
    const char* kind = kind_name(format);
    if (kind == nullptr) {
      std::fprintf(stderr, "exacdf dump: %s: unrecognized file format %d\n", args.path.c_str(), format);
      return 1;
    }
    std::printf("%s\n", kind);
    return 0;
  }
  for (const std::string& name : args.cdl.vars) {
    int varid = 0;
    const int status = ncmpi_inq_varid(ncid, name.c_str(), &varid);
    if (status != NC_NOERR) {
      std::fprintf(stderr, "exacdf dump: %s: No such variable (%s)\n", name.c_str(),
                   ncmpi_strerror(status));
      return 1;
    }
  }
  if (!args.cdl.header_only) {
    // Values past the end of a file print as zeros (as ncdump) only a bounded
    // amount: a header describing far more data than exists is an error.
    const DataExtent extent = data_extent(ncid, args.path);
    if (extent.far_too_short()) {
      std::fprintf(stderr, "exacdf dump: %s: data section shorter than the header describes (%s); -h prints the header\n",
                   args.path.c_str(), extent.describe().c_str());
      return 1;
    }
  }
  cdl::dump_cdl(ncid, args.cdl, stdout);
  return 0;
}

}  // namespace

int dump_main(int argc, char** argv) {
  DumpArgs args;
  if (const int status = parse_args(argc, argv, args); status != 0) return status;

  static char out_buffer[1 << 16];
  std::setvbuf(stdout, out_buffer, _IOFBF, sizeof out_buffer);

  int ncid = -1;
  const int open_status = ncmpi_open(MPI_COMM_SELF, args.path.c_str(), NC_NOWRITE, MPI_INFO_NULL, &ncid);
  if (open_status != NC_NOERR) {
    std::fprintf(stderr, "exacdf dump: %s: %s\n", args.path.c_str(), ncmpi_strerror(open_status));
    return 1;
  }
  int status = 1;
  try {
    status = dump_open_file(ncid, args);
  } catch (const NcError& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "exacdf dump: %s: %s\n", args.path.c_str(), e.what());
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "exacdf dump: %s: %s\n", args.path.c_str(), e.what());
  }
  ncmpi_close(ncid);
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::fprintf(stderr, "exacdf dump: error writing output\n");
    return 1;
  }
  return status;
}

}  // namespace exa::tool
