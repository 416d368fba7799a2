#!/usr/bin/env bash
# The cache connector's read prefetch on a real slow tier (issue 18): bench/cache_reads.c
# (the three analysis read kernels: conv, grad, vort) read directly (native) and through
# `cache{prefetch=DEPTH;ghost=..}` (tier: /dev/shm), at the ranks of RANKS, from
#   slow:  an ext4 file system on a loop device whose reads are throttled to BPS bytes/s
#          for the benchmark's processes with the blkio cgroup (cgroup v1
#          blkio.throttle.read_bps_device; v2 io.max rbps where that is what the machine
#          has) -- the set-up of bench/run_cache_bench.sh, for reads;
#   plain: a directory on the machine's disk (no throttle): the overhead where there is
#          little to gain.
# Every read run starts with the file dropped from the page cache (the program's rank 0:
# fdatasync + posix_fadvise(POSIX_FADV_DONTNEED) on the file), so its reads reach the
# target. The files are written once per target, before the throttle applies.
# Each run: COMPUTES milliseconds of busy work per MiB read, after each chunk, besides the
# kernel's own arithmetic (the application's computation that prefetch overlaps with
# reading); native and cache alternate (paired runs under the same load).
# Needs root (losetup, mount, cgroups). Prints the tier's measured read bandwidth and
# latency and writes OUT/results.jsonl (bench/make_cache_reads_tables.py makes
# docs/perf/cache_read.{md,json}).
#   BIN=build/bench/cache_reads OUT=/tmp/cache-reads RANKS="1 2" REPS=2 bench/run_cache_reads.sh
set -eu
BIN=${BIN:-build/bench/cache_reads}
OUT=${OUT:-/tmp/cache-reads}
RANKS=${RANKS:-"1 2"}
REPS=${REPS:-2}
KERNELS=${KERNELS:-"conv grad vort"}
COMPUTES=${COMPUTES:-"0 50"}
DEPTH=${DEPTH:-4}
BPS=${BPS:-20971520}
TIER=${TIER:-/dev/shm/exacdf-cache-reads}
TARGETS=${TARGETS:-"slow plain"}
mkdir -p "$OUT"
plain="$OUT/plain"
mkdir -p "$plain"
source "$(dirname "$0")/slow_tier.sh"
slow_tier_mount "$OUT"
mnt=$SLOW_MNT
cleanup() {
  slow_tier_down; rm -rf "$TIER" "$plain"
}
trap cleanup EXIT
ghost_of() { case $1 in conv) echo 0 ;; grad) echo 1 ;; vort) echo 0,1,1 ;; esac; }
for k in $KERNELS; do
  for target in $TARGETS; do
    dir=$([[ $target == slow ]] && echo "$mnt" || echo "$plain")
    timeout 600 mpiexec --oversubscribe -n 2 "$BIN" "$k" "$dir/$k.nc" write
  done
done
sync
slow_tier_throttle read "$BPS"
# The tier as measured (in the cgroup, O_DIRECT): 64 MiB streaming, 200 x 4 KiB reads.
dd if=/dev/zero of="$mnt/probe" bs=1M count=64 conv=fsync 2>/dev/null
bw=$(dd if="$mnt/probe" of=/dev/null bs=1M iflag=direct 2>&1 | awk '/copied/ {print $(NF-1), $NF}')
t0=$(date +%s.%N)
dd if="$mnt/probe" of=/dev/null bs=4k count=200 iflag=direct 2>/dev/null
lat=$(echo "$(date +%s.%N) $t0" | awk '{printf "%.4f", ($1 - $2) / 200}')
rm -f "$mnt/probe"
load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "slow tier: $bw streaming reads; ${lat} s per 4 KiB direct read; load $(load)"
printf '{"tier_probe": {"read_streaming": "%s", "read_4k_s": %s, "throttle_bps": %s, "load": "%s"}}\n' \
  "$bw" "$lat" "$BPS" "$(load)" > "$OUT/results.jsonl"
for k in $KERNELS; do
  for target in $TARGETS; do
    dir=$([[ $target == slow ]] && echo "$mnt" || echo "$plain")
    for np in $RANKS; do
      for ms in $COMPUTES; do
        for rep in $(seq "$REPS"); do
          for stack in native "cache{dir=$TIER;prefetch=$DEPTH;ghost=$(ghost_of "$k")}"; do
            line=$(EXACDF_CONNECTORS=$stack timeout 900 mpiexec --oversubscribe -n "$np" "$BIN" "$k" "$dir/$k.nc" \
                     read "$ms" | grep '^RESULT')
            echo "$target np=$np ms/MiB=$ms rep=$rep ${stack%%\{*}: $line"
            printf '{"target": "%s", "stack": "%s", "spec": "%s", "rep": %s, "load": "%s", "result": "%s"}\n' \
              "$target" "${stack%%\{*}" "$stack" "$rep" "$(load)" "$line" >> "$OUT/results.jsonl"
          done
        done
      done
    done
  done
done
