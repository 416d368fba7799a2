// libFuzzer target for the `exacdf` subcommands: the input is written to a
// file and `dump`, `dump -h`, `stat -b`, `verify` and `convert` run on it
// in-process (one MPI rank), as the command runs them. Whatever the bytes,
// each must return an exit status (0, 1; verify also 3) -- no crash, no sanitizer report,
// no exception escaping -- and its work is bounded by the bytes (the fuzzer's
// -timeout catches a run that is not).
#include <mpi.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "subcommands.hpp"

namespace {

std::string g_input;   // the file the input is written to
std::string g_output;  // convert's output

int run(int (*command)(int, char**), std::vector<std::string> args) {
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return command(static_cast<int>(args.size()), argv.data());
}

void require_exit_status(int status, bool verify = false) {
  if (status != 0 && status != 1 && !(verify && status == 3)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  // Open MPI unloads its components at finalize; a string one of them
  // strdup'd is then reported from "<unknown module>", which no suppression
  // below can name (seen at exit in 3 of 4 runs of 60 s). Kept loaded, its
  // frames keep their module's name.
  setenv("OMPI_MCA_mca_base_component_disable_dlclose", "1", 0);
  MPI_Init(argc, argv);
  const char* dir = std::getenv("TMPDIR");
  const std::string base = std::string(dir ? dir : "/tmp") + "/fuzz_tools." + std::to_string(getpid());
  g_input = base + ".nc";
  g_output = base + ".out.nc";
  // The dumps go nowhere: the fuzzer looks at what the code does, not at the CDL.
  if (std::freopen("/dev/null", "w", stdout) == nullptr) std::abort();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::FILE* f = std::fopen(g_input.c_str(), "wb");
  if (f == nullptr) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  using namespace exa::tool;
  require_exit_status(run(dump_main, {"dump", g_input}));
  require_exit_status(run(dump_main, {"dump", "-h", g_input}));
  require_exit_status(run(stat_main, {"stat", "-b", g_input}));
  require_exit_status(run(verify_main, {"verify", g_input}), /*verify=*/true);
  require_exit_status(run(convert_main, {"convert", "-q", "-f", "cdf5", g_input, g_output}));
  std::remove(g_output.c_str());
  return 0;
}

// Open MPI keeps what MPI_Init allocated until exit, its error paths
// (a failed MPI_File_open) leak asprintf strings, and its MCA components
// (mca_coll_libnbc, mca_io_romio321, mca_fcoll_dynamic: frames without
// symbols, named by their module) keep strings they strdup: not the tools'
// leaks (neither exacdf nor the tools call asprintf or load MCA modules).
// Full stacks for allocations (not the frame-pointer walk, which stops at the
// first frame of a library built without frame pointers), so a leak inside
// Open MPI shows the library frame the suppressions name.
extern "C" const char* __asan_default_options() { return "fast_unwind_on_malloc=0"; }

extern "C" const char* __lsan_default_suppressions() {
  return "leak:libmpi\nleak:libopen-pal\nleak:libopen-rte\nleak:libpmix\nleak:libhwloc\nleak:libevent\n"
         "leak:libucs\nleak:libucp\nleak:libfabric\nleak:vasprintf\nleak:mca_\n";
}
