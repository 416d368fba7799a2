// `exacdf trace [--png OUT.png] REPORT.json`: a summary of a trace
// connector report (src/layer/trace_report.hpp has the schema) and, with
// --png, a picture drawn by tools/trace_plot.py (time line of operations per
// rank, access-size histogram) with python3 and matplotlib.
#include <getopt.h>
#include <mpi.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "json_value.hpp"
#include "subcommands.hpp"

extern char** environ;

namespace exa::tool {
namespace {

constexpr const char* kUsage =
    "usage: exacdf trace [--png OUT.png] [--vars N] REPORT.json\n"
    "  prints a summary of a trace report (EXACDF_CONNECTORS=trace{dir=DIR} writes them)\n"
    "  --vars N        list the N variables that moved the most bytes (default 10; 0: all)\n"
    "  --png OUT.png   also draw the time line per rank and the size histogram\n"
    "                  (runs $EXACDF_PYTHON, default python3, on trace_plot.py: needs matplotlib)\n";

#ifndef EXACDF_TRACE_PLOT_SCRIPT
#define EXACDF_TRACE_PLOT_SCRIPT "trace_plot.py"
#endif

std::string human_bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) b /= 1024, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", b, units[u]);
  return buf;
}

void print_top(const char* label, const JsonValue& list) {
  std::printf("  %-16s", label);
  if (list.size() == 0) std::printf(" -");
  for (size_t i = 0; i < list.size(); ++i)
    std::printf(" %lld x%lld", static_cast<long long>(list[i][0].as_int()),
                static_cast<long long>(list[i][1].as_int()));
  std::printf("\n");
}

void print_extreme(const char* label, const JsonValue& r) {
  if (r.type == JsonValue::Type::kNull) return;
  std::printf(" %s rank %lld (%s, %.6f s)", label, static_cast<long long>(r["rank"].as_int()),
              human_bytes(r["bytes"].as_double()).c_str(), r["time_s"].as_double());
}

void print_kinds(const JsonValue& kinds, const char* indent) {
  std::printf("%s%-12s %9s %9s %9s %14s %11s %9s\n", indent, "kind", "calls", "coll", "indep", "bytes",
              "time_s", "io_calls");
  for (const auto& [name, k] : kinds.object)
    std::printf("%s%-12s %9lld %9lld %9lld %14lld %11.6f %9lld\n", indent, name.c_str(),
                static_cast<long long>(k["calls"].as_int()), static_cast<long long>(k["collective"].as_int()),
                static_cast<long long>(k["independent"].as_int()), static_cast<long long>(k["bytes"].as_int()),
                k["time_s"].as_double(), static_cast<long long>(k["io_calls"].as_int()));
}

void print_bins(const JsonValue& bins) {
  std::printf("  %-6s", "sizes");
  for (size_t i = 0; i < bins["edges"].size(); ++i) std::printf(" %9s", bins["edges"][i].string.c_str());
  for (const char* dir : {"write", "read"}) {
    std::printf("\n  %-6s", dir);
    for (size_t i = 0; i < bins[dir].size(); ++i) std::printf(" %9lld", static_cast<long long>(bins[dir][i].as_int()));
  }
  std::printf("\n");
}

void print_variable(const JsonValue& v) {
  const JsonValue& vt = v["totals"];
  std::printf("  %s (id %lld): written %lld B, read %lld B, %.6f s, %lld MPI-IO calls;", v["name"].string.c_str(),
              static_cast<long long>(v["id"].as_int()), static_cast<long long>(vt["bytes_written"].as_int()),
              static_cast<long long>(vt["bytes_read"].as_int()), vt["time_s"].as_double(),
              static_cast<long long>(vt["io_calls"].as_int()));
  print_extreme("fastest", v["fastest"]);
  print_extreme("slowest", v["slowest"]);
  std::printf("\n");
  print_kinds(v["kinds"], "    ");
  print_top("  common sizes", v["common_sizes"]);
  print_top("  common strides", v["common_strides"]);
  std::printf("    sequential %lld/%lld, consecutive %lld/%lld (writes/reads)\n",
              static_cast<long long>(v["sequential"]["writes"].as_int()),
              static_cast<long long>(v["sequential"]["reads"].as_int()),
              static_cast<long long>(v["consecutive"]["writes"].as_int()),
              static_cast<long long>(v["consecutive"]["reads"].as_int()));
}

// The variables that moved the most bytes (all when limit is 0), in id order.
void print_variables(const JsonValue& vars, size_t limit) {
  std::vector<const JsonValue*> order;
  for (const JsonValue& v : vars.array) order.push_back(&v);
  auto moved = [](const JsonValue* v) {
    return (*v)["totals"]["bytes_written"].as_int() + (*v)["totals"]["bytes_read"].as_int();
  };
  if (limit != 0 && order.size() > limit) {
    std::stable_sort(order.begin(), order.end(), [&](auto* a, auto* b) { return moved(a) > moved(b); });
    order.resize(limit);
    std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) { return (*a)["id"].as_int() < (*b)["id"].as_int(); });
    std::printf("\nvariables (the %zu of %zu that moved the most bytes; --vars 0 lists all):\n", limit, vars.size());
  } else {
    std::printf("\nvariables:\n");
  }
  for (const JsonValue* v : order) print_variable(*v);
}

