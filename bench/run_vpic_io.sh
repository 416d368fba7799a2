#!/usr/bin/env bash
# run_vpic_io.sh: the VPIC-IO-like kernel (bench/vpic_io.c) with and without the
# async connector at 1, 2, 4 ranks. Per rank count: a synchronous run without
# computation gives T_io_sync; the computation between steps is then set to one
# step's I/O time (T_io_sync / STEPS) and run as sleep and as real arithmetic,
# synchronously and with EXACDF_CONNECTORS=async. Hidden fraction of the I/O:
#   1 - (T_async - T_compute) / T_io_sync
# (T_async: create to close with async; T_compute: its compute phases). The
# async file is compared byte for byte with the synchronous one.
# Writes docs/perf/async_vpic.{md,json}.
#   BUILD=build PARTICLES=524288 STEPS=5 NPS="1 2 4" REPS=3 bash bench/run_vpic_io.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
particles=${PARTICLES:-524288}
steps=${STEPS:-5}
nps=${NPS:-1 2 4}
reps=${REPS:-3}
work=${WORK:-${TMPDIR:-/tmp}/vpic_io}
target=${TARGET:-disk}   # disk: $work on the machine's disk (page cache); slow: bench/slow_tier.sh
source "$root/scripts/env.sh"
mkdir -p "$work"
tier="files in $work (the machine's disk through the page cache: I/O at memory speed)"
suffix=""
if [ "$target" = slow ]; then
  source "$root/bench/slow_tier.sh"
  slow_tier_up "$work" "${BPS:-104857600}"
  work=$SLOW_MNT tier="a slow target: $SLOW_PROBE" suffix=_slow
  echo "$tier"
fi
exe="$build/bench/vpic_io"
[ -x "$exe" ] || { echo "build $exe first (cmake -DEXACDF_BENCH=ON; ninja vpic_io)"; exit 1; }

