#!/usr/bin/env bash
# The TC application killed (SIGKILL, rank 0) in the middle of a checkpoint,
# then restarted from its directory at the same and at a different rank
# count: the closure (tuple count and order-free digest) must equal an
# uninterrupted run's. Usage: run_tc_crash.sh TC_BINARY SCRATCH_DIR
set -euo pipefail
TC=$1
DIR=$2
MPIEXEC=${MPIEXEC:-mpiexec}
rm -rf "$DIR" && mkdir -p "$DIR"
ARGS=(--graph vsp_finan --vertices 256 --every 3 --full-every 2)
run() { local np=$1; shift; timeout 120 "$MPIEXEC" --oversubscribe -n "$np" "$TC" "$@"; }
closure() { sed -n 's/.* tuples=\([0-9]*\) digest=\([0-9a-f]*\).*/\1 \2/p'; }

want=$(run 2 "${ARGS[@]}" --dir "$DIR/clean" | closure)
[ -n "$want" ] || { echo "FAIL: the uninterrupted run printed no closure"; exit 1; }
echo "uninterrupted: $want"

# Checkpoints write G (once), T and dT: the 6th relation is in the third checkpoint, whose
# commit dies after its file is written and synced, before MANIFEST (a symbolic link to the
# current checkpoint file, which holds the manifest) names it.
set +e
EXACDF_CHECKPOINT_KILL_AFTER=6 run 2 "${ARGS[@]}" --dir "$DIR/crash" > "$DIR/crash.out" 2>&1
rc=$?
set -e
[ "$rc" -ne 0 ] || { echo "FAIL: the run that should have been killed exited 0"; exit 1; }
case "$(readlink "$DIR/crash/MANIFEST")" in
  ck-6.*.nc) ;;
  *) echo "FAIL: MANIFEST does not name the second checkpoint's file"; ls -l "$DIR/crash"; exit 1 ;;
esac
grep -aq '^iteration 6$' "$DIR/crash/MANIFEST" || { echo "FAIL: the manifest is not the second checkpoint's"; exit 1; }
ls "$DIR"/crash/ck-9.*.nc > /dev/null || { echo "FAIL: no unreferenced third checkpoint file"; exit 1; }
cp -r "$DIR/crash" "$DIR/crash3"

for np in 2 3; do
  src=$DIR/crash; [ "$np" = 3 ] && src=$DIR/crash3
  got=$(run "$np" --restart "$src" --every 3 --full-every 2 | closure)
  echo "restart at $np ranks: $got"
  [ "$got" = "$want" ] || { echo "FAIL: restart at $np ranks: '$got' != '$want'"; exit 1; }
done
# The restarted runs committed checkpoints of their own: every file left is one the manifest
# names (grep -a: MANIFEST links to a netCDF file whose manifest attribute is text).
for d in "$DIR"/crash/ck-* "$DIR"/crash3/ck-*; do
  grep -aq " $(basename "$d")\$" "$(dirname "$d")/MANIFEST" || { echo "FAIL: $d was not collected"; exit 1; }
done
echo PASS
