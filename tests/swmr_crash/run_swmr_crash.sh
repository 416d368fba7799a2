#!/usr/bin/env bash
# The SWMR writer killed by SIGKILL at every write, sync and size change
# (tests/swmr_crash/swmr_crash.c says what is checked): for each scenario a
# reference run logs its generations and its number of I/O events E, then
# one run per kill point k = 1..E (JOBS at a time), each on a file of its
# own, every one of which must die; one `check` run opens every file, and
# `exacdf verify` checks every VERIFY_EVERY-th file that opened (1: all).
#   run_swmr_crash.sh SWMR_CRASH WORKDIR [WRITER_RANKS] [SCENARIOS...]
# Environment: EXACDF_TOOL (required), MPIEXEC, MPIEXEC_NUMPROC_FLAG, MPIEXEC_FLAGS,
# JOBS (2), VERIFY_EVERY (1), SAMPLE (0: every kill point; n: at most n per
# scenario, drawn with SEED (19) -- one in every step's events, so every
# phase is hit, then the rest at random; the same points for the same seed).
# With more than one writer rank each rank kills itself at its own kth event
# (the sweep goes to rank 0's E) and the durability bound is not checked.
set -u
usage="usage: run_swmr_crash.sh SWMR_CRASH WORKDIR [WRITER_RANKS] [SCENARIOS...]"
bin=${1:?$usage}
work=${2:?$usage}
np=${3:-1}
shift $(( $# < 3 ? $# : 3 ))
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=(records compact sections reopen)
: "${EXACDF_TOOL:?}" "${MPIEXEC:=mpiexec}" "${MPIEXEC_NUMPROC_FLAG:=-n}" "${MPIEXEC_FLAGS:=--oversubscribe}"
: "${JOBS:=2}" "${VERIFY_EVERY:=1}" "${SAMPLE:=0}" "${SEED:=19}"
export bin np MPIEXEC MPIEXEC_NUMPROC_FLAG MPIEXEC_FLAGS
run() { # np args...
  local n=$1; shift
  # shellcheck disable=SC2086
  "$MPIEXEC" $MPIEXEC_FLAGS "$MPIEXEC_NUMPROC_FLAG" "$n" "$@"
}
# One killed run: prints "k" if the writer was not killed (it must be).
kill_run() { # scenario dir k
  # a session directory of its own: mpiexec started at once race for a shared one
  local session="$2/session.$3"
  mkdir -p "$session"
  # shellcheck disable=SC2086
  if OMPI_MCA_orte_tmpdir_base="$session" PRTE_MCA_prte_tmpdir_base="$session" EXACDF_DEBUG_KILL_AT=$3 "$MPIEXEC" $MPIEXEC_FLAGS "$MPIEXEC_NUMPROC_FLAG" "$np" "$bin" write "$1" "$2/k$3.nc" \
       >/dev/null 2>&1; then
    echo "$3"
  fi
  rm -rf "$session"
}
export -f kill_run
# The kill points of a scenario: all of 1..E, or SAMPLE of them (see above).
kill_points() { # ref.log E
  if [ "$SAMPLE" -le 0 ] || [ "$SAMPLE" -ge "$2" ]; then seq 1 "$2"; return; fi
  awk -v n="$SAMPLE" -v seed="$SEED" -v E="$2" '
    BEGIN { srand(seed) }
    { if ($3 > last) { lo[++steps] = last + 1; hi[steps] = $3; last = $3 } }
    END {
      for (s = 1; s <= steps; s++) { k = lo[s] + int(rand() * (hi[s] - lo[s] + 1)); if (!(k in pick)) { pick[k] = 1; m++ } }
      while (m < n) { k = 1 + int(rand() * E); if (!(k in pick)) { pick[k] = 1; m++ } }
      for (k in pick) print k
    }' "$1" | sort -n
}
rm -rf "$work"; mkdir -p "$work"
failed=0
for sc in "${scenarios[@]}"; do
  dir="$work/$sc"; mkdir -p "$dir"
  run "$np" "$bin" write "$sc" "$dir/ref.nc" "$dir/ref.log" >/dev/null || { echo "FAIL: $sc reference run"; failed=1; continue; }
  events=$(awk '{ if ($3 > e) e = $3 } END { print e + 0 }' "$dir/ref.log")
  [ "$events" -gt 0 ] || { echo "FAIL: $sc: no events logged"; failed=1; continue; }
  points=$(kill_points "$dir/ref.log" "$events")
  survivors=$(echo "$points" | xargs -P "$JOBS" -I{} bash -c 'kill_run "$@"' _ "$sc" "$dir" {})
  [ -z "$survivors" ] || { echo "FAIL: $sc: runs not killed at events:" $survivors; failed=1; }
  echo "$sc: $(echo "$points" | wc -w) of $events kill points$( [ "$SAMPLE" -gt 0 ] && echo " (seed $SEED)")"
  args=("0:$dir/ref.nc")
  for k in $points; do
    if [ "$np" -gt 1 ]; then args+=("-1:$dir/k$k.nc"); else args+=("$k:$dir/k$k.nc"); fi
  done
  out=$(run 1 "$bin" check "$sc" "$dir/ref.log" "${args[@]}") || failed=1
  echo "$out" | grep -v '^opened '
  i=0; verified=0
  for f in $(echo "$out" | sed -n 's/^opened //p'); do
    i=$((i + 1))
    [ $(( (i - 1) % VERIFY_EVERY )) -eq 0 ] || continue
    verified=$((verified + 1))
    "$EXACDF_TOOL" verify "$f" >/dev/null || { echo "FAIL: exacdf verify $f"; failed=1; }
  done
  echo "$sc: exacdf verify on $verified files"
done
[ $failed -eq 0 ] && echo PASS
exit $failed
