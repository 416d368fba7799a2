#!/usr/bin/env bash
# run_flash_pairs.sh -- paired runs of the FLASH-IO-like writer (bench/flash_io.c):
# exacdf with its hints at their defaults ("new"), exacdf with
# PNETCDF_HINTS="exa_direct_put=disable;exa_two_phase=disable" ("old": OMPIO's
# collective call for every put), Debian's PnetCDF and plain pwrite, alternated
# (order rotated per round), one launch each per round; each launch writes the
# three files REPS_IN times. Prints one line per launch:
#   RAW variant np nxb round write_s ckpt_s plot_centered_s plot_corner_s task_clock_ms
# (times: the median over the launch's repetitions of the sum over the three
# files of the max-over-ranks time) and, at the end, the medians of the paired
# ratios new/other per rank count (below 1: new faster).
#
#   BIN=dir (flash_io_{exacdf,pnetcdf,posix}; exacdf's library from LIB=dir via
#   LD_LIBRARY_PATH) NPS="1 2 4 8" ROUNDS=5 REPS_IN=3 NXB=8
#   TARGET=67108864 (bytes of the three files together, as run_data_bench.sh)
#   bench/run_flash_pairs.sh
# VARIANTS="new direct pnetcdf" picks variants ("direct": exacdf with
# PNETCDF_HINTS=exa_direct_put=enable, every put direct).
# SUMMARIZE=file prints the summary of the RAW lines in file, running nothing.
# OLD_LIB=dir makes "old" another exacdf library (LD_LIBRARY_PATH=dir, hints at
# their defaults), e.g. main's build, for a before/after pair.
set -euo pipefail
BIN=${BIN:?set BIN to the directory of the flash_io programs}
LIB=${LIB:-}
NPS=${NPS:-"1 2 4 8"}
ROUNDS=${ROUNDS:-5}
REPS_IN=${REPS_IN:-3}
NXB=${NXB:-8}
TARGET=${TARGET:-67108864}
DATADIR=${DATADIR:-$(mktemp -d)}
VARIANTS=(${VARIANTS:-new old pnetcdf posix})
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
RAW=$(mktemp)

median() { sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
field() { grep '^RESULT' <<<"$1" | sed "s/.* $2=\([0-9.]*\).*/\1/" | median; }

launch() {  # variant np round
  local v=$1 np=$2 round=$3 prog env=()
  case $v in
    new) prog=exacdf ;;
    old) prog=exacdf env=("PNETCDF_HINTS=exa_direct_put=disable;exa_two_phase=disable") ;;
    direct) prog=exacdf env=("PNETCDF_HINTS=exa_direct_put=enable") ;;
    *) prog=$v ;;
  esac
  if [[ $v == old && -n ${OLD_LIB:-} ]]; then
    env=(LD_LIBRARY_PATH=$OLD_LIB)
  elif [[ -n $LIB ]]; then
    env+=(LD_LIBRARY_PATH=$LIB)
  fi
  sync
  local out stat cpu
  stat=$(mktemp)
  out=$(env "${env[@]}" perf stat -x, -e task-clock -o "$stat" mpiexec --oversubscribe -n "$np" \
    "$BIN/flash_io_$prog" -d "$DATADIR" -n "$NXB" -t "$TARGET" -r "$REPS_IN")
  cpu=$(grep task-clock "$stat" | cut -d, -f1)
  rm -f "$stat"
  echo "RAW $v $np $NXB $round $(field "$out" write_s) $(field "$out" ckpt_s) $(field "$out" plot_centered_s)" \
    "$(field "$out" plot_corner_s) $cpu" | tee -a "$RAW"
}

if [[ -n ${SUMMARIZE:-} ]]; then  # SUMMARIZE=log: only the summary of a run's RAW lines
  grep '^RAW' "$SUMMARIZE" >"$RAW"
  NPS=
fi
for np in $NPS; do
  for ((round = 0; round < ROUNDS; round++)); do
    for ((k = 0; k < ${#VARIANTS[@]}; k++)); do
      launch "${VARIANTS[$(((k + round) % ${#VARIANTS[@]}))]}" "$np" "$round"
    done
  done
done
echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
# Medians of the per-round ratios of new over each other variant: the three
# files' time, the checkpoint's, the two plot files', task-clock.
awk -v others="${VARIANTS[*]}" '
  function median(a, n,   i, j, x) {
    for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  $1 == "RAW" { id = $2 " " $3 " " $5; w[id] = $6; ck[id] = $7; pc[id] = $8; pk[id] = $9; c[id] = $10
                key[$3] = 1; rounds[$5] = 1 }
  END {
    no = split(others, o, " ")
    printf "%-3s", "np"
    for (i = 1; i <= no; i++) if (o[i] != "new") printf " | %-30s", "new/" o[i] " all ckpt plt_c plt_k cpu"
    printf "\n"
    for (k in key) {
      line = sprintf("%-3s", k)
      for (i = 1; i <= no; i++) {
        if (o[i] == "new") continue
        n = 0
        for (q in rounds) {
          a = "new " k " " q; b = o[i] " " k " " q
          if (w[a] > 0 && w[b] > 0) {
            n++; rw[n] = w[a] / w[b]; rk[n] = ck[a] / ck[b]; rp[n] = pc[a] / pc[b]; rq[n] = pk[a] / pk[b]
            rc[n] = c[a] / c[b] }
        }
        line = line sprintf(" | %.2f %.2f %.2f %.2f %.2f (n=%d)", median(rw, n), median(rk, n), median(rp, n),
                            median(rq, n), median(rc, n), n)
      }
      print line
    }
  }' "$RAW" | sort -n
rm -f "$RAW"