field() { tr ' ' '\n' | awk -F= -v k="$1" '$1 == k {print $2}'; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
run() {  # run NP CONNECTORS OUT MODE SECONDS -> RESULT line
  local np=$1 conn=$2 out=$3 mode=$4 secs=$5
  if [ -n "$conn" ]; then
    EXACDF_CONNECTORS=$conn mpiexec --oversubscribe -n "$np" "$exe" "$out" "$particles" "$steps" "$mode" "$secs" | grep '^RESULT'
  else
    env -u EXACDF_CONNECTORS mpiexec --oversubscribe -n "$np" "$exe" "$out" "$particles" "$steps" "$mode" "$secs" | grep '^RESULT'
  fi
}

json_rows=()
md_rows=()
identical=yes
for np in $nps; do
  ios=()
  for ((i = 0; i < reps; ++i)); do ios+=("$(run "$np" "" "$work/sync.nc" none 0 | field t_total)"); done
  tio=$(printf '%s\n' "${ios[@]}" | median)
  csec=$(awk -v t="$tio" -v s="$steps" 'BEGIN {printf "%.4f", t / s}')
  for mode in sleep arith; do
    ts=() ta=() tc=() hid=() vis=() shid=()
    for ((i = 0; i < reps; ++i)); do
      s=$(run "$np" "" "$work/sync.nc" "$mode" "$csec")
      a=$(run "$np" async "$work/async.nc" "$mode" "$csec")
      cmp -s "$work/sync.nc" "$work/async.nc" || identical=no
      ts+=("$(echo "$s" | field t_total)")
      ta+=("$(echo "$a" | field t_total)")
      tc+=("$(echo "$a" | field t_compute)")
      hid+=("$(awk -v a="${ta[-1]}" -v c="${tc[-1]}" -v io="$tio" 'BEGIN {printf "%.3f", 1 - (a - c) / io}')")
      vis+=("$(awk -v a="${ta[-1]}" -v c="${tc[-1]}" -v s="$steps" 'BEGIN {printf "%.4f", (a - c) / s}')")
      # The steps with computation after them (all but the last): the I/O each
      # showed the program, async against sync (a step whose background writes
      # outlast the computation is charged to the next step's puts, which wait).
      shid+=("$(awk -v a="$(echo "$a" | field step_io)" -v s="$(echo "$s" | field step_io)" 'BEGIN {
        na = split(a, x, ","); split(s, y, ","); sa = 0; ss = 0
        for (k = 1; k < na; ++k) { sa += x[k]; ss += y[k] }
        printf "%.3f", (ss > 0 ? 1 - sa / ss : 0) }')")
      echo "np=$np $mode rep $i: T_io_sync=$tio T_sync=${ts[-1]} T_async=${ta[-1]} T_compute=${tc[-1]} hidden=${hid[-1]} hidden_steps=${shid[-1]} step_io_sync=$(echo "$s" | field step_io) step_io_async=$(echo "$a" | field step_io)"
    done
    m_ts=$(printf '%s\n' "${ts[@]}" | median); m_ta=$(printf '%s\n' "${ta[@]}" | median)
    m_tc=$(printf '%s\n' "${tc[@]}" | median); m_h=$(printf '%s\n' "${hid[@]}" | median)
    m_v=$(printf '%s\n' "${vis[@]}" | median)
    m_sh=$(printf '%s\n' "${shid[@]}" | median)
    list() { local IFS=,; echo "$*"; }
    json_rows+=("{\"ranks\": $np, \"compute\": \"$mode\", \"compute_s_per_step\": $csec, \"t_io_sync_s\": $tio, \"t_sync_s\": [$(list "${ts[@]}")], \"t_async_s\": [$(list "${ta[@]}")], \"t_compute_s\": [$(list "${tc[@]}")], \"hidden_fraction\": [$(list "${hid[@]}")], \"median_hidden_fraction\": $m_h, \"hidden_fraction_steps_with_compute\": [$(list "${shid[@]}")], \"median_hidden_fraction_steps_with_compute\": $m_sh, \"visible_io_per_step_async_s\": $m_v}")
    md_rows+=("| $np | $mode | $tio | $csec | $m_ts | $m_ta | $m_tc | $m_v | $m_h | $m_sh |")
  done
done

out="$root/docs/perf"
commit=$(git -C "$root" rev-parse --short HEAD)
load=$(cut -d' ' -f1-3 /proc/loadavg)
cmd="$(if [ "$target" = slow ]; then echo "TARGET=slow BPS=${BPS:-104857600} "; fi)PARTICLES=$particles STEPS=$steps NPS=\"$nps\" REPS=$reps bash bench/run_vpic_io.sh"
{
  echo "{\"benchmark\": \"vpic_io async\", \"commit\": \"$commit\", \"particles_per_rank\": $particles, \"steps\": $steps, \"reps\": $reps,"
  echo " \"target\": \"$tier\", \"load_average\": \"$load\", \"byte_identical\": \"$identical\", \"command\": \"$cmd\","
  echo " \"results\": [$(IFS=,; echo "${json_rows[*]}")]}"
} > "$out/async_vpic$suffix.json"
{
  echo "# VPIC-IO-like writes with the async connector"
  echo
  echo "bench/vpic_io.c: $particles particles per rank, 8 variables (7 float32, 1 int32), $steps"
  echo "steps, blocking collective puts, computation after every step but the last lasting one"
  echo "step's synchronous I/O time (sleep, or real arithmetic on the particles). Medians of $reps"
  echo "runs; times in seconds, max over ranks. T_io_sync: synchronous run without computation"
  echo "(create to close). hidden = 1 - (T_async - T_compute) / T_io_sync. Files written with"
  echo "and without async byte-identical: **$identical**. Measured at $commit on the shared"
  echo "2-core machine (load average $load while running: noisy)."
  echo
  echo "Target: $tier."
  echo
  echo '```'
  echo "$cmd"
  echo '```'
  echo
  echo "hidden, steps with compute: the issue's measure for the steps that have computation after"
  echo "them (all but the last): 1 - (their puts' time with async) / (their puts' time without),"
  echo "from the same pair of runs; a step whose background writes outlast the computation makes the"
  echo "next step's puts wait, so that cost is counted."
  echo
  echo "| ranks | compute | T_io_sync | compute per step | T_sync (with compute) | T_async | T_compute (async run) | visible I/O per step, async | hidden | hidden, steps with compute |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${md_rows[@]}"
} > "$out/async_vpic$suffix.md"
echo "wrote $out/async_vpic$suffix.{md,json}"
