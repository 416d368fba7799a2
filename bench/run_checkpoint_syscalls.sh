#!/usr/bin/env bash
# run_checkpoint_syscalls.sh -- what one TC run's checkpoints cost in system calls and MPI
# calls, per writer (issue 21): strace -c -f counts of openat/fsync/pwrite64/rename/symlink
# over every rank, and the collective / MPI-IO calls counted by bench/mpi_calls_count.c,
# each minus the same run without checkpoints (--every 0), so only the checkpoints remain.
# Usage: NP=2 GRAPH=usroad:4000 IOS="exacdf mpiio-opt" [POLICY=all] bench/run_checkpoint_syscalls.sh
set -euo pipefail
export LC_ALL=C
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../scripts/env.sh
source "$HERE/../scripts/env.sh"
TC="${TC:-$EXACDF_ROOT/build/examples/tc/tc}"
NP="${NP:-2}"
GRAPH="${GRAPH:-usroad:4000}"
IOS="${IOS:-exacdf mpiio-opt hdf5-opt}"
SCRATCH="${SCRATCH:-${TMPDIR:-/tmp}/exacdf-cksys}"
mkdir -p "$SCRATCH"
LIB="$SCRATCH/libmpi_calls_count.so"
mpicc -shared -fPIC -O2 "$HERE/mpi_calls_count.c" -o "$LIB"
SYSCALLS="openat,fsync,fdatasync,pwrite64,pwritev,write,rename,symlink,unlink,mkdir"

# One run: strace summary (calls per syscall over all ranks) and summed MPI counters.
profile() {  # io every -> "name=count ..." lines
  local io=$1 every=$2
  rm -rf "$SCRATCH/run"
  EXACDF_POLICY="${POLICY:-all}" timeout 600 strace -f -c -e trace="$SYSCALLS" -o "$SCRATCH/strace.txt" \
    mpiexec --oversubscribe -n "$NP" -x LD_PRELOAD="$LIB" "$TC" --graph "${GRAPH%%:*}" \
    --vertices "${GRAPH##*:}" --every "$every" --full-every 1 --dir "$SCRATCH/run" --io "$io" \
    > /dev/null 2> "$SCRATCH/mpi.txt"
  awk '$NF ~ /^[a-z0-9_]+$/ && $(NF-1) ~ /^[0-9]+$/ && $NF != "total" {
         n = ($(NF-2) ~ /^[0-9]+$/ && NF == 6) ? $(NF-2) : $(NF-1); print $NF "=" n }' \
    "$SCRATCH/strace.txt"
  grep '^mpi_calls' "$SCRATCH/mpi.txt" | tr ' ' '\n' | grep '=' | grep -v '^rank=' |
    awk -F= '{ s[$1] += $2 } END { for (k in s) print "mpi_" k "=" s[k] }'
}

for io in $IOS; do
  profile "$io" 10 | sort > "$SCRATCH/with.txt"
  profile "$io" 0 | sort > "$SCRATCH/without.txt"
  echo "== $io, $GRAPH, $NP ranks: checkpoints' calls (run with --every 10 minus --every 0, all ranks)"
  join -t= -a1 -e0 -o 0,1.2,2.2 "$SCRATCH/with.txt" "$SCRATCH/without.txt" |
    awk -F= '{ d = $2 - $3; if (d != 0) printf "  %-22s %6d\n", $1, d }'
done
rm -rf "$SCRATCH/run"
