#!/usr/bin/env bash
# The cache connector's crash tests (issue 18): a writer is killed (SIGKILL,
# EXACDF_CACHE_CRASH=point:n[:rank]) inside a put, after a record, in the
# middle of a drain (data written, log not yet advanced), after a drain, and
# during close, at 1 and 2 ranks, one rank or every rank, at passages chosen
# by a few seeds; then `exacdf recover` replays the logs and cache_crash check
# proves each rank's blocks are a committed prefix (nothing torn), exactly as
# many as were committed where that is known. Also: a failing target (the
# failing-write hook) keeps the logs, the next open refuses the file, a
# second run recovers (exacdf recover, and cache{recover=auto}); close=detach
# leaves the drain to a helper process; a log whose
# file was replaced is refused and kept; a full tier (a small tmpfs, where
# mounting is allowed) writes through.
#   run_cache_crash.sh CACHE_CRASH_PROGRAM EXACDF_TOOL SCRATCH_DIR
# Environment: MPIEXEC, MPIEXEC_FLAGS.
set -u
prog=${1:?usage: run_cache_crash.sh PROGRAM EXACDF_TOOL SCRATCH}
tool=${2:?}
scratch=${3:?}
: "${MPIEXEC:=mpiexec}" "${MPIEXEC_FLAGS:=--oversubscribe}"
rm -rf "$scratch" && mkdir -p "$scratch"
tier="$scratch/tier"
file="$scratch/crash.nc"
failed=0
fail() { echo "FAIL: $*"; failed=1; }
run() { local np=$1; shift; timeout 120 "$MPIEXEC" $MPIEXEC_FLAGS -n "$np" "$@"; }
logs() { find "$tier" -name '*.log' 2>/dev/null | wc -l; }

# crash NP SPEC POINT:N[:RANK] CHECK_RANK NMIN NMAX
crash() {
  local np=$1 spec=$2 point=$3 rank=$4 nmin=$5 nmax=$6
  echo "== np=$np $spec kill at $point"
  rm -rf "$tier" "$file"
  if EXACDF_CACHE_CRASH=$point run "$np" "$prog" write "$file" "$spec" >/dev/null 2>&1; then
    fail "$point: the writer was not killed"
    return
  fi
  [[ $(logs) -gt 0 ]] || fail "$point: no log left behind"
  run 1 "$tool" recover --dir "$tier" "$file" || fail "$point: recover failed"
  [[ $(logs) -eq 0 ]] || fail "$point: logs remain after recover"
  run "$np" "$prog" check "$file" "$rank" "$nmin" "$nmax" || fail "$point: check"
}

close_spec="cache{dir=$tier;drain=close}"
eager_spec="cache{dir=$tier;size=16K}"   # 8 KiB per rank at 2 ranks: drains as it goes
for seed in 1 2; do
  n=$((2 + (seed * 7) % 19))
  crash 2 "$close_spec" "put_mid:$n" -1 $((n - 1)) $((n - 1))           # every rank, inside its n-th record
  crash 2 "$eager_spec" "put_after:$n:1" 1 "$n" "$n"                       # one rank, just after a record
  crash 1 "$eager_spec" "drain_mid:$((seed + 1))" -1 1 24                  # written, log not yet advanced
  crash 2 "$close_spec" "drain_after:$((seed + 2)):0" -1 0 24
done
crash 1 "$close_spec" "put_after:9" -1 9 9
crash 2 "$close_spec" "close_synced:1" -1 24 24                            # during close

echo "== a failing target keeps the logs; the next open refuses; recover"
rm -rf "$tier" "$file"
run 2 "$prog" write "$file" "$close_spec" 1 >/dev/null 2>&1
[[ $? -eq 3 ]] || fail "failing target: close did not report the failed drain"
[[ $(logs) -eq 2 ]] || fail "failing target: logs not kept ($(logs))"
run 2 "$prog" opens "$file" "$close_spec" efile 2>/dev/null || fail "open with undrained logs was not refused"
run 1 "$tool" recover --dir "$tier" "$file" || fail "recover after a failing target"
run 2 "$prog" check "$file" -1 24 24 || fail "failing target: check after recover"

echo "== ... or cache{recover=auto} at the next open"
rm -rf "$tier" "$file"
run 2 "$prog" write "$file" "$close_spec" 2 >/dev/null 2>&1
[[ $(logs) -eq 2 ]] || fail "failing target (2nd write): logs not kept"
run 2 "$prog" opens "$file" "cache{dir=$tier;recover=auto}" ok || fail "recover=auto open"
[[ $(logs) -eq 0 ]] || fail "recover=auto left logs"
run 2 "$prog" check "$file" -1 24 24 || fail "recover=auto: check"

echo "== a log of a replaced file is refused and kept"
rm -rf "$tier" "$file"
EXACDF_CACHE_CRASH=close_synced:1 run 2 "$prog" write "$file" "$close_spec" >/dev/null 2>&1
cp "$file" "$file.copy" && mv "$file.copy" "$file"   # same bytes, another file
if run 1 "$tool" recover --dir "$tier" "$file" 2>"$scratch/refused.txt"; then
  fail "a mismatched manifest was accepted"
fi
grep -q "replaced" "$scratch/refused.txt" || fail "no reason given: $(cat "$scratch/refused.txt")"
[[ $(logs) -eq 2 ]] || fail "a refused log was removed"

echo "== close=detach: a helper process drains after the program ended"
rm -rf "$tier" "$file"
EXACDF_RECOVER_COMMAND=$tool run 2 "$prog" write "$file" "cache{dir=$tier;close=detach;drain=close}" 0 quiet \
  || fail "close=detach: the writer failed"
for _ in $(seq 60); do [[ $(logs) -eq 0 ]] && break; sleep 1; done
[[ $(logs) -eq 0 ]] || fail "close=detach: the helper left the logs"
run 2 "$prog" check "$file" -1 24 24 || fail "close=detach: check"

echo "== a full tier: puts write through"
mnt="$scratch/full"
mkdir -p "$mnt"
if mount -t tmpfs -o size=12k exacdf-cache-full "$mnt" 2>/dev/null; then
  rm -f "$file"
  run 2 "$prog" write "$file" "cache{dir=$mnt/tier;drain=close}" || fail "full tier: the writer failed"
  run 2 "$prog" check "$file" -1 24 24 || fail "full tier: check"
  umount "$mnt"
else
  echo "(skipped: cannot mount a tmpfs here)"
fi
exit $failed
