#!/usr/bin/env python3
"""Medians and paired ratios of bench/run_async_indep.sh's RESULT lines.

Per rank count and stack: the medians of put (wall time inside the puts, the
slowest rank), put_cpu (CPU time of the program's thread inside the puts,
rank 0), overlap (fraction of the computation phases with writes in flight),
drain, total, cpu (all threads, summed over ranks), peak, and the load
average range. Then paired ratios within each repetition (the runs were made
back to back): each async stack against native, and the defaults (async:
deferred, concurrent) against concurrent=off and against indep=now, with how
many pairs the first was lower in.
"""
import statistics
import sys
from collections import defaultdict

METRICS = ("put", "put_cpu", "overlap", "drain", "total", "cpu")


def main(path):
    rows = []
    for line in open(path):
        if not line.startswith("RESULT"):
            continue
        kv = dict(f.split("=", 1) for f in line.split()[1:] if "=" in f and not f.startswith("stack="))
        kv["stack"] = line.split("stack=", 1)[1].split(" ranks=")[0]
        rows.append(kv)
    by = defaultdict(dict)  # (ranks, rep) -> stack -> row
    for r in rows:
        by[(r["ranks"], r["rep"])][r["stack"]] = r
    stacks = []
    for r in rows:
        if r["stack"] not in stacks:
            stacks.append(r["stack"])
    order = [s for s in ("native", "async{indep=now}", "async{concurrent=off}", "async") if s in stacks]
    order += [s for s in stacks if s not in order]
    for ranks in sorted({k[0] for k in by}, key=int):
        keys = [k for k in by if k[0] == ranks]
        loads = [float(by[k][s]["load"]) for k in keys for s in by[k] if "load" in by[k][s]]
        print(f"ranks={ranks} (load {min(loads):.1f}-{max(loads):.1f})" if loads else f"ranks={ranks}")
        for stack in order:
            vals = [by[k][stack] for k in keys if stack in by[k]]
            if not vals:
                continue
            med = {m: statistics.median(float(v.get(m, "nan")) for v in vals) for m in METRICS}
            peak = max(int(v["peak"]) for v in vals)
            print(f"  {stack:24s} n={len(vals)} put={med['put']*1e3:.1f} ms put_cpu={med['put_cpu']*1e3:.2f} ms "
                  f"overlap={med['overlap']:.3f} drain={med['drain']*1e3:.1f} ms total={med['total']*1e3:.1f} ms "
                  f"cpu={med['cpu']*1e3:.0f} ms peak={peak}")
        pairs = [(s, "native") for s in order if s != "native"]
        pairs += [("async", "async{concurrent=off}"), ("async", "async{indep=now}")]
        for a, b in pairs:
            for m in ("put", "put_cpu", "total", "drain", "cpu"):
                ratios = [float(by[k][a][m]) / float(by[k][b][m]) for k in keys
                          if a in by[k] and b in by[k] and float(by[k][b][m]) > 0]
                if ratios:
                    lower = sum(1 for x in ratios if x < 1)
                    print(f"  {a}/{b} {m}: median {statistics.median(ratios):.3f} "
                          f"(range {min(ratios):.3f}-{max(ratios):.3f}), lower in {lower}/{len(ratios)}")


if __name__ == "__main__":
    main(sys.argv[1])
