#!/usr/bin/env python3
"""Tables of a run of bench/run_checkpoint_ab.sh: for each metric (checkpoint time, end-to-end
TC time), per graph and rank count, TARGET's median in ms and, against every other
configuration of the run, the median of the per-repetition ratios TARGET / peer and in how many
of the N repetitions holding both the ratio is at most 1. Cells whose median ratio is above 1
are marked in bold and listed at the end; closure digests are checked per graph.
Usage: bench/checkpoint_ab_table.py AB.jsonl [SUMMARY.json]
  TARGET (env, default exacdf:all): the configuration the ratios are of.
  PEERS (env, default every other configuration in the file, in order of appearance)."""
import collections
import json
import os
import statistics as st
import sys

rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
target = os.environ.get("TARGET", "exacdf:all")
cfgs = list(dict.fromkeys(r["cfg"] for r in rows))
peers = os.environ.get("PEERS", "").split() or [c for c in cfgs if c != target]
metrics = (("checkpoint_time", "checkpoint time"), ("total_time", "end-to-end TC time"))

by = collections.defaultdict(dict)  # (graph, ranks, rep) -> cfg -> row
digests = collections.defaultdict(set)
for r in rows:
    by[(r["graph"], r["ranks"], r["rep"])][r["cfg"]] = r
    digests[r["graph"]].add(r["digest"])
cells = sorted({(g, n) for g, n, _ in by}, key=lambda k: (k[0], k[1]))
loads = [r["load"] for r in rows]
print(f"{len(rows)} runs, load average {min(loads)}-{max(loads)}; ratio = {target} / peer per repetition, "
      f"median (at most 1 in n of N pairs)")
summary, above = [], []
for metric, title in metrics:
    print(f"\n{title} ({metric})\n")
    print(f"| graph | ranks | {target} ms | " + " | ".join(f"vs {p}" for p in peers) + " |")
    print("|---|---|---|" + "---|" * len(peers))
    for g, n in cells:
        reps = [d for (gg, nn, _), d in by.items() if gg == g and nn == n]
        mine = [d[target][metric] for d in reps if target in d]
        cell = dict(metric=metric, graph=g, ranks=n, target_ms=1e3 * st.median(mine) if mine else None)
        cols = []
        for p in peers:
            xs = [d[target][metric] / d[p][metric] for d in reps if target in d and p in d and d[p][metric] > 0]
            if not xs:
                cols.append("-")
                continue
            med, ok = st.median(xs), sum(x <= 1 for x in xs)
            cell[p] = dict(median=med, at_most_1=ok, pairs=len(xs))
            text = f"{med:.2f} ({ok} of {len(xs)})"
            if med > 1:
                text = f"**{text}**"
                above.append(f"{metric} {g}:{n} vs {p} {med:.2f}")
            cols.append(text)
        ms = f"{cell['target_ms']:.1f}" if mine else "-"
        print(f"| {g} | {n} | {ms} | " + " | ".join(cols) + " |")
        summary.append(cell)
if any("thp_fallback" in r for r in rows):
    # The machine's 2 MiB page faults during each of TARGET's runs (run_checkpoint_ab.sh reads
    # /proc/vmstat around each run): exacdf's staging falls back to 4 KiB pages when none is free.
    print(f"\n2 MiB pages during {target}'s runs (machine-wide): runs with a fallback, median allocated\n")
    print("| graph | ranks | runs with thp_fault_fallback > 0 | median thp_fault_alloc |")
    print("|---|---|---|---|")
    for g, n in cells:
        mine = [d[target] for (gg, nn, _), d in by.items() if gg == g and nn == n and target in d]
        mine = [r for r in mine if "thp_fallback" in r]
        if mine:
            print(f"| {g} | {n} | {sum(r['thp_fallback'] > 0 for r in mine)} of {len(mine)} | "
                  f"{st.median(r['thp_alloc'] for r in mine):g} |")
print()
print("cells above 1:", "; ".join(above) if above else "none")
print("closure digests agree:", all(len(v) == 1 for v in digests.values()))
if len(sys.argv) > 2:
    with open(sys.argv[2], "w") as f:
        json.dump(dict(target=target, peers=peers, cells=summary, load=[min(loads), max(loads)],
                       digests_agree=all(len(v) == 1 for v in digests.values())), f, indent=1)
