# slow_tier.sh -- sourced by benchmark runners that need a target slower than
# memory, as a parallel file system under load is: an ext4 file system on a
# loop device, mounted -o sync (every write reaches the device before it
# returns, as on a parallel file system without client caching), its writes
# throttled to BPS bytes/s for this shell and its children with the blkio
# cgroup (v1 blkio.throttle.write_bps_device; v2 io.max where that is what the
# machine has). Needs root (losetup, mount, cgroups).
#
#   source bench/slow_tier.sh
#   slow_tier_up WORKDIR BPS      # sets SLOW_MNT and SLOW_PROBE (measured bandwidth, latency)
#   ... write into "$SLOW_MNT" ...
#   slow_tier_down                # also run from the EXIT trap slow_tier_up installs

SLOW_IMG="" SLOW_MNT="" SLOW_LOOP="" SLOW_CG="" SLOW_PROBE=""

slow_tier_down() {
  set +e
  [[ -n "$SLOW_CG" ]] && echo $$ > "$(dirname "$SLOW_CG")/cgroup.procs" && rmdir "$SLOW_CG"
  [[ -n "$SLOW_MNT" ]] && umount "$SLOW_MNT"
  [[ -n "$SLOW_LOOP" ]] && losetup -d "$SLOW_LOOP"
  [[ -n "$SLOW_IMG" ]] && rm -f "$SLOW_IMG"
  SLOW_IMG="" SLOW_MNT="" SLOW_LOOP="" SLOW_CG=""
}

slow_tier_up() {  # WORKDIR BPS
  local work=$1 bps=$2 name
  name=exacdf_slow_tier_$$
  SLOW_IMG="$work/slow.img" SLOW_MNT="$work/slow"
  mkdir -p "$SLOW_MNT"
  truncate -s 2G "$SLOW_IMG"
  SLOW_LOOP=$(losetup -f --show "$SLOW_IMG")
  trap slow_tier_down EXIT
  mkfs.ext4 -q "$SLOW_LOOP"
  mount -o sync "$SLOW_LOOP" "$SLOW_MNT"
  local devno
  devno=$(printf '%d:%d' "0x$(stat -c %t "$SLOW_LOOP")" "0x$(stat -c %T "$SLOW_LOOP")")
  if [[ -f /sys/fs/cgroup/cgroup.controllers ]] && grep -qw io /sys/fs/cgroup/cgroup.controllers; then
    SLOW_CG=/sys/fs/cgroup/$name; mkdir -p "$SLOW_CG"; echo "$devno wbps=$bps" > "$SLOW_CG/io.max"
  elif [[ -d /sys/fs/cgroup/blkio ]]; then
    SLOW_CG=/sys/fs/cgroup/blkio/$name; mkdir -p "$SLOW_CG"
    echo "$devno $bps" > "$SLOW_CG/blkio.throttle.write_bps_device"
  else
    echo "no blkio/io cgroup controller: the slow tier is the sync mount alone" >&2
  fi
  [[ -n "$SLOW_CG" ]] && echo $$ > "$SLOW_CG/cgroup.procs"
  # The tier as measured (in the cgroup): 64 MiB streaming, and 4 KiB synced writes.
  local bw t0 lat
  bw=$(dd if=/dev/zero of="$SLOW_MNT/probe" bs=1M count=64 2>&1 | awk '/copied/ {print $(NF-1), $NF}')
  t0=$(date +%s.%N)
  dd if=/dev/zero of="$SLOW_MNT/probe4k" bs=4k count=200 oflag=dsync 2>/dev/null
  lat=$(echo "$(date +%s.%N) $t0" | awk '{printf "%.3f", $1 - $2}')
  rm -f "$SLOW_MNT/probe" "$SLOW_MNT/probe4k"
  SLOW_PROBE="ext4 on a loop device mounted -o sync, writes throttled to $bps B/s: $bw streaming (64 MiB dd), 200 x 4 KiB dsync writes in $lat s"
}
