#!/usr/bin/env bash
# Where the read kernels of bench/cache_reads.c spend their time on the slow tier
# (issue 18): one run per kernel and stack (native, cache) at 1 rank under
# `strace -f -T` (reads, preads, fadvise), summarized per thread by
# bench/profile_cache_reads.py: requests, their sizes, time inside them, and how
# much of the fetcher thread's reading happened while the program's thread was
# outside the library (overlapped with its computation). Same slow tier as
# bench/run_cache_reads.sh (bench/slow_tier.sh). Needs root.
#   BIN=build/bench/cache_reads OUT=/tmp/cache-profile MS=50 bench/profile_cache_reads.sh
# (KERNELS="grad vort" and STACKS="native", "cache" or "native cache" choose)
set -eu
BIN=${BIN:-build/bench/cache_reads}
OUT=${OUT:-/tmp/cache-profile}
MS=${MS:-50}
KERNELS=${KERNELS:-"conv grad vort"}
BPS=${BPS:-20971520}
TIER=${TIER:-/dev/shm/exacdf-cache-profile}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
source "$here/slow_tier.sh"
slow_tier_mount "$OUT"
trap 'slow_tier_down; rm -rf "$TIER"' EXIT
ghost_of() { case $1 in conv) echo 0 ;; grad) echo 1 ;; vort) echo 0,1,1 ;; esac; }
for k in $KERNELS; do timeout 600 mpiexec --oversubscribe -n 2 "$BIN" "$k" "$SLOW_MNT/$k.nc" write; done
sync
slow_tier_throttle read "$BPS"
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
for k in $KERNELS; do
  for which in ${STACKS:-native cache}; do
    stack=native
    [[ $which == cache ]] && stack="cache{dir=$TIER;prefetch=4;ghost=$(ghost_of "$k")}"
    name=$k.${stack%%\{*}
    rm -f "$OUT/$name".trace*
    EXACDF_CONNECTORS=$stack timeout 900 mpiexec --oversubscribe -n 1 \
      strace -f -T -tt -e trace=openat,read,pread64,preadv,fadvise64 -o "$OUT/$name.trace" \
      "$BIN" "$k" "$SLOW_MNT/$k.nc" read "$MS" > "$OUT/$name.out" 2>&1 || echo "$name: run failed: $(tail -3 "$OUT/$name.out")"
    grep '^RESULT' "$OUT/$name.out" | sed "s/^/$name: /" || true
    python3 "$here/profile_cache_reads.py" "$OUT/$name.trace" "$k.nc" | sed "s/^/$name: /"
  done
done
