#!/usr/bin/env python3
"""Turns bench/run_cache_bench.sh's results.jsonl into tables (DST.json, DST.md).

  python3 bench/make_cache_tables.py OUT/results.jsonl docs/perf/cache_write [TITLE]

Per (target, ranks, mode), medians over the repetitions of
  write   -- t_write: first put to close returned, computation excluded (application-visible),
  durable -- t_durable: first put to the data durable on the target (logs gone, file fsynced),
  close   -- t_close;
the median of the paired ratios write(mode) / write(fast) -- fast: native writing the same
file onto the fast tier, the aim's ceiling (runs of one repetition ran back to back);
and from the cache connector's EXACDF_CACHE_WRITE lines (max over ranks of the seconds,
sum over ranks of the bytes):
  tier MB/s  -- bytes logged / (CRC pass + pwrite into the tier),
  drain MB/s -- bytes drained by the program's ranks / (mover + close's drain + close's sync)
                (close=sync only; close=detach's helper: bytes / (durable - write)),
  moved %    -- the share of the bytes the mover drained before close.
"""
import json
import statistics
import sys

MODES = ["native", "fast", "cache", "cache_detach", "async_cache", "async_cache_detach"]
CACHED = MODES[2:]


def fields(line):
    out = {}
    for tok in line.split():
        k, _, v = tok.partition("=")
        if v:
            out[k] = v
    return out


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def load(src):
    probe, runs = None, []
    for raw in open(src):
        rec = json.loads(raw)
        if "tier_probe" in rec:
            probe = rec["tier_probe"]
            continue
        f = fields(rec["result"])
        ranks = [fields(t) for t in rec.get("cache_times", [])]
        run = {"target": rec["target"], "mode": rec["mode"], "rep": rec["rep"], "load": rec["load"],
               "ranks": int(f["ranks"]), "bytes": int(f["bytes"]), "write": float(f["t_write"]),
               "durable": float(f["t_durable"]), "close": float(f["t_close"]),
               "puts": sum(float(x) for x in f["step_io"].split(","))}
        if rec.get("durable_invalid"):  # the logs were removed by hand (a helper that refused them)
            run["durable"] = None
        if ranks:
            run["tier_broken"] = any(int(r["logged"]) * run["ranks"] < run["bytes"] for r in ranks)
            mx = lambda k: max(float(r[k]) for r in ranks)  # noqa: E731
            sm = lambda k: sum(int(r[k]) for r in ranks)  # noqa: E731
            run["times"] = {k: mx(k) for k in ("put", "agree", "encode", "tier_write", "log_sync", "manifest",
                                                "put_drain", "mover", "close", "close_drain", "close_sync")}
            logged, moved, closed = sm("logged"), sm("mover_bytes"), sm("close_bytes")
            t = run["times"]
            run["tier_mbs"] = logged / 1e6 / (t["encode"] + t["tier_write"]) if t["encode"] + t["tier_write"] > 0 else None
            run["moved_pct"] = 100.0 * moved / logged if logged else None
            if "detach" in run["mode"]:
                span = run["durable"] - run["write"] if run["durable"] is not None else 0
                run["drain_mbs"] = (logged - moved) / 1e6 / span if span > 0 and logged > moved else None
            else:
                span = t["mover"] + t["close_drain"] + t["close_sync"]
                run["drain_mbs"] = (moved + closed) / 1e6 / span if span > 0 else None
        runs.append(run)
    return probe, runs


