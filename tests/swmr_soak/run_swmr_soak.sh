#!/usr/bin/env bash
# run_swmr_soak.sh SOAK EXACDF DIR N WRITERS: the SWMR soak of issue 19. A writer job of
# WRITERS ranks commits N records while three reader jobs (1, 2 and 1 ranks) follow the file,
# each a separate mpiexec, as readers in other jobs would be; then `exacdf verify` checks the
# file. Fails on any torn or misstamped value, a decreasing generation, a job that fails or
# one that runs past its time limit (SOAK_LIMIT seconds, default 800: a hang is a failure).
# Every mpiexec gets its own Open MPI session directory: four started at once would otherwise
# race to create one ("mkdir ... File exists").
set -u
soak=${1:?usage: run_swmr_soak.sh SOAK EXACDF DIR N WRITERS}
tool=${2:?}
dir=${3:?}
n=${4:?}
writers=${5:?}
limit=${SOAK_LIMIT:-800}
rm -rf "$dir" && mkdir -p "$dir" || exit 1
file="$dir/soak.nc"
job() { # job K NP MODE: one mpiexec with its own session directory, under a time limit
  mkdir -p "$dir/session.$1"
  OMPI_MCA_orte_tmpdir_base="$dir/session.$1" PRTE_MCA_prte_tmpdir_base="$dir/session.$1" \
    timeout --kill-after=10 "$limit" mpiexec --oversubscribe -n "$2" "$soak" "$3" "$file" "$n"
}
start=$SECONDS
job 0 "$writers" write &
pids=($!)
k=1
for r in 1 2 1; do
  job "$k" "$r" read &
  pids+=($!)
  k=$((k + 1))
done
status=0
for p in "${pids[@]}"; do
  wait "$p" || { echo "run_swmr_soak: a job failed or timed out (pid $p)"; status=1; }
done
"$tool" verify "$file" || { echo "run_swmr_soak: exacdf verify failed"; status=1; }
echo "run_swmr_soak: $n commits, $writers writer rank(s), 3 reader jobs: $((SECONDS - start)) s, status $status"
exit $status
