// The `exacdf` command: initializes MPI and dispatches to a subcommand.
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <iterator>

#include "mpi_check.hpp"
#include "subcommands.hpp"

namespace {

struct Subcommand {
  const char* name;
  const char* summary;
  int (*run)(int argc, char** argv);
};

constexpr Subcommand kSubcommands[] = {
    {"dump", "print a dataset as CDL, like ncdump", exa::tool::dump_main},
    {"stat", "format, object counts, metadata size, blocks", exa::tool::stat_main},
    {"verify", "check metadata checksums and structure, read every value", exa::tool::verify_main},
    {"convert", "copy a file into another format (classic <-> partitioned)", exa::tool::convert_main},
    {"index", "build, drop or describe a variable's bitmap index", exa::tool::index_main},
    {"query", "count and list the elements matching a condition", exa::tool::query_main},
    {"trace", "summarize a trace connector report (JSON), draw it (--png)", exa::tool::trace_main},
    {"export-hdf5", "relations of a file or checkpoint into an HDF5 file", exa::tool::export_hdf5_main},
    {"recover", "replay the cache connector's undrained logs of a file", exa::tool::recover_main},
};

void print_usage(std::FILE* out) {
  std::fprintf(out, "usage: exacdf <command> [options] FILE\n\ncommands:\n");
  for (const Subcommand& cmd : kSubcommands) std::fprintf(out, "  %-10s %s\n", cmd.name, cmd.summary);
  std::fprintf(out, "\n'exacdf <command> -?' shows the options of a command.\n");
}

// Whether MPI call `call` failed (its return `err`); says so on stderr.
bool report_mpi(const char* call, int err) {
  if (err == MPI_SUCCESS) return false;
  std::fprintf(stderr, "exacdf: %s\n", exa::tool::MpiError(err, call).what());
  return true;
}

const Subcommand* find_subcommand(const char* name) {
  for (const Subcommand& cmd : kSubcommands) {
    if (std::strcmp(cmd.name, name) == 0) return &cmd;
  }
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "help") == 0) {
    print_usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const Subcommand* cmd = find_subcommand(argv[1]);
  if (cmd == nullptr) {
    std::fprintf(stderr, "exacdf: unknown command '%s'\n\n", argv[1]);
    print_usage(stderr);
    return 2;
  }
  if (report_mpi("MPI_Init", MPI_Init(&argc, &argv))) return 1;
  // Errors come back as codes, checked at every call (mpi_check.hpp).
  if (report_mpi("MPI_Comm_set_errhandler", MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN))) {
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
  }
  int status = 1;
  try {
    status = cmd->run(argc - 1, argv + 1);
  } catch (const exa::tool::MpiError& e) {
    // Another rank may wait in a collective call this one left: stop them all.
    std::fprintf(stderr, "exacdf %s: %s\n", cmd->name, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
  }
  if (report_mpi("MPI_Finalize", MPI_Finalize())) return 1;
  return status;
}
