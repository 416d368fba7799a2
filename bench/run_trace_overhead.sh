#!/usr/bin/env bash
# run_trace_overhead.sh: overhead of the trace connector on a million small
# puts (bench/trace_overhead.c), traced vs untraced, runs interleaved, median
# of REPS. Writes docs/perf/trace_overhead.{md,json}.
#   BUILD=build NPUTS=1000000 REPS=5 VAR1_NP=1 VARA_NP=2 bash bench/run_trace_overhead.sh
# The trace switch is EXACDF_TRACE_DIR (temporary, until the connector
# registry: EXACDF_CONNECTORS=trace{dir=...}).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
nputs=${NPUTS:-1000000}
reps=${REPS:-5}
var1_np=${VAR1_NP:-1}
vara_np=${VARA_NP:-2}
work=${WORK:-${TMPDIR:-/tmp}/trace_overhead}
source "$root/scripts/env.sh"
mkdir -p "$work/traces"
exe="$work/trace_overhead"
mpicc -O2 "$root/bench/trace_overhead.c" -o "$exe" -I"$root/include" -L"$build" -lexacdf -Wl,-rpath,"$build"

run() {  # mode np traced -> seconds
  local mode=$1 np=$2 traced=$3
  rm -f "$work/out.nc" "$work"/traces/*.json
  if [ "$traced" = 1 ]; then
    EXACDF_TRACE_DIR="$work/traces" mpiexec --oversubscribe -n "$np" "$exe" "$mode" "$nputs" "$work/out.nc"
  else
    env -u EXACDF_TRACE_DIR mpiexec --oversubscribe -n "$np" "$exe" "$mode" "$nputs" "$work/out.nc"
  fi
}

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

json_rows=()
md_rows=()
for spec in "var1 $var1_np" "vara $vara_np"; do
  set -- $spec
  mode=$1 np=$2
  plain=() traced=()
  for ((i = 0; i < reps; ++i)); do
    plain+=("$(run "$mode" "$np" 0)")
    traced+=("$(run "$mode" "$np" 1)")
  done
  p=$(printf '%s\n' "${plain[@]}" | median)
  t=$(printf '%s\n' "${traced[@]}" | median)
  pct=$(awk -v p="$p" -v t="$t" 'BEGIN {printf "%.2f", 100 * (t - p) / p}')
  echo "$mode np=$np: untraced ${plain[*]} -> $p s; traced ${traced[*]} -> $t s; overhead $pct%"
  json_rows+=("{\"mode\": \"$mode\", \"np\": $np, \"puts_per_rank\": $nputs, \"untraced_s\": [$(IFS=,; echo "${plain[*]}")], \"traced_s\": [$(IFS=,; echo "${traced[*]}")], \"untraced_median_s\": $p, \"traced_median_s\": $t, \"overhead_percent\": $pct}")
  md_rows+=("| $mode | $np | $nputs | $p | $t | $pct% |")
done

out="$root/docs/perf"
commit=$(git -C "$root" rev-parse --short HEAD)
{
  echo "{\"benchmark\": \"trace_overhead\", \"commit\": \"$commit\", \"reps\": $reps,"
  echo " \"command\": \"NPUTS=$nputs REPS=$reps VAR1_NP=$var1_np VARA_NP=$vara_np bash bench/run_trace_overhead.sh\","
  echo " \"results\": [$(IFS=,; echo "${json_rows[*]}")]}"
} > "$out/trace_overhead.json"
{
  echo "# Trace connector overhead"
  echo
  echo "A million small puts per rank (bench/trace_overhead.c), with and without the trace"
  echo "connector, runs interleaved, median of $reps, create to close (the report written at"
  echo "close included). Measured at $commit on the shared 2-core development machine."
  echo
  echo '```'
  echo "NPUTS=$nputs REPS=$reps VAR1_NP=$var1_np VARA_NP=$vara_np bash bench/run_trace_overhead.sh"
  echo '```'
  echo
  echo "| mode | ranks | puts per rank | untraced s | traced s | overhead |"
  echo "|---|---|---|---|---|---|"
  printf '%s\n' "${md_rows[@]}"
  echo
  echo "var1: independent ncmpi_put_var1_int; vara: collective ncmpi_put_vara_int_all of 4 ints."
} > "$out/trace_overhead.md"
echo "wrote $out/trace_overhead.{md,json}"
