#!/usr/bin/env python3
"""Paired figures of bench/run_cache_ab.sh with A=before:... B=after:... (issue 18).

usage: cache_ab_table.py OUT [JSON]
Per rank count and cached mode: the share of the logged bytes drained inside close (sum over
ranks of close_bytes / logged, from the EXACDF_CACHE_WRITE lines), the application-visible
write time (t_write), the durable time (t_durable) and close (t_close) of each repetition,
their medians, the median of write/fast of the same repetition, the movers' agreements
(mover_rounds, max over ranks) and the paired after/before ratios. JSON: every run's figures.
"""
import json, glob, statistics as st, sys
def fields(line): return dict(t.partition("=")[::2] for t in line.split())
data = {}  # (lib, rep, np, mode) -> dict
probes = []
for lib in ("before", "after"):
    for d in sorted(glob.glob(f"{sys.argv[1]}/pair-{lib}-*")):
        rep = int(d.rsplit("-", 1)[1])
        for raw in open(d + "/results.jsonl"):
            rec = json.loads(raw)
            if "tier_probe" in rec: probes.append((lib, rep, rec["tier_probe"])); continue
            f = fields(rec["result"]); ct = [fields(t) for t in rec["cache_times"]]
            r = {"write": float(f["t_write"]), "durable": float(f["t_durable"]), "close": float(f["t_close"]), "load": rec["load"].split()[0]}
            if ct:
                logged = sum(int(c["logged"]) for c in ct)
                r["share"] = sum(int(c["close_bytes"]) for c in ct) / logged
                r["mover_bytes"] = sum(int(c["mover_bytes"]) for c in ct); r["logged"] = logged
                r["rounds"] = max(int(c.get("mover_rounds", 0)) for c in ct)
            data[(lib, rep, int(f["ranks"]), rec["mode"])] = r
for p in probes: print("probe", p)
if len(sys.argv) > 2:
    json.dump({"probes": probes, "runs": [dict(zip(("lib", "rep", "ranks", "mode"), k), **v) for k, v in sorted(data.items())]},
              open(sys.argv[2], "w"), indent=1)
reps = sorted({k[1] for k in data})
for np_ in (2, 4):
    for mode in ("cache", "async_cache"):
        print(f"\n== np={np_} {mode}")
        for lib in ("before", "after"):
            rs = [data.get((lib, rep, np_, mode)) for rep in reps]
            fs = [data.get((lib, rep, np_, "fast")) for rep in reps]
            ok = [(r, f) for r, f in zip(rs, fs) if r and f]
            print(f" {lib}: share_in_close={[round(r['share'],3) for r,_ in ok]} write={[round(r['write'],3) for r,_ in ok]} med {st.median(r['write'] for r,_ in ok):.3f}"
                  f" durable={[round(r['durable'],3) for r,_ in ok]} med {st.median(r['durable'] for r,_ in ok):.3f}"
                  f" close med {st.median(r['close'] for r,_ in ok):.3f} xfast med {st.median(r['write']/f['write'] for r,f in ok):.2f} rounds={[r['rounds'] for r,_ in ok]} loads={[r['load'] for r,_ in ok]}")
        pr = [(data.get(("after", rep, np_, mode)), data.get(("before", rep, np_, mode))) for rep in reps]
        pr = [(a, b) for a, b in pr if a and b]
        for k in ("write", "durable", "close"):
            ratios = [a[k] / b[k] for a, b in pr]
            print(f"  after/before {k}: {[round(x,3) for x in ratios]} median {st.median(ratios):.3f}")
