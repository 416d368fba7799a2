#!/usr/bin/env bash
# A full file system (docs/format.md, "What a reader can rely on"): mounts a
# 2 MiB tmpfs and runs disk_full there at 1 and 2 ranks with both of Open
# MPI's I/O components (ompio reports a failed write as success with a short
# count; romio321 as an error). Exits 77 (skipped) where mounting is not
# allowed (not root, no mount namespace).
#   run_disk_full.sh DISK_FULL_PROGRAM
# Environment: MPIEXEC, MPIEXEC_NUMPROC_FLAG, MPIEXEC_FLAGS.
set -u
prog=${1:?usage: run_disk_full.sh DISK_FULL_PROGRAM}
: "${MPIEXEC:=mpiexec}" "${MPIEXEC_NUMPROC_FLAG:=-n}" "${MPIEXEC_FLAGS:=--oversubscribe}"
mnt=$(mktemp -d "${TMPDIR:-/tmp}/exacdf-full.XXXXXX")
cleanup() { umount "$mnt" 2>/dev/null; rmdir "$mnt"; }
trap cleanup EXIT
if ! mount -t tmpfs -o size=2m exacdf-full "$mnt" 2>/dev/null; then
  echo "SKIP: cannot mount a tmpfs here (needs root or a mount namespace)"
  exit 77
fi
failed=0
for io in ompio romio321; do
  for np in 1 2; do
    echo "== OMPI_MCA_io=$io, $np rank(s)"
    rm -rf "${mnt:?}"/*
    # shellcheck disable=SC2086
    if ! OMPI_MCA_io=$io "$MPIEXEC" $MPIEXEC_FLAGS "$MPIEXEC_NUMPROC_FLAG" "$np" "$prog" "$mnt/run"; then
      echo "FAIL: io=$io np=$np"
      failed=1
    fi
  done
done
exit $failed
