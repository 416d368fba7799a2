# slow_tier.sh -- sourced by the benchmark runners that need a target slower than
# memory, as a parallel file system under load is: an ext4 file system on a loop
# device (mounted -o sync for write benchmarks: every write reaches the device before
# it returns, as on a parallel file system without client caching), its reads or
# writes throttled to BPS bytes/s for this shell and its children with the blkio
# cgroup (v1 blkio.throttle.{read,write}_bps_device; v2 io.max where that is what the
# machine has). Needs root (losetup, mount, cgroups). Used by run_vpic_io.sh
# (TARGET=slow), run_cache_bench.sh and run_cache_reads.sh.
#
#   source bench/slow_tier.sh
#   slow_tier_mount WORKDIR [MOUNT_OPTIONS]   # sets SLOW_MNT; slow_tier_down runs at EXIT
#   slow_tier_throttle read|write BPS         # this shell and its children, from now on
#   slow_tier_probe_write                     # sets SLOW_BW, SLOW_LAT, SLOW_PROBE
#   slow_tier_up WORKDIR BPS                  # the three above for a write benchmark
#
# A runner with cleanup of its own calls slow_tier_down from its EXIT trap.

SLOW_IMG="" SLOW_MNT="" SLOW_LOOP="" SLOW_CG="" SLOW_BW="" SLOW_LAT="" SLOW_PROBE=""

slow_tier_down() {
  set +e
  [[ -n "$SLOW_CG" ]] && echo $$ > "$(dirname "$SLOW_CG")/cgroup.procs" && rmdir "$SLOW_CG"
  [[ -n "$SLOW_MNT" ]] && umount "$SLOW_MNT"
  [[ -n "$SLOW_LOOP" ]] && losetup -d "$SLOW_LOOP"
  [[ -n "$SLOW_IMG" ]] && rm -f "$SLOW_IMG"
  SLOW_IMG="" SLOW_MNT="" SLOW_LOOP="" SLOW_CG=""
}

slow_tier_mount() {  # WORKDIR [MOUNT_OPTIONS]
  SLOW_IMG="$1/slow.img" SLOW_MNT="$1/slow"
  mkdir -p "$SLOW_MNT"
  truncate -s 2G "$SLOW_IMG"
  SLOW_LOOP=$(losetup -f --show "$SLOW_IMG")
  trap slow_tier_down EXIT
  mkfs.ext4 -q "$SLOW_LOOP"
  if [[ -n "${2:-}" ]]; then mount -o "$2" "$SLOW_LOOP" "$SLOW_MNT"; else mount "$SLOW_LOOP" "$SLOW_MNT"; fi
}

slow_tier_throttle() {  # read|write BPS
  local dir=$1 bps=$2 devno name=exacdf_slow_tier_$$
  devno=$(printf '%d:%d' "0x$(stat -c %t "$SLOW_LOOP")" "0x$(stat -c %T "$SLOW_LOOP")")
  if [[ -f /sys/fs/cgroup/cgroup.controllers ]] && grep -qw io /sys/fs/cgroup/cgroup.controllers; then
    SLOW_CG=/sys/fs/cgroup/$name; mkdir -p "$SLOW_CG"; echo "$devno ${dir:0:1}bps=$bps" > "$SLOW_CG/io.max"
  elif [[ -d /sys/fs/cgroup/blkio ]]; then
    SLOW_CG=/sys/fs/cgroup/blkio/$name; mkdir -p "$SLOW_CG"
    echo "$devno $bps" > "$SLOW_CG/blkio.throttle.${dir}_bps_device"
  else
    echo "no blkio/io cgroup controller: the slow tier is not throttled" >&2
  fi
  [[ -n "$SLOW_CG" ]] && echo $$ > "$SLOW_CG/cgroup.procs"
  return 0
}

# The tier as measured (in the cgroup): 64 MiB streaming, and 200 synced 4 KiB writes.
slow_tier_probe_write() {
  local t0
  SLOW_BW=$(dd if=/dev/zero of="$SLOW_MNT/probe" bs=1M count=64 2>&1 | awk '/copied/ {print $(NF-1), $NF}')
  t0=$(date +%s.%N)
  dd if=/dev/zero of="$SLOW_MNT/probe4k" bs=4k count=200 oflag=dsync 2>/dev/null
  SLOW_LAT=$(echo "$(date +%s.%N) $t0" | awk '{printf "%.3f", $1 - $2}')
  rm -f "$SLOW_MNT/probe" "$SLOW_MNT/probe4k"
  SLOW_PROBE="ext4 on a loop device mounted -o sync, writes throttled to ${SLOW_THROTTLE_BPS:-?} B/s: $SLOW_BW streaming (64 MiB dd), 200 x 4 KiB dsync writes in $SLOW_LAT s"
}

slow_tier_up() {  # WORKDIR BPS
  slow_tier_mount "$1" sync
  slow_tier_throttle write "$2"
  SLOW_THROTTLE_BPS=$2 slow_tier_probe_write
}
