#!/bin/bash
# usage: bench/strace_pwrite_time.sh N label prog args...
# As strace_pwrite_count.sh, with the seconds strace -T gives each call: all
# pwrite-family calls and the 1-byte pwrite64 ones, and their shares.
n=$1; label=$2; shift 2
d=${TMPDIR:-/tmp}/st/$label; rm -rf $d; mkdir -p $d
mpiexec -n $n strace -f -qq -T -e trace=pwrite64,pwritev,pwritev2 -o $d/t -ff "$@" >/dev/null 2>&1 || echo "RUN FAILED $label"
cat $d/t.* | grep '^pwrite' | awk -v l="$label" -v n=$n '
  { t=$NF; gsub(/[<>]/,"",t); all+=t; c++; if ($0 ~ /, 1, [0-9]+\) += 1 </) { one+=t; oc++ } }
  END { printf "%s ranks=%d pwrite_calls=%d pwrite_s=%.4f one_byte_calls=%d one_byte_s=%.4f share_calls=%.3f share_time=%.3f\n", l, n, c, all, oc, one, oc/c, one/all }'
