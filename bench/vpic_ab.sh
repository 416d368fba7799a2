#!/usr/bin/env bash
# vpic_ab.sh: paired, alternated runs of bench/vpic_io.c on the slow target
# (bench/slow_tier.sh, needs root) to compare two variants of the async run.
# Each repetition runs the synchronous program, then variant A and variant B
# (the order alternating between repetitions), each with EXACDF_CONNECTORS=async
# and the environment assignments in A or B (which may set EXACDF_CONNECTORS
# themselves, e.g. B='EXACDF_CONNECTORS=async{sched=normal}'). Every async file
# is compared byte for byte with the synchronous one. The computation per step
# is one step of a synchronous run without computation (median of 3), as
# run_vpic_io.sh sets it. One line per run:
#   rep=I run=sync|A|B total=.. close=.. steps=a,b,c,d,e cpu=a,b,c,d,e faults=N hidden_steps=..
# cpu: the program thread's CPU time in each step's puts; faults: page faults of the whole process tree (perf stat); hidden_steps: 1 -
# the async steps 0..S-2 / the same steps of the synchronous run of the repetition.
#   A='EXACDF_HUGEPAGES=0' B='' MODE=sleep PAIRS=5 NP=1 bash bench/vpic_ab.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
particles=${PARTICLES:-131072}
steps=${STEPS:-5}
np=${NP:-1}
pairs=${PAIRS:-5}
mode=${MODE:-sleep}
A=${A:-} B=${B:-}
work=${WORK:-${TMPDIR:-/tmp}/vpic_ab}
exe="$build/bench/vpic_io"
[ -x "$exe" ] || { echo "build $exe first (cmake -DEXACDF_BENCH=ON; ninja vpic_io)"; exit 1; }
source "$root/scripts/env.sh"
source "$root/bench/slow_tier.sh"
mkdir -p "$work"
slow_tier_up "$work" "${BPS:-104857600}"
echo "target: $SLOW_PROBE; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "A: '$A'  B: '$B'  mode=$mode np=$np particles=$particles"

field() { tr ' ' '\n' | awk -F= -v k="$1" '$1 == k {print $2}'; }
run() {  # run OUT MODE SECONDS [ASSIGNMENTS...] -> RESULT line, faults on fd 3
  local out=$1 m=$2 secs=$3
  shift 3
  local pf="$work/perf.txt"
  env "$@" perf stat -x, -e page-faults -o "$pf" -- mpiexec --oversubscribe -n "$np" "$exe" "$out" "$particles" "$steps" "$m" "$secs" |
    grep '^RESULT' | tr -d '\n'
  echo " faults=$(awk -F, '/page-faults/ {print $1}' "$pf")"
}
sync_env=(-u EXACDF_CONNECTORS)
tios=()
for ((i = 0; i < 3; ++i)); do tios+=("$(run "$SLOW_MNT/sync.nc" none 0 "${sync_env[@]}" | field t_total)"); done
tio=$(printf '%s\n' "${tios[@]}" | sort -g | sed -n 2p)
csec=$(awk -v t="$tio" -v s="$steps" 'BEGIN {printf "%.4f", t / s}')
echo "T_io_sync=$tio compute per step=$csec"

hidden() {  # ASYNC_STEPS SYNC_STEPS
  awk -v a="$1" -v s="$2" 'BEGIN { na = split(a, x, ","); split(s, y, ","); sa = 0; ss = 0
    for (k = 1; k < na; ++k) { sa += x[k]; ss += y[k] }
    printf "%.3f", (ss > 0 ? 1 - sa / ss : 0) }'
}
line() {  # REP NAME RESULT SYNC_STEPS
  local r=$3
  echo "rep=$1 run=$2 total=$(echo "$r" | field t_total) close=$(echo "$r" | field t_close)" \
    "steps=$(echo "$r" | field step_io) cpu=$(echo "$r" | field step_cpu) faults=$(echo "$r" | field faults)" \
    "hidden_steps=$(hidden "$(echo "$r" | field step_io)" "$4")"
}
identical=yes
for ((i = 0; i < pairs; ++i)); do
  s=$(run "$SLOW_MNT/sync.nc" "$mode" "$csec" "${sync_env[@]}")
  ss=$(echo "$s" | field step_io)
  line "$i" sync "$s" "$ss"
  order=(A B)
  ((i % 2)) && order=(B A)
  for v in "${order[@]}"; do
    # shellcheck disable=SC2086  # the variant's assignments, word-split on purpose
    if [ "$v" = A ]; then a=$(run "$SLOW_MNT/async.nc" "$mode" "$csec" EXACDF_CONNECTORS=async $A); else
      a=$(run "$SLOW_MNT/async.nc" "$mode" "$csec" EXACDF_CONNECTORS=async $B); fi
    cmp -s "$SLOW_MNT/sync.nc" "$SLOW_MNT/async.nc" || identical=no
    line "$i" "$v" "$a" "$ss"
  done
done
echo "files byte-identical: $identical; load $(cut -d' ' -f1-3 /proc/loadavg)"
