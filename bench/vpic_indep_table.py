#!/usr/bin/env python3
"""Medians and paired ratios of bench/run_vpic_indep.sh's RESULT lines.

Per rank count and computation: per stack the medians of puts (the time the
program spent in the puts of the steps with computation after them: all but the
last, max over ranks), puts_cpu (the program thread's CPU time in those puts,
rank 0), t_total and t_close (end_indep_data + close); then, paired within each
repetition, hidden = 1 - puts(stack) / puts(native) and the ratios of t_total
and puts_cpu to native, with how many pairs were lower than native.
"""
import statistics
import sys
from collections import defaultdict


def first_steps(text):
    v = [float(x) for x in text.split(",")]
    return sum(v[:-1])


def main(path):
    by = defaultdict(dict)  # (ranks, compute, rep) -> stack -> row
    for line in open(path):
        if not line.startswith("RESULT"):
            continue
        kv = dict(f.split("=", 1) for f in line.split()[1:] if "=" in f)
        kv["puts"] = first_steps(kv["step_io"])
        kv["puts_cpu"] = first_steps(kv["step_cpu"])
        by[(kv["ranks"], kv["compute"], kv["rep"])][kv["stack"]] = kv
    for ranks, compute in sorted({(k[0], k[1]) for k in by}, key=lambda x: (int(x[0]), x[1])):
        keys = [k for k in by if k[0] == ranks and k[1] == compute]
        loads = [float(r["load"]) for k in keys for r in by[k].values()]
        print(f"ranks={ranks} compute={compute} (load {min(loads):.1f}-{max(loads):.1f})")
        for stack in ("native", "async{indep=now}", "async"):
            vals = [by[k][stack] for k in keys if stack in by[k]]
            if not vals:
                continue
            med = {m: statistics.median(float(v[m]) for v in vals) for m in ("puts", "puts_cpu", "t_total", "t_close")}
            print(f"  {stack:18s} n={len(vals)} puts={med['puts']*1e3:.1f} ms puts_cpu={med['puts_cpu']*1e3:.2f} ms "
                  f"t_total={med['t_total']*1e3:.1f} ms t_close={med['t_close']*1e3:.1f} ms")
            if stack == "native":
                continue
            pairs = [k for k in keys if stack in by[k] and "native" in by[k]]
            hidden = [1 - by[k][stack]["puts"] / by[k]["native"]["puts"] for k in pairs]
            print(f"    hidden (1 - puts/native puts): median {statistics.median(hidden):.3f} "
                  f"(range {min(hidden):.3f}-{max(hidden):.3f})")
            for m in ("t_total", "puts_cpu"):
                ratios = [float(by[k][stack][m]) / float(by[k]["native"][m]) for k in pairs if float(by[k]["native"][m]) > 0]
                lower = sum(1 for x in ratios if x < 1)
                print(f"    {m} / native: median {statistics.median(ratios):.3f} "
                      f"(range {min(ratios):.3f}-{max(ratios):.3f}), lower in {lower}/{len(ratios)}")


if __name__ == "__main__":
    main(sys.argv[1])
