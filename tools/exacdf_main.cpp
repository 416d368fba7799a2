// The `exacdf` command: initializes MPI and dispatches to a subcommand.
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <iterator>

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
};

void print_usage(std::FILE* out) {
  std::fprintf(out, "usage: exacdf <command> [options] FILE\n\ncommands:\n");
  for (const Subcommand& cmd : kSubcommands) std::fprintf(out, "  %-10s %s\n", cmd.name, cmd.summary);
  std::fprintf(out, "\n'exacdf <command> -?' shows the options of a command.\n");
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
  MPI_Init(&argc, &argv);
  const int status = cmd->run(argc - 1, argv + 1);
  MPI_Finalize();
  return status;
}
