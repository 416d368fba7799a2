#!/usr/bin/env bash
# The cache connector's write aim (issue 18): bench/vpic_io.c (VPIC-IO-like, 8 variables per
# particle, STEPS steps with COMPUTE_S seconds of computation -- sleep -- between them) at
# 1, 2 and 4 ranks onto two targets:
#   slow:  an ext4 file system on a loop device, mounted -o sync (every write reaches the
#          device before it returns, as on a parallel file system without client caching),
#          its writes throttled to BPS bytes/s for the benchmark's processes with the
#          blkio cgroup (bench/slow_tier.sh; v2 io.max where that is what the machine has);
#   plain: a directory on the machine's disk (page cache, no throttle).
# Per target and rank count, one repetition runs these six back to back (interleaved, so
# each repetition's six saw the same load; the order rotates by one each repetition):
#   native        native to the target
#   fast          the ceiling: native writing the same file onto the fast tier (FAST, tmpfs)
#   cache         cache{dir=TIER}                (close=sync)
#   cache_detach  cache{dir=TIER;close=detach}
#   async_cache   async,cache{dir=TIER}           (close=sync)
#   async_cache_detach  async,cache{dir=TIER;close=detach}
# vpic_io reports t_write (first put to close returned, computation excluded: the
# application-visible write time) and t_durable (first put to the data durable on the
# target: after the close rank 0 waits until the logs in TIER are gone -- close=detach's
# helper, `exacdf recover`, removes them once replayed and synced -- and fsyncs the file);
# EXACDF_CACHE_WRITE_TIMES=1 makes every rank print where the cache connector's time went
# (stderr lines EXACDF_CACHE_WRITE: the CRC pass, the tier write, the mover's drains, close's
# drain and sync). Needs root (losetup, mount, cgroups). Writes OUT/results.jsonl; then
# bench/make_cache_tables.py writes docs/perf/cache_write.{md,json}.
#   VPIC=build-bench/bench/vpic_io EXACDF_TOOL=build/tools/exacdf OUT=/tmp/cache-bench \
#     RANKS="1 2 4" REPS=3 bench/run_cache_bench.sh
set -eu
VPIC=${VPIC:-build/bench/vpic_io}
EXACDF_TOOL=${EXACDF_TOOL:-build/tools/exacdf}
OUT=${OUT:-/tmp/cache-bench}
RANKS=${RANKS:-"1 2 4"}
REPS=${REPS:-3}
TARGETS=${TARGETS:-"slow plain"}
MODES=${MODES:-"native fast cache cache_detach async_cache async_cache_detach"}
PARTICLES=${PARTICLES:-131072}
STEPS=${STEPS:-5}
COMPUTE_S=${COMPUTE_S:-1}
BPS=${BPS:-20971520}
TIER=${TIER:-/dev/shm/exacdf-cache-bench}
FAST=${FAST:-/dev/shm/exacdf-cache-bench-fast}
export EXACDF_RECOVER_COMMAND
EXACDF_RECOVER_COMMAND=$(readlink -f "$EXACDF_TOOL")
mkdir -p "$OUT" "$FAST"
plain="$OUT/plain"
mkdir -p "$plain"
source "$(dirname "$0")/slow_tier.sh"
slow_tier_up "$OUT" "$BPS"
mnt=$SLOW_MNT bw=$SLOW_BW lat=$SLOW_LAT
echo "slow tier: $bw streaming; 200 x 4 KiB dsync writes in ${lat} s; load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '{"tier_probe": {"streaming": "%s", "dsync_4k_x200_s": %s, "throttle_bps": %s, "load": "%s"}}\n' \
  "$bw" "$lat" "$BPS" "$(cut -d' ' -f1-3 /proc/loadavg)" > "$OUT/results.jsonl"
read -r -a modes <<< "$MODES"
run_one() {  # target dir np rep mode
  local target=$1 dir=$2 np=$3 rep=$4 mode=$5 stack="" file wait="" err line t0 t1
  case $mode in
    native) ;;
    fast) dir=$FAST ;;
    cache) stack="cache{dir=$TIER}" ;;
    cache_detach) stack="cache{dir=$TIER;close=detach}" ;;
    async_cache) stack="async,cache{dir=$TIER}" ;;
    async_cache_detach) stack="async,cache{dir=$TIER;close=detach}" ;;
    *) echo "unknown mode $mode" >&2; return 1 ;;
  esac
  [[ -n $stack ]] && wait=$TIER
  file="$dir/vpic.nc"
  rm -rf "$TIER" "$FAST/vpic.nc" "$dir/vpic.nc"
  sync  # nothing of the run before is still being written back
  err="$OUT/stderr.txt"
  t0=$(cut -d' ' -f1-3 /proc/loadavg)
  line=$(EXACDF_CONNECTORS=${stack:-native} EXACDF_CACHE_WRITE_TIMES=1 VPIC_DURABLE=1 VPIC_WAIT_LOGS=$wait \
           timeout 900 mpiexec --oversubscribe -n "$np" "$VPIC" "$file" "$PARTICLES" "$STEPS" sleep "$COMPUTE_S" \
           2> "$err" | grep '^RESULT') || { cat "$err" >&2; return 1; }
  echo "$target np=$np rep=$rep $mode: $(tr ' ' '\n' <<< "$line" | grep -E '^t_(write|durable|close)=' | tr '\n' ' ')load $t0"
  python3 - "$target" "$mode" "$rep" "$t0" "$line" "$err" >> "$OUT/results.jsonl" <<'PY'
import json, sys
target, mode, rep, load, line, err = sys.argv[1:]
times = [l.split(None, 1)[1].strip() for l in open(err) if l.startswith("EXACDF_CACHE_WRITE ")]
print(json.dumps({"target": target, "mode": mode, "rep": int(rep), "load": load, "result": line, "cache_times": times}))
PY
}
for rep in $(seq "$REPS"); do
  for target in $TARGETS; do
    dir=$([[ $target == slow ]] && echo "$mnt" || echo "$plain")
    for np in $RANKS; do
      n=${#modes[@]}
      for i in $(seq 0 $((n - 1))); do  # rotated each repetition: no mode always first
        run_one "$target" "$dir" "$np" "$rep" "${modes[$(((i + rep - 1) % n))]}"
      done
    done
  done
done
rm -rf "$TIER" "$FAST"
