#include "relation/pure/policy.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>

namespace exa::relation {

bool parse_policy(std::string_view text, unsigned* mask) {
  std::string t;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (t == "all") { *mask = kAllSteps; return true; }
  if (t == "none" || t.empty()) { *mask = 0; return true; }
  unsigned m = 0;
  size_t pos = 0;
  while (pos <= t.size()) {
    size_t comma = t.find(',', pos);
    if (comma == std::string::npos) comma = t.size();
    std::string_view item(t.data() + pos, comma - pos);
    if (item.size() != 2 || item[0] != 'o' || item[1] < '1' || item[1] > '7') return false;
    m |= 1u << (item[1] - '1');
    pos = comma + 1;
  }
  *mask = m;
  return true;
}

int tier_cb_nodes(uint64_t total_bytes, int nprocs) {
  int n;
  if (total_bytes < kSmallBytes) n = std::min(nprocs / 4, 64);
  else if (total_bytes <= kLargeBytes) n = std::min(nprocs / 8, 32);
  else n = std::min(nprocs / 16, 16);
  return std::max(n, 1);
}

uint64_t tier_cb_buffer_size(uint64_t total_bytes, int nprocs) {
  // A global budget (4 GiB up to 10 GiB outputs, 8 GiB above) shared by the ranks.
  const uint64_t budget = total_bytes <= kLargeBytes ? 4 * kGiB : 8 * kGiB;
  const uint64_t per = budget / static_cast<uint64_t>(std::max(nprocs, 1));
  return std::clamp<uint64_t>(per, 32 * kMiB, 512 * kMiB);
}

uint64_t tier_var_align(uint64_t total_bytes) {
  if (total_bytes < kTinyBytes) return 4 * kKiB;
  if (total_bytes < kSmallBytes) return 4 * kMiB;
  if (total_bytes <= kLargeBytes) return 8 * kMiB;
  return 16 * kMiB;
}

int skew_phases(double ratio, double cv, int nprocs) {
  int p = 1;
  if (ratio > 100.0 || cv > 2.0) p = 8;
  else if (ratio > 10.0 || cv > 1.0) p = 4;
  return std::max(1, std::min(p, nprocs));
}

void skew_from_moments(double sum, double sum_sq, double max, double min, int nprocs,
                       double* ratio, double* cv) {
  const double n = std::max(nprocs, 1);
  if (max <= 0.0) *ratio = 1.0;
  else if (min <= 0.0) *ratio = std::numeric_limits<double>::infinity();
  else *ratio = max / min;
  const double mean = sum / n;
  const double var = std::max(0.0, sum_sq / n - mean * mean);
  *cv = mean > 0.0 ? std::sqrt(var) / mean : 0.0;
}

PolicyDecision decide(const PolicyInput& in, unsigned mask) {
  PolicyDecision d;
  d.mask = mask;
  const bool tiny = in.total_bytes < kTinyBytes;
  d.gather = (mask & kO1Gather) &&
             ((in.nprocs < 2 && tiny) || (in.nprocs >= kGatherMinRanks && in.total_bytes < kGatherBytes));
  d.no_fill = (mask & kO3NoFill) != 0;
  d.fixed_rows = (mask & kO4Layout) != 0;
  if ((mask & kO5Hints) && !d.gather) {
    d.cb_nodes = tier_cb_nodes(in.total_bytes, in.nprocs);
    d.cb_buffer_size = tier_cb_buffer_size(in.total_bytes, in.nprocs);
  }
  if (mask & kO6Alignment) d.var_align = tier_var_align(in.total_bytes);
  if ((mask & kO7Phases) && !d.gather) d.phases = skew_phases(in.ratio, in.cv, in.nprocs);
  d.independent = (mask & kO5Hints) && !d.gather && in.nprocs > 1 &&
                  in.total_bytes / static_cast<uint64_t>(in.nprocs) >= kIndependentShare;
  // One rank defines alone anyway: the create-close-reopen cycle of O2 buys
  // nothing there. Nor for a tiny output written by fewer than
  // kTwoPhaseMinRanks ranks (see policy.hpp), unless a path that needs the
  // file defined first takes it: own handles (independent) or O7's phases.
  const bool few_ranks_tiny = tiny && in.nprocs < kTwoPhaseMinRanks && !d.independent && d.phases == 1;
  d.two_phase = (mask & kO2TwoPhase) && !d.gather && in.nprocs > 1 && !few_ranks_tiny;
  return d;
}

std::string describe(const PolicyInput& in, const PolicyDecision& d) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "policy mask=0x%02x total=%llu B nprocs=%d ratio=%.3g cv=%.3g -> O1 gather=%d O2 two_phase=%d "
                "O3 no_fill=%d O4 fixed_rows=%d O5 cb_nodes=%d cb_buffer_size=%llu independent=%d O6 var_align=%llu "
                "O7 phases=%d",
                d.mask, static_cast<unsigned long long>(in.total_bytes), in.nprocs, in.ratio, in.cv,
                d.gather, d.two_phase, d.no_fill, d.fixed_rows, d.cb_nodes,
                static_cast<unsigned long long>(d.cb_buffer_size), d.independent,
                static_cast<unsigned long long>(d.var_align),
                d.phases);
  return buf;
}

}  // namespace exa::relation
