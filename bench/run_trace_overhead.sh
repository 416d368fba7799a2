#!/usr/bin/env bash
# run_trace_overhead.sh: overhead of the trace connector on a million small
# puts per rank (bench/trace_overhead.c: untraced and traced files alternate
# in one process, ROUNDS files of each), REPS runs, medians.
# Writes docs/perf/trace_overhead.{md,json}.
#   BUILD=build NPUTS=1000000 ROUNDS=10 REPS=3 VAR1_NP=1 VARA_NP=1 bash bench/run_trace_overhead.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
nputs=${NPUTS:-1000000}
rounds=${ROUNDS:-10}
reps=${REPS:-3}
var1_np=${VAR1_NP:-1}
vara_np=${VARA_NP:-1}
work=${WORK:-${TMPDIR:-/tmp}/trace_overhead}
source "$root/scripts/env.sh"
mkdir -p "$work/traces"
exe="$work/trace_overhead"
mpicc -O2 "$root/bench/trace_overhead.c" -o "$exe" -I"$root/include" -L"$build" -lexacdf -Wl,-rpath,"$build"

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
pct() { awk -v p="$1" -v t="$2" 'BEGIN {printf "%.2f", 100 * (t - p) / p}'; }
list() { local IFS=,; echo "$*"; }

json_rows=()
md_rows=()
for spec in "var1 $var1_np" "vara $vara_np"; do
  set -- $spec
  mode=$1 np=$2
  pw=() tw=() pc=() tc=() wo=() co=()
  for ((i = 0; i < reps; ++i)); do
    rm -f "$work"/traces/*.json
    read -r a b c d < <(env -u EXACDF_TRACE_DIR mpiexec --oversubscribe -n "$np" "$exe" "$mode" "$nputs" "$rounds" "$work")
    pw+=("$a"); tw+=("$b"); pc+=("$c"); tc+=("$d"); wo+=("$(pct "$a" "$b")"); co+=("$(pct "$c" "$d")")
    echo "$mode np=$np rep $i: wall $a -> $b (${wo[-1]}%), cpu $c -> $d (${co[-1]}%)"
  done
  wm=$(printf '%s\n' "${wo[@]}" | median); cm=$(printf '%s\n' "${co[@]}" | median)
  pwm=$(printf '%s\n' "${pw[@]}" | median); twm=$(printf '%s\n' "${tw[@]}" | median)
  pcm=$(printf '%s\n' "${pc[@]}" | median); tcm=$(printf '%s\n' "${tc[@]}" | median)
  json_rows+=("{\"mode\": \"$mode\", \"np\": $np, \"puts_per_rank\": $nputs, \"files_each\": $rounds, \"wall_untraced_s\": [$(list "${pw[@]}")], \"wall_traced_s\": [$(list "${tw[@]}")], \"cpu_untraced_s\": [$(list "${pc[@]}")], \"cpu_traced_s\": [$(list "${tc[@]}")], \"wall_overhead_percent\": [$(list "${wo[@]}")], \"cpu_overhead_percent\": [$(list "${co[@]}")], \"median_wall_overhead_percent\": $wm, \"median_cpu_overhead_percent\": $cm}")
  md_rows+=("| $mode | $np | $nputs | $pwm | $twm | $wm% | $pcm | $tcm | $cm% |")
done

out="$root/docs/perf"
commit=$(git -C "$root" rev-parse --short HEAD)
cmd="NPUTS=$nputs ROUNDS=$rounds REPS=$reps VAR1_NP=$var1_np VARA_NP=$vara_np bash bench/run_trace_overhead.sh"
{
  echo "{\"benchmark\": \"trace_overhead\", \"commit\": \"$commit\", \"reps\": $reps, \"command\": \"$cmd\","
  echo " \"results\": [$(list "${json_rows[@]}")]}"
} > "$out/trace_overhead.json"
{
  echo "# Trace connector overhead"
  echo
  echo "A million small puts per rank (bench/trace_overhead.c), untraced and traced, each split"
  echo "over $rounds files created alternately in one process (so a shared machine's changing load"
  echo "falls on both alike), each file timed from create to close (the trace report written at"
  echo "close included). $reps runs; the overhead is the median of the runs' (traced - untraced)"
  echo "/ untraced; times are medians. Measured at $commit on the shared 2-core development"
  echo "machine (other builds running)."
  echo
  echo '```'
  echo "$cmd"
  echo '```'
  echo
  echo "| mode | ranks | puts per rank | wall untraced s | wall traced s | wall overhead | CPU untraced s | CPU traced s | CPU overhead |"
  echo "|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${md_rows[@]}"
  echo
  echo "var1: independent ncmpi_put_var1_int (4 bytes each); vara: collective"
  echo "ncmpi_put_vara_int_all of 4 ints per rank. CPU: this process's CPU time, max over ranks."
  echo "Per call the trace connector reads the clock twice, asks the MPI-IO call count"
  echo "(Connector::io_calls, no allocation) and updates fixed-size counters; the time line"
  echo "keeps the first 4096 events per rank and file and only counts the rest."
} > "$out/trace_overhead.md"
echo "wrote $out/trace_overhead.{md,json}"
