#!/usr/bin/env python3
"""checkpoint_ab_pairs.py -- paired ratios of two configurations of bench/run_checkpoint_ab.sh
over one or more raw JSONL files (issue 21), pooled: per repetition (and file) A / B for
checkpoint time, end-to-end time, checkpoint CPU (rank 0) and the first checkpoint's time;
the median ratio, in how many pairs A was at most B, and a two-sided sign test.
A configuration matches its name exactly or with a +VAR=VAL / @old suffix.
Usage: bench/checkpoint_ab_pairs.py A B raw.jsonl [raw.jsonl ...]
"""
import json
import statistics
import sys
from math import comb


def matches(cfg, name):
    return cfg == name or cfg.startswith(name + "+") or cfg.startswith(name + "@")


def sign_test(at_most, n):
    k = min(at_most, n - at_most)
    return min(1.0, 2 * sum(comb(n, i) for i in range(k + 1)) / 2 ** n)


def main():
    a_name, b_name, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    keys = {"checkpoint_time": lambda r: r["checkpoint_time"], "total_time": lambda r: r["total_time"],
            "checkpoint_cpu": lambda r: r["checkpoint_cpu"], "first_checkpoint": lambda r: r["checkpoint_times"][0]}
    ratios = {k: [] for k in keys}
    loads = []
    for path in files:
        reps = {}
        for line in open(path):
            r = json.loads(line)
            reps.setdefault(r["rep"], []).append(r)
        for runs in reps.values():
            a = [r for r in runs if r["cfg"] == a_name]  # A exactly (B may extend A's name)
            b = [r for r in runs if r["cfg"] != a_name and matches(r["cfg"], b_name)]
            if a and b:
                loads += [a[0]["load"], b[0]["load"]]
                for k, f in keys.items():
                    ratios[k].append(f(a[0]) / f(b[0]))
    for k, x in ratios.items():
        n, le = len(x), sum(1 for v in x if v <= 1)
        print(f"{k:17s} {a_name} / {b_name}: median {statistics.median(x):.3f}, at most 1 in {le} of {n}, "
              f"sign test p={sign_test(le, n):.2g}")
    print(f"load average {min(loads)}-{max(loads)}")


if __name__ == "__main__":
    main()
