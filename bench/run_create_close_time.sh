#!/bin/sh
# Paired timings of a small classic file's life (bench/create_close_time.c)
# with two builds of libexacdf ("before" and "after"), alternating, ROUNDS
# rounds per rank count; prints each run and the median of the per-round
# ratios after/before (wall of create..close, wall of open..close, CPU).
# Usage: bench/run_create_close_time.sh BEFORE_LIB_DIR AFTER_LIB_DIR [RANKS] [ROUNDS] [REPS]
set -e
src=$(cd "$(dirname "$0")" && pwd)
before=$1; after=$2; ranks=${3:-"1 2 4 8"}; rounds=${4:-5}; reps=${5:-100}
out=${TMPDIR:-/tmp}/create_close_time; mkdir -p "$out"
mpicc -O2 "$src/create_close_time.c" -o "$out/cct" -I"$src/../include" -L"$after" -lexacdf
run() {  # lib dir, ranks
  LD_LIBRARY_PATH="$1" mpiexec --oversubscribe -x LD_LIBRARY_PATH -n "$2" "$out/cct" "$out" "$reps"
}
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
for np in $ranks; do
  : > "$out/ratios.$np"
  for r in $(seq "$rounds"); do
    if [ $((r % 2)) -eq 1 ]; then b=$(run "$before" "$np"); a=$(run "$after" "$np")
    else a=$(run "$after" "$np"); b=$(run "$before" "$np"); fi
    echo "np $np round $r before: $b"
    echo "np $np round $r after:  $a"
    echo "$b $a" | awk '{print $10/$2, $12/$4, $14/$6}' >> "$out/ratios.$np"
  done
  sort -g -k1 "$out/ratios.$np" | awk -v np="$np" '{w[NR]=$1} END {printf "np %s after/before write: median %.3f (min %.3f max %.3f)\n", np, w[int((NR+1)/2)], w[1], w[NR]}'
  sort -g -k2 "$out/ratios.$np" | awk -v np="$np" '{print $2}' | awk -v np="$np" '{w[NR]=$1} END {printf "np %s after/before read:  median %.3f (min %.3f max %.3f)\n", np, w[int((NR+1)/2)], w[1], w[NR]}'
  sort -g -k3 "$out/ratios.$np" | awk -v np="$np" '{print $3}' | awk -v np="$np" '{w[NR]=$1} END {printf "np %s after/before cpu:   median %.3f (min %.3f max %.3f)\n", np, w[int((NR+1)/2)], w[1], w[NR]}'
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
