// CPU time per value of the conversion passes over one buffer (issue 20,
// docs/perf/query_minmax.md): the byte swap, the swap that takes the range
// in its pass, and the range alone, with each instruction set the CPU has.
// Built from the library's convert objects:
//   c++ -O2 -std=c++20 -Isrc -Iinclude bench/range_pass_cost.cpp \
//     build/CMakeFiles/exacdf_pure.dir/src/convert/*.o -o range_pass_cost
//   ./range_pass_cost 262144 1000   # values per buffer, passes
// A third argument "stage" times instead what a large put does per 1 MiB
// slice (layer/native_data_ops.cpp put_direct): memcpy into a staging buffer
// and the swap in place there, with or without the range, against the
// one-pass swapping copy (swap_bytes_copy) and the one-pass swapping copy
// that takes the range (swap_out_with_range, src != dst).
#include <chrono>
#include <time.h>
static double cpu(){timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t); return t.tv_sec+1e-9*t.tv_nsec;}
#include <cstdio>
#include <vector>
#include <cstdlib>
#include <cstring>
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
template <class T> void stage(nc_type t, long n, int reps) {
  std::vector<T> v(n), out(n); for (long i = 0; i < n; ++i) v[i] = (T)((i % 1000) * 0.5);
  set_simd_for_tests(Simd::kAvx2);
  const char* names[] = {"memcpy+swap", "memcpy+swap+range", "swapcopy", "swapcopy+range"};
  for (int rep = 0; rep < 3; ++rep) {
    double ns[4];
    for (int mode = 0; mode < 4; ++mode) {
      double t0 = cpu();
      for (int r = 0; r < reps; ++r) {
        ValueRange vr;
        if (mode <= 1) {
          std::memcpy(out.data(), v.data(), n * sizeof(T));
          if (mode == 0) swap_bytes_in_place(out.data(), sizeof(T), n);
          else swap_out_with_range(out.data(), out.data(), t, n, &vr);
        } else if (mode == 2) swap_bytes_copy(v.data(), out.data(), sizeof(T), n);
        else swap_out_with_range(v.data(), out.data(), t, n, &vr);
      }
      ns[mode] = (cpu() - t0) / reps / n * 1e9;
    }
    printf("type %d n %ld", t, n);
    for (int mode = 0; mode < 4; ++mode) printf("  %s %.3f", names[mode], ns[mode]);
    printf(" ns/value\n");
  }
}
// doubles into float values (a conversion): to_external without and with the
// range, with SSE2 (the generic kernel and a range look at each converted
// block) and AVX2 (one pass: convert, check, swap, range; double_to_float.cpp).
void convert_d2f(long n, int reps) {
  std::vector<double> v(n); std::vector<float> out(n);
  for (long i = 0; i < n; ++i) v[i] = (i % 1000) * 0.5;
  const char* names[] = {"sse2", "sse4.2", "avx2"};
  for (int rep = 0; rep < 3; ++rep)
  for (int lv : {0, 2}) {
    set_simd_for_tests((Simd)lv);
    double ns[2];
    for (int mode = 0; mode < 2; ++mode) {
      double t0 = cpu();
      for (int r = 0; r < reps; ++r) {
        SegmentedRange sr;
        (void)to_external(v.data(), NC_DOUBLE, NC_FLOAT, n, out.data(), true, ErangeFill::type_default(),
                          mode ? &sr : nullptr);
      }
      ns[mode] = (cpu() - t0) / reps / n * 1e9;
    }
    printf("double->float n %ld %-6s convert %.3f  convert+range %.3f ns/value\n", n, names[lv], ns[0], ns[1]);
  }
}
int main(int argc, char** argv) {
  long n = atol(argv[1]); int reps = atoi(argv[2]);
  if (argc > 3) { stage<float>(NC_FLOAT, n, reps); stage<int>(NC_INT, n, reps); stage<double>(NC_DOUBLE, n, reps); convert_d2f(n, reps); return 0; }
  run<float>(NC_FLOAT, n, reps); run<int>(NC_INT, n, reps); run<double>(NC_DOUBLE, n, reps);
}
