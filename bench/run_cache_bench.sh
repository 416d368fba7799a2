#!/usr/bin/env bash
# The cache connector on a real slow tier (issue 18): bench/vpic_io.c (VPIC-IO-like, 8
# variables per particle, STEPS steps with COMPUTE_S seconds of computation between them)
# written natively and through `cache` (tier: /dev/shm) at 1, 2 and 4 ranks, onto
#   slow:  an ext4 file system on a loop device, mounted -o sync (every write reaches the
#          device before it returns, as on a parallel file system without client caching),
#          its writes throttled to BPS bytes/s for the benchmark's processes with the
#          blkio cgroup (cgroup v1 blkio.throttle.write_bps_device; v2 io.max where that
#          is what the machine has);
#   plain: a directory on the machine's disk (page cache, no throttle): the overhead
#          where the cache has nothing to gain.
# Needs root (losetup, mount, cgroups). Prints the tier's measured bandwidth and
# latency, writes OUT/results.jsonl and, with bench/make_cache_tables.py,
# docs/perf/cache.{md,json}.
#   VPIC=build/bench/vpic_io OUT=/tmp/cache-bench RANKS="1 2 4" REPS=2 bench/run_cache_bench.sh
set -eu
VPIC=${VPIC:-build/bench/vpic_io}
OUT=${OUT:-/tmp/cache-bench}
RANKS=${RANKS:-"1 2 4"}
REPS=${REPS:-2}
PARTICLES=${PARTICLES:-131072}
STEPS=${STEPS:-5}
COMPUTE_S=${COMPUTE_S:-1}
BPS=${BPS:-20971520}
TIER=${TIER:-/dev/shm/exacdf-cache-bench}
mkdir -p "$OUT"
plain="$OUT/plain"
mkdir -p "$plain"
source "$(dirname "$0")/slow_tier.sh"
slow_tier_up "$OUT" "$BPS"
mnt=$SLOW_MNT bw=$SLOW_BW lat=$SLOW_LAT
echo "slow tier: $bw streaming; 200 x 4 KiB dsync writes in ${lat} s; load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '{"tier_probe": {"streaming": "%s", "dsync_4k_x200_s": %s, "throttle_bps": %s, "load": "%s"}}\n' \
  "$bw" "$lat" "$BPS" "$(cut -d' ' -f1-3 /proc/loadavg)" > "$OUT/results.jsonl"
for target in slow plain; do
  dir=$([[ $target == slow ]] && echo "$mnt" || echo "$plain")
  for np in $RANKS; do
    for rep in $(seq "$REPS"); do
      for stack in native "cache{dir=$TIER}"; do  # alternating: paired runs under the same load
        rm -f "$dir/vpic.nc"
        line=$(EXACDF_CONNECTORS=$stack timeout 600 mpiexec --oversubscribe -n "$np" "$VPIC" "$dir/vpic.nc" \
                 "$PARTICLES" "$STEPS" sleep "$COMPUTE_S" | grep '^RESULT')
        echo "$target np=$np rep=$rep ${stack%%\{*}: $line"
        printf '{"target": "%s", "stack": "%s", "rep": %s, "load": "%s", "result": "%s"}\n' "$target" "${stack%%\{*}" \
          "$rep" "$(cut -d' ' -f1-3 /proc/loadavg)" "$line" >> "$OUT/results.jsonl"
      done
    done
  done
done
