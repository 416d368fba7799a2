#!/usr/bin/env python3
"""Turns bench/run_cache_bench.sh's results.jsonl into docs/perf/cache.{md,json}.

  python3 bench/make_cache_tables.py OUT/results.jsonl docs/perf/cache

Per (target, ranks, stack): medians over the repetitions of
  puts   -- the application-visible time of the puts (sum of step_io: first put to the
            last put's return, computation excluded),
  io     -- t_io: create to close returned, computation excluded (close=sync returns when
            the data is in the file and synced: the time until it is durable),
  close  -- t_close;
and the median of the paired ratios cache/native (runs alternate, so each pair saw the
same load).
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
            "target": rec["target"], "stack": rec["stack"], "rep": rec["rep"], "load": rec["load"],
            "ranks": int(f["ranks"]), "bytes": int(f["bytes"]),
            "puts": sum(float(x) for x in f["step_io"].split(",")),
            "io": float(f["t_io"]), "close": float(f["t_close"]), "total": float(f["t_total"]),
        })
    rows = []
    keys = sorted({(r["target"], r["ranks"]) for r in runs}, key=lambda k: (k[0] != "slow", k[1]))
    for target, ranks in keys:
        sel = {s: [r for r in runs if r["target"] == target and r["ranks"] == ranks and r["stack"] == s]
               for s in ("native", "cache")}
        row = {"target": target, "ranks": ranks, "bytes": sel["native"][0]["bytes"], "reps": len(sel["native"])}
        for s in ("native", "cache"):
            for m in ("puts", "io", "close"):
                row[f"{s}_{m}_s"] = statistics.median(r[m] for r in sel[s])
        for m in ("puts", "io"):
            pairs = [c[m] / n[m] for n, c in zip(sel["native"], sel["cache"]) if n[m] > 0]
            row[f"ratio_{m}"] = statistics.median(pairs) if pairs else None
        row["loads"] = sorted({r["load"] for r in sel["native"] + sel["cache"]})
        rows.append(row)
    json.dump({"tier_probe": probe, "rows": rows, "runs": runs}, open(dst + ".json", "w"), indent=1)
    with open(dst + ".md", "w") as md:
        md.write("# The cache connector: VPIC-IO-like writes onto a slow tier\n\n")
        md.write("Written by `bench/run_cache_bench.sh` and `bench/make_cache_tables.py` "
                 "(commands and method in the script's head). ")
        if probe:
            md.write(f"Slow tier as measured: {probe['streaming']} streaming, 200 synced 4 KiB writes in "
                     f"{probe['dsync_4k_x200_s']} s (throttle {int(probe['throttle_bps']) // 1048576} MiB/s; "
                     f"load average {probe['load']} at the start).\n\n")
        md.write("| target | ranks | MiB | native puts s | cache puts s | puts cache/native | "
                 "native create..close s | cache create..close s | cache/native | cache close s |\n")
        md.write("|---|---|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            md.write(f"| {r['target']} | {r['ranks']} | {r['bytes'] / 1048576:.0f} | {r['native_puts_s']:.3f} | "
                     f"{r['cache_puts_s']:.3f} | {r['ratio_puts']:.2f} | {r['native_io_s']:.3f} | "
                     f"{r['cache_io_s']:.3f} | {r['ratio_io']:.2f} | {r['cache_close_s']:.3f} |\n")
    print(open(dst + ".md").read())


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
