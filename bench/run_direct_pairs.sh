#!/usr/bin/env bash
# run_direct_pairs.sh -- paired runs of partition3d for the direct put and
# the own two-phase (docs/perf/data_direct.md): exacdf with its hints at
# their defaults ("new"), exacdf with
# PNETCDF_HINTS="exa_direct_put=disable;exa_two_phase=disable" ("old": the
# same library, OMPIO's collective call as before both), Debian's PnetCDF
# and plain pwrite, alternated
# (order rotated per round), one launch each per round; each launch writes
# and reads its pattern REPS_IN times. Prints one line per launch:
#   RAW variant np pattern round write_s(median of the launch) read_s task_clock_ms
# and, at the end, the medians of the paired ratios per (np, pattern).
#
#   BIN=dir (partition3d_{exacdf,pnetcdf,posix}; exacdf's library from
#   LIB=dir via LD_LIBRARY_PATH) NPS="1 2" PATTERNS="Z Y ZY" ROUNDS=5
#   DIMS="256 256 256" REPS_IN=3 bench/run_direct_pairs.sh
set -euo pipefail
BIN=${BIN:?set BIN to the directory of the partition3d programs}
LIB=${LIB:-}
NPS=${NPS:-"1 2"}
PATTERNS=${PATTERNS:-"Z Y ZY"}
ROUNDS=${ROUNDS:-5}
REPS_IN=${REPS_IN:-3}
read -r DZ DY DX <<<"${DIMS:-256 256 256}"
DATADIR=${DATADIR:-$(mktemp -d)}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
RAW=$(mktemp)
VARIANTS=(new old pnetcdf posix)

launch() {  # variant np pattern round
  local v=$1 np=$2 pat=$3 round=$4 prog env=()
  case $v in
    new) prog=exacdf ;;
    old) prog=exacdf env=("PNETCDF_HINTS=exa_direct_put=disable;exa_two_phase=disable") ;;
    *) prog=$v ;;
  esac
  [[ -n $LIB ]] && env+=(LD_LIBRARY_PATH=$LIB)
  sync
  local out stat
  stat=$(mktemp)
  out=$(env "${env[@]}" perf stat -x, -e task-clock -o "$stat" mpiexec --oversubscribe -n "$np" \
    "$BIN/partition3d_$prog" -d "$DATADIR" -z "$DZ" -y "$DY" -x "$DX" -p "$pat" -r "$REPS_IN")
  local w r cpu
  w=$(grep '^RESULT' <<<"$out" | sed 's/.*write_s=\([0-9.]*\).*/\1/' | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
  r=$(grep '^RESULT' <<<"$out" | sed 's/.*read_s=\([0-9.]*\).*/\1/' | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
  cpu=$(grep task-clock "$stat" | cut -d, -f1)
  rm -f "$stat"
  echo "RAW $v $np $pat $round $w $r $cpu" | tee -a "$RAW"
}

for np in $NPS; do
  for pat in $PATTERNS; do
    for ((round = 0; round < ROUNDS; round++)); do
      for ((k = 0; k < ${#VARIANTS[@]}; k++)); do
        launch "${VARIANTS[$(((k + round) % ${#VARIANTS[@]}))]}" "$np" "$pat" "$round"
      done
    done
  done
done
echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
# Medians of the per-round ratios of new over each other variant (below 1:
# new faster): write time, read time, task-clock (CPU of the whole launch).
summarize() {  # RAW lines on stdin
  awk '
    function median(a, n,   i, j, x) {
      for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    $1 == "RAW" { k = $3 " " $4; id = $2 " " k " " $5; w[id] = $6; r[id] = $7; c[id] = $8; key[k] = 1; rounds[$5] = 1 }
    END {
      printf "%-3s %-4s | %-22s | %-22s | %-22s\n", "np", "pat", "new/old w r cpu", "new/pnetcdf w r cpu", "new/posix w r cpu"
      split("old pnetcdf posix", others, " ")
      for (k in key) {
        split(k, kp, " "); line = sprintf("%-3s %-4s", kp[1], kp[2])
        for (o = 1; o <= 3; o++) {
          n = 0
          for (q in rounds) {
            a = "new " k " " q; b = others[o] " " k " " q
            if (w[a] > 0 && w[b] > 0) { n++; rw[n] = w[a] / w[b]; rr[n] = r[a] / r[b]; rc[n] = c[a] / c[b] }
          }
          line = line sprintf(" | %.2f %.2f %.2f (n=%d)", median(rw, n), median(rr, n), median(rc, n), n)
        }
        print line
      }
    }' | sort -n
}
summarize <"$RAW"
rm -f "$RAW"
