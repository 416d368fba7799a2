#!/usr/bin/env python3
"""Medians and paired ratios of bench/run_async_indep.sh's RESULT lines.

Per rank count: the median total, drain and put time of each stack, and the
paired ratio concurrent=on / concurrent=off of total and drain (the two runs
of the same repetition), with how many pairs on was faster in.
"""
import statistics
import sys
from collections import defaultdict


def main(path):
    rows = []
    for line in open(path):
        if not line.startswith("RESULT"):
            continue
        kv = dict(f.split("=", 1) for f in line.split()[1:] if "=" in f and not f.startswith("stack="))
        stack = line.split("stack=", 1)[1].split(" ranks=")[0]
        kv["stack"] = stack
        rows.append(kv)
    by = defaultdict(dict)  # (ranks, rep) -> stack -> row
    for r in rows:
        by[(r["ranks"], r["rep"])][r["stack"]] = r
    on_key = "async{indep=defer;concurrent=on}"
    off_key = "async{indep=defer;concurrent=off}"
    for ranks in sorted({k[0] for k in by}, key=int):
        print(f"ranks={ranks}")
        for stack in ("native", off_key, on_key):
            vals = [by[k][stack] for k in by if k[0] == ranks and stack in by[k]]
            if not vals:
                continue
            med = {m: statistics.median(float(v[m]) for v in vals) for m in ("put", "drain", "total", "cpu")}
            peak = max(int(v["peak"]) for v in vals)
            print(f"  {stack:40s} n={len(vals)} put={med['put']*1e3:.1f} ms drain={med['drain']*1e3:.1f} ms "
                  f"total={med['total']*1e3:.1f} ms cpu={med['cpu']*1e3:.0f} ms peak={peak}")
        for m in ("total", "drain", "put", "cpu"):
            ratios = [float(by[k][on_key][m]) / float(by[k][off_key][m]) for k in by
                      if k[0] == ranks and on_key in by[k] and off_key in by[k]]
            if ratios:
                faster = sum(1 for x in ratios if x < 1)
                print(f"  on/off {m}: median {statistics.median(ratios):.3f} "
                      f"(range {min(ratios):.3f}-{max(ratios):.3f}), on faster in {faster}/{len(ratios)}")
        ratios = [float(by[k][on_key]["total"]) / float(by[k]["native"]["total"]) for k in by
                  if k[0] == ranks and on_key in by[k] and "native" in by[k]]
        if ratios:
            print(f"  on/native total: median {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main(sys.argv[1])