void print_summary(const JsonValue& r, size_t var_limit) {
  const JsonValue& t = r["totals"];
  std::printf("trace of %s: %lld ranks, %.6f s open to close (below: %s)\n", r["file"].string.c_str(),
              static_cast<long long>(r["nprocs"].as_int()), r["duration_s"].as_double(), r["below"].string.c_str());
  std::printf("  written %s (%lld B), read %s (%lld B); %lld MPI-IO calls; %lld failed calls\n",
              human_bytes(t["bytes_written"].as_double()).c_str(), static_cast<long long>(t["bytes_written"].as_int()),
              human_bytes(t["bytes_read"].as_double()).c_str(), static_cast<long long>(t["bytes_read"].as_int()),
              static_cast<long long>(t["io_calls"].as_int()), static_cast<long long>(r["failed_calls"].as_int()));
  std::printf("  time (all ranks): data calls %.6f s, waits %.6f s, metadata %.6f s\n", t["data_time_s"].as_double(),
              t["wait_time_s"].as_double(), t["meta_time_s"].as_double());
  std::printf(" ");
  print_extreme("fastest", r["ranks"]["fastest"]);
  print_extreme("slowest", r["ranks"]["slowest"]);
  std::printf("\n\n");
  print_kinds(r["kinds"], "  ");
  const JsonValue& w = r["waits"];
  std::printf("  waits: %lld (%lld collective) for %lld requests, %.6f s, %lld MPI-IO calls\n",
              static_cast<long long>(w["calls"].as_int()), static_cast<long long>(w["collective"].as_int()),
              static_cast<long long>(w["requests"].as_int()), w["time_s"].as_double(),
              static_cast<long long>(w["io_calls"].as_int()));
  std::printf("  metadata:");
  for (const auto& [name, m] : r["metadata"].object) {
    std::printf(" %s %lld", name.c_str(), static_cast<long long>(m["calls"].as_int()));
    if (m["time_s"].as_double() > 0) std::printf(" (%.6f s)", m["time_s"].as_double());
  }
  std::printf("\n\n");
  print_bins(r["size_bins"]);
  print_top("common sizes", r["common_sizes"]);
  print_top("common strides", r["common_strides"]);
  std::printf("  sequential: %lld writes, %lld reads; consecutive: %lld writes, %lld reads\n",
              static_cast<long long>(r["sequential"]["writes"].as_int()),
              static_cast<long long>(r["sequential"]["reads"].as_int()),
              static_cast<long long>(r["consecutive"]["writes"].as_int()),
              static_cast<long long>(r["consecutive"]["reads"].as_int()));
  print_variables(r["variables"], var_limit);
  long long kept = 0, dropped = 0;
  for (const JsonValue& rank : r["timeline"]["ranks"].array) {
    kept += static_cast<long long>(rank["events"].size());
    dropped += rank["dropped"].as_int();
  }
  std::printf("\ntimeline: %lld events kept, %lld dropped (cap %lld per rank)\n", kept, dropped,
              static_cast<long long>(r["timeline"]["cap_per_rank"].as_int()));
}

// Runs the plotting script; its exit status.
int draw_png(const std::string& report, const std::string& png) {
  const char* python = std::getenv("EXACDF_PYTHON");
  const char* script = std::getenv("EXACDF_TRACE_PLOT");
  std::vector<std::string> args = {python && *python ? python : "python3",
                                   script && *script ? script : EXACDF_TRACE_PLOT_SCRIPT, report, png};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0) {
    std::fprintf(stderr, "exacdf trace: cannot run %s\n", argv[0]);
    return 1;
  }
  int status = 0;
  if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "exacdf trace: %s %s failed\n", argv[0], argv[1]);
    return 1;
  }
  return 0;
}

}  // namespace

int trace_main(int argc, char** argv) {
  std::string png;
  size_t var_limit = 10;
  const option options[] = {{"png", required_argument, nullptr, 'p'},
                            {"vars", required_argument, nullptr, 'v'},
                            {nullptr, 0, nullptr, 0}};
  optind = 1;
  opterr = 0;
  for (int c; (c = getopt_long(argc, argv, "", options, nullptr)) != -1;) {
    char* end = nullptr;
    if (c == 'p') {
      png = optarg;
    } else if (c == 'v' && (var_limit = std::strtoul(optarg, &end, 10), *optarg != '\0' && *end == '\0')) {
      continue;
    } else {
      std::fputs(kUsage, stderr);
      return 2;
    }
  }
  if (optind != argc - 1) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) return 0;
  const std::string path = argv[optind];
  try {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "exacdf trace: cannot open %s\n", path.c_str());
      return 1;
    }
    std::stringstream text;
    text << in.rdbuf();
    JsonValue report;
    std::string error;
    if (!parse_json(text.str(), &report, &error)) {
      std::fprintf(stderr, "exacdf trace: %s: not JSON (%s)\n", path.c_str(), error.c_str());
      return 1;
    }
    if (report["schema"].string != "exacdf-trace-1") {
      std::fprintf(stderr, "exacdf trace: %s: not an exacdf trace report\n", path.c_str());
      return 1;
    }
    print_summary(report, var_limit);
    std::fflush(stdout);
  } catch (const std::exception& e) {  // e.g. no memory: an error, never a crash
    std::fprintf(stderr, "exacdf trace: %s: %s\n", path.c_str(), e.what());
    return 1;
  }
  return png.empty() ? 0 : draw_png(path, png);
}

}  // namespace exa::tool
