# shellcheck shell=bash
# Environment for building and running exacdf here. Sourced by the other scripts; changes
# nothing permanent. Safe to source more than once.

EXACDF_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export EXACDF_ROOT

# Open MPI 4.1 refuses to run as root (containers, CI) unless both of these are set.
export OMPI_ALLOW_RUN_AS_ROOT=1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Tests and the demo run 4 ranks on 2 cores: allow more ranks than slots, and make waiting
# ranks yield the core instead of spinning (otherwise oversubscribed runs crawl).
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_mpi_yield_when_idle=1
# Cross-memory attach (process_vm_readv) is often forbidden in containers; shared memory
# copy-in/copy-out works everywhere and costs nothing at our message sizes.
export OMPI_MCA_btl_vader_single_copy_mechanism=none
# Only shared memory and self: no network probing, no warnings about missing InfiniBand.
export OMPI_MCA_btl=self,vader
export OMPI_MCA_pml=ob1
# Quiet the "no OpenFabrics device" style help messages.
export OMPI_MCA_btl_base_warn_component_unused=0
# PMIx tries to use a security plugin that needs munge in some images; native is enough here.
export PMIX_MCA_psec=native
# PMIx gds/ds21 can fail in restricted /dev/shm; hash is always available.
export PMIX_MCA_gds=hash

# Open MPI 4 keeps a session directory in ${OMPI_MCA_orte_tmpdir_base:-${TMPDIR:-/tmp}}:
# mpiexec creates ompi.<host>.<uid> there and removes it when it is empty again at exit. Two
# mpiexec of the same user (a test run and the demo, say) started at the same moment race
# on it, and the loser fails ("A call to mkdir was unable to create the desired directory
# ... File exists"). Unless the caller chose one, mpiexec started from this shell use a base
# of their own (made now; removed at exit if empty and no other EXIT trap is set). ctest
# gives each test its own (tests/with_mpi_session_dir.sh).
if [[ -z "${OMPI_MCA_orte_tmpdir_base:-}" ]]; then
  OMPI_MCA_orte_tmpdir_base="${TMPDIR:-/tmp}/exacdf-ompi.$(id -u).$$"
  if mkdir -p -m 700 "$OMPI_MCA_orte_tmpdir_base" 2>/dev/null; then
    export OMPI_MCA_orte_tmpdir_base
    [[ -n "$(trap -p EXIT)" ]] || trap 'rmdir "$OMPI_MCA_orte_tmpdir_base" 2>/dev/null' EXIT
  else
    unset OMPI_MCA_orte_tmpdir_base  # (an unwritable TMPDIR: leave Open MPI its default)
  fi
fi

# Parallel build and test: all cores of the machine.
EXACDF_JOBS="${EXACDF_JOBS:-$(nproc 2>/dev/null || echo 2)}"
export EXACDF_JOBS

# The project's Python venv, if set up.
if [[ -x "$EXACDF_ROOT/.venv/bin/python" ]]; then
  EXACDF_PYTHON="$EXACDF_ROOT/.venv/bin/python"
  export EXACDF_PYTHON
fi

# Ninja if present, else Make.
if command -v ninja >/dev/null 2>&1; then
  EXACDF_GENERATOR=(-G Ninja)
else
  EXACDF_GENERATOR=()
fi
