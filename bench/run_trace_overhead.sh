#!/usr/bin/env bash
# run_trace_overhead.sh: overhead of the trace connector on a million small
# puts per rank (bench/trace_overhead.c: untraced and traced files alternate
# in one process, ROUNDS files of each), REPS runs, medians.
# Writes docs/perf/trace_overhead.{md,json}.
#   BUILD=build NPUTS=1000000 ROUNDS=10 REPS=3 VAR1_NP=1 VARA_NP=1 bash bench/run_trace_overhead.sh
# With valgrind installed it also counts instructions (callgrind, user space
# only: deterministic, unlike times on a shared machine) for IR_PUTS puts in
# one file, untraced and traced, at 1 rank (IR_PUTS=0 skips it).
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
    read -r a b c d < <(env -u EXACDF_CONNECTORS mpiexec --oversubscribe -n "$np" "$exe" "$mode" "$nputs" "$rounds" "$work")
    pw+=("$a"); tw+=("$b"); pc+=("$c"); tc+=("$d"); wo+=("$(pct "$a" "$b")"); co+=("$(pct "$c" "$d")")
    echo "$mode np=$np rep $i: wall $a -> $b (${wo[-1]}%), cpu $c -> $d (${co[-1]}%)"
  done
  wm=$(printf '%s\n' "${wo[@]}" | median); cm=$(printf '%s\n' "${co[@]}" | median)
  pwm=$(printf '%s\n' "${pw[@]}" | median); twm=$(printf '%s\n' "${tw[@]}" | median)
  pcm=$(printf '%s\n' "${pc[@]}" | median); tcm=$(printf '%s\n' "${tc[@]}" | median)
  json_rows+=("{\"mode\": \"$mode\", \"np\": $np, \"puts_per_rank\": $nputs, \"files_each\": $rounds, \"wall_untraced_s\": [$(list "${pw[@]}")], \"wall_traced_s\": [$(list "${tw[@]}")], \"cpu_untraced_s\": [$(list "${pc[@]}")], \"cpu_traced_s\": [$(list "${tc[@]}")], \"wall_overhead_percent\": [$(list "${wo[@]}")], \"cpu_overhead_percent\": [$(list "${co[@]}")], \"median_wall_overhead_percent\": $wm, \"median_cpu_overhead_percent\": $cm}")
  md_rows+=("| $mode | $np | $nputs | $pwm | $twm | $wm% | $pcm | $tcm | $cm% |")
done

ir_puts=${IR_PUTS:-100000}
ir_rows=()
ir_json=()
if [ "$ir_puts" -gt 0 ] && command -v valgrind > /dev/null; then
  for mode in var1 vara; do
    ir=()
    for config in untraced traced; do
      rm -f "$work"/traces/*.json
      ir+=("$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$exe" "$mode" "$ir_puts" 1 "$work" "$config" 2>&1 |
        awk '/Collected :/ {print $NF}')")
    done
    p=$(pct "${ir[0]}" "${ir[1]}")
    per=$(awk -v a="${ir[0]}" -v b="${ir[1]}" -v n="$ir_puts" 'BEGIN {printf "%.0f", (b - a) / n}')
    echo "$mode instructions: untraced ${ir[0]}, traced ${ir[1]} (+$p%, $per per put incl. the report)"
    ir_rows+=("| $mode | $ir_puts | ${ir[0]} | ${ir[1]} | $p% | $per |")
    ir_json+=("{\"mode\": \"$mode\", \"puts\": $ir_puts, \"untraced_instructions\": ${ir[0]}, \"traced_instructions\": ${ir[1]}, \"overhead_percent\": $p, \"extra_instructions_per_put\": $per}")
  done
fi

out="$root/docs/perf"
commit=$(git -C "$root" rev-parse --short HEAD)
cmd="NPUTS=$nputs ROUNDS=$rounds REPS=$reps VAR1_NP=$var1_np VARA_NP=$vara_np bash bench/run_trace_overhead.sh"
{
  echo "{\"benchmark\": \"trace_overhead\", \"commit\": \"$commit\", \"reps\": $reps, \"command\": \"$cmd\","
  echo " \"results\": [$(list "${json_rows[@]}")],"
  echo " \"instructions\": [$(list "${ir_json[@]}")]}"
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
  if [ ${#ir_rows[@]} -gt 0 ]; then
    echo
    echo "## Instructions (valgrind callgrind, 1 rank, one file, whole process)"
    echo
    echo "Times on the shared machine vary by 10-20% from run to run; instruction counts do not."
    echo "User-space only: the kernel's share of each put (the pwrite of an independent var1)"
    echo "is not counted, so the percentage overstates the share of time. The per-put figure"
    echo "includes the report written at close (one file of IR_PUTS puts)."
    echo
    echo "| mode | puts | untraced | traced | overhead | extra per put |"
    echo "|---|---|---|---|---|---|"
    printf '%s\n' "${ir_rows[@]}"
  fi
} > "$out/trace_overhead.md"
echo "wrote $out/trace_overhead.{md,json}"
