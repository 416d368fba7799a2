#!/usr/bin/env python3
"""checkpoint.raw.jsonl -> checkpoint.json (medians), checkpoint.md, checkpoint.png."""
import json
import statistics
import sys
from collections import defaultdict

raw, out = sys.argv[1], sys.argv[2]
runs = [json.loads(l) for l in open(raw) if l.strip()]
cells = defaultdict(list)
for r in runs:
    cells[(r["label"], r["graph"], r["ranks"])].append(r)
rows = []
for (label, graph, ranks), rs in sorted(cells.items()):
    rows.append({
        "label": label, "graph": graph, "ranks": ranks, "reps": len(rs),
        "checkpoint_time": statistics.median(r["checkpoint_time"] for r in rs),
        "total_time": statistics.median(r["total_time"] for r in rs),
        "checkpoints": rs[0]["checkpoints"], "checkpoint_bytes": rs[0]["checkpoint_bytes"],
        "tuples": rs[0]["tuples"], "iterations": rs[0]["iterations"], "digest": rs[0]["digest"],
        "vertices": rs[0]["vertices"], "edges": rs[0]["edges"],
    })
json.dump(rows, open(f"{out}/checkpoint.json", "w"), indent=1)

graphs = sorted({r["graph"] for r in rows})
ranks = sorted({r["ranks"] for r in rows})
configs = [c for c in ["posix", "mpiio", "mpiio-opt", "hdf5", "hdf5-opt", "exacdf", "exacdf-policy"]
           if any(r["label"] == c for r in rows)]
ladder = [l for l in dict.fromkeys(r["label"] for r in runs) if l.startswith("ladder:")]  # run order
get = {(r["label"], r["graph"], r["ranks"]): r for r in rows}

md = ["# Checkpoint benchmark (seed 002, issue 21)", "",
      "Produced by `bench/run_checkpoint_bench.sh`; medians of the runs in checkpoint.raw.jsonl.",
      "Checkpoint time = wall time of all checkpoints (max over ranks, barriers around each);",
      "total = end-to-end TC time. Seconds. Every writer syncs its files (fsync / MPI_File_sync /",
      "ncmpi_sync; exacdf also fsyncs its manifest and directory).", "",
      "Scale: the graphs are generated with the character of the seed's SuiteSparse graphs",
      "(examples/tc/graphs.c) at ~1000-3000 vertices, so the closure is 0.07-0.28 M tuples and a",
      "run writes 6-20 MB of checkpoints (the seed: 0.9-1.7 B tuples, 15-30 GB, 32-2048 ranks on",
      "Lustre). Each checkpoint file is below 10 MiB, so the policy's O1 (gather to one writer)",
      "decides most writes here. The machine has 2 cores shared with other jobs (load ~10 while",
      "this ran), 4 and 8 ranks are oversubscribed, and one file system (local disk): the",
      "spread between repetitions is as large as most differences below; read the tables as",
      "orders of magnitude, not rankings.", ""]
for g in graphs:
    any_row = next(r for r in rows if r["graph"] == g)
    md += [f"## {g}: {any_row['vertices']} vertices, {any_row['edges']} edges, "
           f"{any_row['iterations']} iterations, {any_row['tuples']} closure tuples, "
           f"{any_row['checkpoints']} checkpoints, {any_row['checkpoint_bytes'] / 1e6:.1f} MB written", ""]
    md += ["| config | " + " | ".join(f"{n} ranks ckpt / total" for n in ranks) + " |",
           "|---|" + "---|" * len(ranks)]
    for c in configs:
        cells_ = []
        for n in ranks:
            r = get.get((c, g, n))
            cells_.append(f"{r['checkpoint_time']:.3f} / {r['total_time']:.3f}" if r else "-")
        md.append(f"| {c} | " + " | ".join(cells_) + " |")
    md.append("")
if ladder:
    g = next(r["graph"] for r in rows if r["label"] in ladder)
    md += [f"## Ladder (exacdf, {g}): checkpoint time by EXACDF_POLICY", "",
           "| policy | " + " | ".join(f"{n} ranks" for n in ranks) + " |", "|---|" + "---|" * len(ranks)]
    for l in ladder:
        md.append(f"| {l[7:]} | " + " | ".join(
            f"{get[(l, g, n)]['checkpoint_time']:.3f}" if (l, g, n) in get else "-" for n in ranks) + " |")
    md.append("")
