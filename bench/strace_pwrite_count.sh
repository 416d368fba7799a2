#!/bin/bash
# usage: bench/strace_pwrite_count.sh N label prog args...
# Runs prog on N ranks under strace -ff and prints its pwrite-family calls and
# the 1-byte pwrite64 ones (the writes that extend the file, MpiFile::extend_before_write), all ranks.
n=$1; label=$2; shift 2
d=${TMPDIR:-/tmp}/st/$label; rm -rf $d; mkdir -p $d
mpiexec -n $n strace -f -qq -e trace=pwrite64,pwritev,pwritev2,write -o $d/t -ff "$@" >/dev/null 2>&1 || echo "RUN FAILED $label"
tot=$(cat $d/t.* | grep -c '^pwrite')
one=$(cat $d/t.* | grep -E '^pwrite64\([0-9]+, .*, 1, [0-9]+\) += 1$' | wc -l)
echo "$label ranks=$n pwrite_calls=$tot one_byte=$one"
