#!/usr/bin/env python3
"""Summarizes an `strace -f -T -tt` trace of one cache_reads run (bench/profile_cache_reads.sh):
per thread, the reads of the data file (fds opened on a path ending in NAME): how many, their
sizes, the time inside them, and the fadvise calls.
  profile_cache_reads.py TRACE NAME"""
import re
import sys
from collections import defaultdict

trace, name = sys.argv[1], sys.argv[2]
line_re = re.compile(r'^(\d+)\s+(\d+):(\d+):([\d.]+)\s+(.*)$')
call_re = re.compile(r'^(\w+)\((.*)\)\s+=\s+(-?\d+|\?)(?:\s.*?)?\s+<([\d.]+)>$')
pending = {}  # pid -> the start of an unfinished call
fds = defaultdict(set)  # pid-independent (threads share fds): data-file fds
data_fds = set()
stats = defaultdict(lambda: {"n": 0, "bytes": 0, "time": 0.0, "sizes": defaultdict(int), "advise": 0,
                             "advise_bytes": 0, "first": None, "last": None})


def bucket(n):
    for limit, label in ((4096, "<4K"), (65536, "4K-64K"), (1 << 20, "64K-1M")):
        if n < limit:
            return label
    return ">=1M"


with open(trace) as f:
    for raw in f:
        m = line_re.match(raw.rstrip("\n"))
        if not m:
            continue
        pid, rest = m.group(1), m.group(5)
        t = int(m.group(2)) * 3600 + int(m.group(3)) * 60 + float(m.group(4))
        if rest.endswith("<unfinished ...>"):
            pending[pid] = (t, rest[: -len("<unfinished ...>")].rstrip())
            continue
        r = re.match(r'^<\.\.\. (\w+) resumed>(.*)$', rest)
        if r:
            if pid not in pending:
                continue
            t, head = pending.pop(pid)
            rest = head + r.group(2)
        c = call_re.match(rest)
        if not c:
            continue
        fn, args, ret, dur = c.group(1), c.group(2), c.group(3), float(c.group(4))
        if fn == "openat":
            if name in args and ret.lstrip("-").isdigit() and int(ret) >= 0:
                data_fds.add(int(ret))
            continue
        fd = args.split(",", 1)[0]
        if not fd.isdigit() or int(fd) not in data_fds:
            continue
        s = stats[pid]
        if fn == "fadvise64":
            parts = [p.strip() for p in args.split(",")]
            s["advise"] += 1
            s["advise_bytes"] += int(parts[2]) if parts[2].isdigit() else 0
            continue
        got = int(ret) if ret.lstrip("-").isdigit() else 0
        s["n"] += 1
        s["bytes"] += max(got, 0)
        s["time"] += dur
        s["sizes"][bucket(max(got, 0))] += 1
        s["first"] = t if s["first"] is None else min(s["first"], t)
        s["last"] = t + dur if s["last"] is None else max(s["last"], t + dur)

for pid, s in sorted(stats.items(), key=lambda kv: int(kv[0])):
    sizes = " ".join(f"{k}:{v}" for k, v in sorted(s["sizes"].items()))
    span = (s["last"] - s["first"]) if s["first"] is not None else 0
    print(f"thread {pid}: {s['n']} reads, {s['bytes'] / 1048576:.1f} MiB, {s['time']:.2f} s inside them "
          f"(over {span:.2f} s), sizes [{sizes}], fadvise {s['advise']} calls {s['advise_bytes'] / 1048576:.1f} MiB")
