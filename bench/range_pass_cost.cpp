// CPU time per value of the conversion passes over one buffer (issue 20,
// docs/perf/query_minmax.md): the byte swap, the swap that takes the range
// in its pass, and the range alone, with each instruction set the CPU has.
// Built from the library's convert objects:
//   c++ -O2 -std=c++20 -Isrc -Iinclude bench/range_pass_cost.cpp \
//     build/CMakeFiles/exacdf_pure.dir/src/convert/*.o -o range_pass_cost
//   ./range_pass_cost 262144 1000   # values per buffer, passes
#include <chrono>
#include <time.h>
static double cpu(){timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t); return t.tv_sec+1e-9*t.tv_nsec;}
#include <cstdio>
#include <vector>
#include <cstdlib>
#include "convert/external.hpp"
#include "convert/simd.hpp"
#include "convert/value_range.hpp"
using namespace exa::convert;
template <class T> void run(nc_type t, long n, int reps) {
  std::vector<T> v(n); for (long i = 0; i < n; ++i) v[i] = (T)((i % 1000) * 0.5);
  const char* names[] = {"sse2", "sse4.2", "avx2"};
  for (int rep = 0; rep < 2; ++rep)
  for (int lv = 0; lv < 3; ++lv) {
    set_simd_for_tests((Simd)lv);
    double ns[3];
    for (int mode = 0; mode < 3; ++mode) {
      double t0 = cpu();
      for (int r = 0; r < reps; ++r) {
        if (mode == 0) swap_bytes_in_place(v.data(), sizeof(T), n);
        else if (mode == 1) { ValueRange vr; swap_out_with_range(v.data(), v.data(), t, n, &vr); }
        else { ValueRange vr; add_native_range(v.data(), t, n, &vr); }
      }
      ns[mode] = (cpu() - t0) / reps / n * 1e9;
    }
    printf("type %d n %ld %-6s swap %.3f  swap+range %.3f  range %.3f ns/value\n", t, n, names[lv], ns[0], ns[1], ns[2]);
  }
}
int main(int argc, char** argv) {
  long n = atol(argv[1]); int reps = atoi(argv[2]);
  run<float>(NC_FLOAT, n, reps); run<int>(NC_INT, n, reps); run<double>(NC_DOUBLE, n, reps);
}