digests = defaultdict(set)
for r in rows:
    digests[r["graph"]].add((r["tuples"], r["digest"]))
md.append("Closure identical across every configuration and rank count: " +
          ", ".join(f"{g} {'yes' if len(d) == 1 else 'NO'}" for g, d in digests.items()) + ".")
md += ["", "## Reading (written for the run of 2026-11-23, 3 repetitions; re-check after a re-run)", "",
       "- Every configuration and rank count computed the same closure (count and digest).",
       "- exacdf with the policy beat exacdf's defaults in 10 of 12 graph x rank cells (the defaults:",
       "  every rank creates the file and writes; the policy mostly gathers to one writer, O1, since",
       "  each checkpoint file here is below 10 MiB). It was at least as fast as MPI-IO OPT in 7 of",
       "  12 cells and as HDF5-OPT in 5 of 12: the issue's aim (every cell) is NOT met at this scale",
       "  on this machine; the differences are within the run-to-run spread.",
       "- POSIX pwrite (no collective, no self-describing metadata, no manifest) is the fastest",
       "  writer here in most cells: with 2 cores and one local disk there is nothing for",
       "  aggregation to win, and exacdf pays for what it adds (a netCDF header per file, a",
       "  synced manifest and directory per checkpoint, the prefix sum and skew allreduce).",
       "- The ladder: O1 is the step that buys something (it removes the parallel create of",
       "  tiny files); with O1 on, O2, O5 and O7 are never selected (O1 takes every write), O3",
       "  is PnetCDF's default already, and O4/O6 change a header field. The second ladder",
       "  (O1 off) shows O2..O7 on their own: no step is reliably better here; O7 turns on",
       "  for the small frontier relation dT whose per-rank sizes include zeros (ratio",
       "  infinite), and its extra phases cost time at 8 ranks.",
       "- These are seconds of a scaled-down workload (6-20 MB per run); the seed's regime",
       "  (15-30 GB, hundreds of ranks, Lustre) was not reproducible here."]
open(f"{out}/checkpoint.md", "w").write("\n".join(md) + "\n")

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit(0)
ncol = len(graphs) + (1 if ladder else 0)
fig, axes = plt.subplots(2, ncol, figsize=(4.5 * ncol, 7.5), squeeze=False)
for row, (key, what) in enumerate([("checkpoint_time", "checkpoint time"), ("total_time", "end-to-end TC time")]):
    for ax, g in zip(axes[row], graphs):
        w = 0.8 / max(len(configs), 1)
        for i, c in enumerate(configs):
            ys = [get[(c, g, n)][key] if (c, g, n) in get else 0 for n in ranks]
            ax.bar([k + i * w for k in range(len(ranks))], ys, w, label=c)
        ax.set_xticks([k + 0.4 - w / 2 for k in range(len(ranks))], [str(n) for n in ranks])
        ax.set_title(f"{g}: {what}")
        ax.set_xlabel("ranks")
        ax.set_ylabel("s")
if ladder:
    axes[1][-1].axis("off")
axes[0][0].legend(fontsize=7)
if ladder:
    ax = axes[0][-1]
    g = next(r["graph"] for r in rows if r["label"] in ladder)
    for n in ranks:
        ax.plot(range(len(ladder)), [get[(l, g, n)]["checkpoint_time"] if (l, g, n) in get else float("nan")
                                     for l in ladder], marker="o", label=f"{n} ranks")
    ax.set_xticks(range(len(ladder)), [l[7:].replace("O1,O2,O3,O4,O5,O6", "..O6").replace("O1,O2,O3,O4,O5", "..O5")
                                       .replace("O1,O2,O3,O4", "..O4") for l in ladder], rotation=45, fontsize=7)
    ax.set_title(f"ladder ({g})")
    ax.set_ylabel("checkpoint s")
    ax.legend(fontsize=7)
fig.tight_layout()
fig.savefig(f"{out}/checkpoint.png", dpi=110)
