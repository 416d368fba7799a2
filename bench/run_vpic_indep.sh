#!/usr/bin/env bash
# run_vpic_indep.sh -- the VPIC-IO-like kernel (bench/vpic_io.c) with independent
# blocking puts (VPIC_INDEPENDENT=1), through native alone, async{indep=now} (the
# puts written at the call) and async (the defaults: deferred), paired and
# interleaved: each repetition runs the three back to back in a rotating order.
# The computation after every step but the last (sleep or arith) lasts one
# step's I/O time: the median of three native runs without computation / STEPS,
# measured first at each rank count. Every async file is compared byte for byte
# with the native file of the same repetition. Each RESULT line gets rep= and
# load= (the 1-minute load average when the run began); the table
# (bench/vpic_indep_table.py) gives per stack the medians of the puts' time
# (steps with computation after them), the program thread's CPU time in them,
# t_total, and the paired "hidden" fraction 1 - puts(async) / puts(native).
#   BUILD=build TARGET=disk|slow BPS=104857600 PARTICLES=131072 STEPS=5 NPS="1 2" REPS=7 \
#     MODES="sleep arith" bash bench/run_vpic_indep.sh
# TARGET=slow: the throttled, sync-mounted loop device of bench/slow_tier.sh (root).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
exe=$build/bench/vpic_io
particles=${PARTICLES:-131072}
steps=${STEPS:-5}
nps=${NPS:-"1 2"}
reps=${REPS:-7}
modes=${MODES:-"sleep arith"}
work=${TMPDIR:-/tmp}/vpic_indep.$$
mkdir -p "$work"
[ -x "$exe" ] || { echo "build $exe first (cmake -DEXACDF_BENCH=ON; ninja vpic_io)"; exit 1; }
log=$work/results.txt
files=$work
if [[ "${TARGET:-disk}" == slow ]]; then
  source "$root/bench/slow_tier.sh"
  slow_tier_up "$work" "${BPS:-104857600}"
  files=$SLOW_MNT
  echo "slow tier: ${SLOW_BW:-?} streaming, 200 synced 4 KiB writes in ${SLOW_LAT:-?} s"
fi
field() { tr ' ' '\n' | awk -F= -v k="$1" '$1 == k {print $2}'; }
run() {  # run NP STACK OUT MODE SECONDS
  local np=$1 s=$2 out=$3 mode=$4 secs=$5 load
  load=$(cut -d' ' -f1 /proc/loadavg)
  if [ "$s" = native ]; then
    env -u EXACDF_CONNECTORS VPIC_INDEPENDENT=1 mpiexec --oversubscribe -n "$np" "$exe" "$out" "$particles" "$steps" "$mode" "$secs"
  else
    EXACDF_CONNECTORS=$s VPIC_INDEPENDENT=1 mpiexec --oversubscribe -n "$np" "$exe" "$out" "$particles" "$steps" "$mode" "$secs"
  fi | grep '^RESULT' | sed "s/\$/ stack=$s load=$load/"
}
stacks=("native" "async{indep=now}" "async")
ns=${#stacks[@]}
identical=yes
echo "load before: $(uptime)"
for np in $nps; do
  tio=$(for i in 1 2 3; do run "$np" native "$files/probe.nc" none 0 | field t_total; rm -f "$files/probe.nc"; done | sort -g | sed -n 2p)
  csec=$(awk -v t="$tio" -v s="$steps" 'BEGIN {printf "%.4f", t / s}')
  echo "np=$np: native T_io (median of 3, no computation) $tio s; computation per step $csec s"
  for mode in $modes; do
    for ((r = 0; r < reps; ++r)); do
      for ((k = 0; k < ns; ++k)); do
        s=${stacks[$(((k + r) % ns))]}
        out=$files/$k.nc
        [ "$s" = native ] && out=$files/native.nc
        run "$np" "$s" "$out" "$mode" "$csec" | sed "s/\$/ rep=$r/" | tee -a "$log"
      done
      for k in 0 1 2; do [ -e "$files/$k.nc" ] && { cmp -s "$files/native.nc" "$files/$k.nc" || identical=no; }; done
      rm -f "$files"/*.nc
    done
  done
done
echo "load after: $(uptime)"
echo "async files byte-identical to native: $identical"
python3 "$root/bench/vpic_indep_table.py" "$log"
cp "$log" "${RESULTS:-/dev/null}" 2>/dev/null || true
[[ "${TARGET:-disk}" == slow ]] && slow_tier_down
rm -rf "$work"
