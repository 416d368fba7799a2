#!/usr/bin/env bash
# run_async_indep.sh -- independent puts through native alone, async{indep=now}
# (written at the call), async{concurrent=off} (deferred, one write at a time)
# and async (the defaults: deferred, disjoint writes at once), paired and
# interleaved: each repetition runs the four stacks back to back, in a
# rotating order, at each rank count; each RESULT line carries the 1-minute
# load average when it began.
# bench/async_indep_puts.c: STEPS steps of NVARS independent puts of BYTES
# bytes (disjoint variables), COMPUTE_MS of sleep between steps (in 1 ms
# slices, sampling whether writes are still in flight: overlap=).
#
#   BUILD=build TARGET=disk|slow BPS=104857600 NPS="1 2" REPS=7 NVARS=8 \
#     BYTES=1048576 STEPS=5 COMPUTE_MS=0 bash bench/run_async_indep.sh
#
# TARGET=slow: the throttled, sync-mounted loop device of bench/slow_tier.sh
# (needs root). Prints the RESULT lines, the load average before and after,
# and per rank count the medians and the paired ratios (bench/async_indep_table.py).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
exe=$build/bench/async_indep_puts
nps=${NPS:-"1 2"}
reps=${REPS:-7}
nvars=${NVARS:-8}
bytes=${BYTES:-1048576}
steps=${STEPS:-5}
compute=${COMPUTE_MS:-0}
work=${TMPDIR:-/tmp}/async_indep.$$
mkdir -p "$work"
if [[ "${TARGET:-disk}" == slow ]]; then
  source "$root/bench/slow_tier.sh"
  slow_tier_up "$work" "${BPS:-104857600}"
  out=$SLOW_MNT/indep.nc
  echo "slow tier: ${SLOW_BW:-?} streaming, 200 synced 4 KiB writes in ${SLOW_LAT:-?} s"
else
  out=$work/indep.nc
fi
stacks=("native" "async{indep=now}" "async{concurrent=off}" "async")
ns=${#stacks[@]}
log=$work/results.txt
echo "load before: $(uptime)"
for ((r = 0; r < reps; ++r)); do
  for np in $nps; do
    for ((k = 0; k < ns; ++k)); do
      s=${stacks[$(((k + r) % ns))]}
      if [[ "$s" == native ]]; then
        env -u EXACDF_CONNECTORS mpiexec --oversubscribe -n "$np" "$exe" "$out" "$nvars" "$bytes" "$steps" "$compute"
      else
        EXACDF_CONNECTORS=$s mpiexec --oversubscribe -n "$np" "$exe" "$out" "$nvars" "$bytes" "$steps" "$compute"
      fi | grep '^RESULT' | sed "s/\$/ rep=$r load=$(cut -d' ' -f1 /proc/loadavg)/" | tee -a "$log"
      rm -f "$out"
    done
  done
done
echo "load after: $(uptime)"
python3 "$root/bench/async_indep_table.py" "$log"
cp "$log" "${RESULTS:-/dev/null}" 2>/dev/null || true
[[ "${TARGET:-disk}" == slow ]] && slow_tier_down
rm -rf "$work"
