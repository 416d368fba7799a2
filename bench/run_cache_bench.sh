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
img="$OUT/slow.img" mnt="$OUT/slow" plain="$OUT/plain"
mkdir -p "$mnt" "$plain"
truncate -s 1G "$img"
loop=$(losetup -f --show "$img")
cg=""
cleanup() {
  set +e
  [[ -n "$cg" ]] && echo $$ > "$(dirname "$cg")/cgroup.procs" && rmdir "$cg"
  umount "$mnt"; losetup -d "$loop"; rm -f "$img"
}
trap cleanup EXIT
mkfs.ext4 -q "$loop"
mount -o sync "$loop" "$mnt"
devno=$(printf '%d:%d' "0x$(stat -c %t "$loop")" "0x$(stat -c %T "$loop")")
if [[ -f /sys/fs/cgroup/cgroup.controllers ]] && grep -qw io /sys/fs/cgroup/cgroup.controllers; then
  cg=/sys/fs/cgroup/exacdf_cache_bench; mkdir -p "$cg"; echo "$devno wbps=$BPS" > "$cg/io.max"
elif [[ -d /sys/fs/cgroup/blkio ]]; then
  cg=/sys/fs/cgroup/blkio/exacdf_cache_bench; mkdir -p "$cg"; echo "$devno $BPS" > "$cg/blkio.throttle.write_bps_device"
else
  echo "no blkio/io cgroup controller: the slow tier is the sync mount alone"
fi
[[ -n "$cg" ]] && echo $$ > "$cg/cgroup.procs"
# The tier as measured (in the cgroup): 64 MiB streaming, and 4 KiB synced writes.
bw=$(dd if=/dev/zero of="$mnt/probe" bs=1M count=64 2>&1 | awk '/copied/ {print $(NF-1), $NF}')
t0=$(date +%s.%N)
dd if=/dev/zero of="$mnt/probe4k" bs=4k count=200 oflag=dsync 2>/dev/null
lat=$(echo "$(date +%s.%N) $t0" | awk '{printf "%.3f", $1 - $2}')
rm -f "$mnt/probe" "$mnt/probe4k"
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
