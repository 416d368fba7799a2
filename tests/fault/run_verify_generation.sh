#!/usr/bin/env bash
# `exacdf verify` on a partitioned file whose newest superblock slot is
# damaged (docs/format.md, "What a reader can rely on"): it checks the
# previous generation, says which, warns that a newer one is damaged and
# exits 3; EXACDF_VERBOSE=1 says so at the open. An intact file: "OK
# (generation N)", exit 0.
#   run_verify_generation.sh WORKDIR
# Environment: EXACDF_TOOL (required), NCGEN, MPIEXEC, MPIEXEC_NUMPROC_FLAG, MPIEXEC_FLAGS.
set -u
work=${1:?usage: run_verify_generation.sh WORKDIR}
: "${EXACDF_TOOL:?}" "${NCGEN:=ncgen}" "${MPIEXEC:=mpiexec}" "${MPIEXEC_NUMPROC_FLAG:=-n}" "${MPIEXEC_FLAGS:=--oversubscribe}"
mkdir -p "$work"
failed=0
fail() { failed=1; echo "FAIL: $*"; }
tool() { # np args...
  local np=$1; shift
  # shellcheck disable=SC2086
  "$MPIEXEC" $MPIEXEC_FLAGS "$MPIEXEC_NUMPROC_FLAG" "$np" "$EXACDF_TOOL" "$@"
}
cat > "$work/small.cdl" <<'CDL'
netcdf small {
dimensions:
  n = 4 ;
variables:
  int x(n) ;
data:
  x = 1, 2, 3, 4 ;
}
CDL
"$NCGEN" -k nc5 -o "$work/small.nc" "$work/small.cdl" || { echo "FAIL: ncgen"; exit 1; }
for np in 1 2; do
  file=$work/small_np$np.exa
  tool "$np" convert -q -f partitioned "$work/small.nc" "$file" || { fail "convert np$np"; continue; }
  out=$(tool "$np" verify "$file" 2>&1); rc=$?
  [[ $rc == 0 && $out == *"$file: OK (generation "* ]] || fail "intact np$np: rc $rc: $out"
  # Damage the newest slot: flip a byte if the other slot holds an older
  # generation, else write a slot that has the magic but fails its checksum.
  newest=$(python3 - "$file" <<'PY'
import sys
path = sys.argv[1]
data = bytearray(open(path, 'rb').read(1024))
magic = b'\x89EXACDF\n'
gens = [int.from_bytes(data[at + 16:at + 24], 'big') if data[at:at + 8] == magic else 0 for at in (0, 512)]
newest = 0 if gens[0] >= gens[1] else 1
other = 1 - newest
if gens[other]:
    at = newest * 512 + 40
    data[at] ^= 0x10
    print(gens[other])
else:
    at = other * 512
    data[at:at + 128] = magic + bytes([0x5a] * 120)
    print(gens[newest])
with open(path, 'r+b') as f:
    f.write(data)
PY
)
  out=$(tool "$np" verify "$file" 2>/dev/null); rc=$?
  err=$(tool "$np" verify "$file" 2>&1 >/dev/null)
  [[ $rc == 3 ]] || fail "damaged np$np: exit $rc (want 3)"
  [[ $out == *"$file: OK (generation $newest)"* ]] || fail "damaged np$np: stdout: $out"
  [[ $err == *"warning: a newer generation than $newest is damaged"* ]] || fail "damaged np$np: stderr: $err"
  err=$(EXACDF_VERBOSE=1 tool "$np" verify "$file" 2>&1 >/dev/null)
  [[ $err == *"ncmpi_open"*"opened generation $newest"* ]] || fail "EXACDF_VERBOSE np$np: $err"
done
[[ $failed == 0 ]] && echo "PASS"
exit $failed