def main(src, dst, title="The cache connector: application-visible write time (VPIC-IO-like)"):
    probe, runs = load(src)
    rows = []
    keys = sorted({(r["target"], r["ranks"]) for r in runs}, key=lambda k: (k[0] != "slow", k[1]))
    for target, ranks in keys:
        sel = {m: sorted((r for r in runs if r["target"] == target and r["ranks"] == ranks and r["mode"] == m),
                         key=lambda r: r["rep"]) for m in MODES}
        row = {"target": target, "ranks": ranks, "bytes": next(r["bytes"] for m in MODES for r in sel[m]),
               "reps": len(sel["fast"])}
        fast_by_rep = {r["rep"]: r["write"] for r in sel["fast"]}
        for m in MODES:
            row[m] = {"write_s": med(r["write"] for r in sel[m]), "durable_s": med(r["durable"] for r in sel[m]),
                      "close_s": med(r["close"] for r in sel[m]), "puts_s": med(r["puts"] for r in sel[m]),
                      "ratio_fast": med(r["write"] / fast_by_rep[r["rep"]] for r in sel[m]
                                        if fast_by_rep.get(r["rep"])),
                      "n": len(sel[m])}
            if m in CACHED:
                row[m]["tier_mbs"] = med(r.get("tier_mbs") for r in sel[m])
                row[m]["drain_mbs"] = med(r.get("drain_mbs") for r in sel[m])
                row[m]["moved_pct"] = med(r.get("moved_pct") for r in sel[m])
                row[m]["times"] = {k: med(r["times"][k] for r in sel[m] if "times" in r)
                                   for k in ("put", "agree", "encode", "tier_write", "mover", "close_drain",
                                             "close_sync")}
        row["tier_broken_runs"] = sum(1 for m in MODES for r in sel[m] if r.get("tier_broken"))
        row["loads"] = sorted({r["load"] for m in MODES for r in sel[m]})
        rows.append(row)
    json.dump({"tier_probe": probe, "rows": rows, "runs": runs}, open(dst + ".json", "w"), indent=1)

    def f3(x):
        return "-" if x is None else f"{x:.3f}"

    def f2(x):
        return "-" if x is None else f"{x:.2f}"

    def f0(x):
        return "-" if x is None else f"{x:.0f}"

    with open(dst + ".md", "w") as md:
        md.write(f"# {title}\n\n")
        md.write("Written by `bench/run_cache_bench.sh` and `bench/make_cache_tables.py` (method in their heads). ")
        if probe:
            md.write(f"Slow tier as measured: {probe['streaming']} streaming, 200 synced 4 KiB writes in "
                     f"{probe['dsync_4k_x200_s']} s (throttle {int(probe['throttle_bps']) // 1048576} MiB/s; "
                     f"load average {probe['load']} at the start).\n\n")
        md.write("Application-visible write time (first put to close returned, computation excluded), "
                 "seconds, medians; `x fast`: median of the paired ratios to the fast tier alone "
                 "(the aim: at most 1.2).\n\n")
        md.write("| target | ranks | MiB | reps | fast s | native s | cache s | x fast | cache detach s | x fast | "
                 "async,cache s | x fast | async,cache detach s | x fast |\n")
        md.write("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            md.write(f"| {r['target']} | {r['ranks']} | {r['bytes'] / 1048576:.0f} | {r['reps']} | "
                     f"{f3(r['fast']['write_s'])} | {f3(r['native']['write_s'])} | ")
            md.write(" | ".join(f"{f3(r[m]['write_s'])} | {f2(r[m]['ratio_fast'])}" for m in CACHED) + " |\n")
        md.write("\nTime until durable on the target (first put to logs gone and file fsynced, computation "
                 "excluded), seconds, medians; close s: the close alone; tier / drain MB/s and the share "
                 "the mover drained before close, from the connector's own timers.\n\n")
        md.write("| target | ranks | native durable s | mode | durable s | close s | tier MB/s | drain MB/s | "
                 "moved before close % | puts in connector s | CRC pass s | tier pwrite s |\n")
        md.write("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            for m in CACHED:
                c = r[m]
                t = c.get("times", {})
                md.write(f"| {r['target']} | {r['ranks']} | {f3(r['native']['durable_s'])} | {m} | "
                         f"{f3(c['durable_s'])} | {f3(c['close_s'])} | {f0(c.get('tier_mbs'))} | "
                         f"{f0(c.get('drain_mbs'))} | {f0(c.get('moved_pct'))} | {f3(t.get('put'))} | "
                         f"{f3(t.get('encode'))} | {f3(t.get('tier_write'))} |\n")
        broken = sum(r["tier_broken_runs"] for r in rows)
        if broken:
            md.write(f"\n{broken} run(s) had a rank that logged less than its share (its tier broken: "
                     "written through); they are in the medians.\n")
        md.write("\nLoad averages seen at the runs' starts: " +
                 "; ".join(f"{r['target']} {r['ranks']}: {r['loads'][0]} .. {r['loads'][-1]}" for r in rows) + "\n")
    print(open(dst + ".md").read())


if __name__ == "__main__":
    main(*sys.argv[1:4])
