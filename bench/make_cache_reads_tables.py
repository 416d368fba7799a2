#!/usr/bin/env python3
"""Turns bench/run_cache_reads.sh's results.jsonl into docs/perf/cache_read.{md,json}.

  python3 bench/make_cache_reads_tables.py OUT/results.jsonl docs/perf/cache_read

Per (kernel, target, ranks, compute_ms): medians over the repetitions of t_read (the time
the application spent in its gets) and t_total (open to close), native and cache, and
the median of the paired ratios native/cache (runs alternate, so each pair saw the same
load): above 1, prefetch was faster. Served/fetched: the cache runs' counters (last rep).
"""
import json
import statistics
import sys


def fields(line):
    out = {}
    for tok in line.split()[1:]:
        k, _, v = tok.partition("=")
        out[k] = v
    return out


def main(src, dst):
    probe, runs = None, []
    for raw in open(src):
        rec = json.loads(raw)
        if "tier_probe" in rec:
            probe = rec["tier_probe"]
            continue
        f = fields(rec["result"])
        runs.append({
            "kernel": f["kernel"], "target": rec["target"], "stack": rec["stack"], "spec": rec.get("spec", ""),
            "rep": rec["rep"], "load": rec["load"], "ranks": int(f["ranks"]), "compute_ms": float(f["compute_ms"]),
            "bytes": int(f["bytes"]), "read": float(f["t_read"]), "total": float(f["t_total"]),
            "checksum": f["checksum"], "served": int(f["served"]), "direct": int(f["direct"]),
            "fetched": int(f["fetched"]), "fetched_bytes": int(f["fetched_bytes"]),
        })
    rows = []
    keys = sorted({(r["kernel"], r["target"], r["ranks"], r["compute_ms"]) for r in runs},
                  key=lambda k: (k[0], k[1] != "slow", k[2], k[3]))
    for kernel, target, ranks, ms in keys:
        sel = {s: [r for r in runs if (r["kernel"], r["target"], r["ranks"], r["compute_ms"]) == (kernel, target, ranks, ms)
                   and r["stack"] == s] for s in ("native", "cache")}
        if not sel["native"] or not sel["cache"]:
            continue
        row = {"kernel": kernel, "target": target, "ranks": ranks, "compute_ms": ms,
               "bytes": sel["native"][0]["bytes"], "reps": len(sel["native"]),
               "same_checksum": len({r["checksum"] for r in sel["native"] + sel["cache"]}) == 1}
        for s in ("native", "cache"):
            for m in ("read", "total"):
                row[f"{s}_{m}_s"] = statistics.median(r[m] for r in sel[s])
        for m in ("read", "total"):
            pairs = [n[m] / c[m] for n, c in zip(sel["native"], sel["cache"]) if c[m] > 0]
            row[f"speedup_{m}"] = statistics.median(pairs) if pairs else None
        last = sel["cache"][-1]
        row.update({k: last[k] for k in ("served", "direct", "fetched", "fetched_bytes")})
        row["spec"] = last["spec"]
        row["loads"] = sorted({r["load"] for r in sel["native"] + sel["cache"]})
        rows.append(row)
    json.dump({"tier_probe": probe, "rows": rows, "runs": runs}, open(dst + ".json", "w"), indent=1)
    with open(dst + ".md", "w") as md:
        md.write("# The cache connector: read prefetch, three analysis kernels\n\n")
        md.write("Written by `bench/run_cache_reads.sh` and `bench/make_cache_reads_tables.py` "
                 "(commands and method in the script's head). ")
        if probe:
            md.write(f"Slow tier as measured (O_DIRECT, in the throttled cgroup): {probe['read_streaming']} streaming "
                     f"reads, {float(probe['read_4k_s']) * 1000:.2f} ms per 4 KiB read (throttle "
                     f"{int(probe['throttle_bps']) // 1048576} MiB/s; load average {probe['load']} at the start).\n\n")
        md.write("Speed-up = native / cache, median of paired runs (above 1: prefetch faster). "
                 "`read`: time in the application's gets; `total`: open to close.\n\n")
        md.write("| kernel | target | ranks | compute ms/MiB | MiB read | native read s | cache read s | "
                 "read speed-up | native total s | cache total s | total speed-up | served/direct | "
                 "chunks fetched (MiB) | same checksum |\n")
        md.write("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            md.write(f"| {r['kernel']} | {r['target']} | {r['ranks']} | {r['compute_ms']:g} | {r['bytes'] / 1048576:.0f} | "
                     f"{r['native_read_s']:.3f} | {r['cache_read_s']:.3f} | {r['speedup_read']:.2f} | "
                     f"{r['native_total_s']:.3f} | {r['cache_total_s']:.3f} | {r['speedup_total']:.2f} | "
                     f"{r['served']}/{r['direct']} | {r['fetched']} ({r['fetched_bytes'] / 1048576:.0f}) | "
                     f"{'yes' if r['same_checksum'] else 'NO'} |\n")
    print(open(dst + ".md").read())


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
