#!/usr/bin/env python3
"""Report of bench/exatrkx/run_create_bench.sh: exatrkx_create.{json,md,png}.

usage: create_report.py RAW.jsonl OUT_DIR COMMAND COMMIT
Times are medians over repetitions of each run's max-over-ranks phase times;
memory is ru_maxrss per rank (MiB) at close.
"""
import json
import statistics
import sys
from collections import defaultdict

raw, out_dir, command, commit = sys.argv[1:5]
runs = [json.loads(line) for line in open(raw) if line.strip()]

APPROACHES = [
    ("baseline_pnetcdf", "(a) app-level baseline, PnetCDF 1.12.3"),
    ("baseline_exacdf", "(a) app-level baseline, exacdf"),
    ("indep_exacdf", "(b) exacdf independent define, CDF-5"),
    ("partitioned_exacdf", "(c) exacdf independent define, partitioned format"),
]


def approach(run):
    if run.get("bench") == "exatrkx_indep":
        return "partitioned_exacdf" if run.get("format") == "partitioned" else "indep_exacdf"
    if run.get("bench") == "exatrkx_baseline":
        return "baseline_" + run["lib"]
    return None


def phases(run):
    """Phase times in the categories of seed 000's Figures 7-10."""
    if run["bench"] == "exatrkx_indep":
        rest = run["t_enddef"] - run["t_check"] - run["t_exchange"] - run["t_layout"] - run["t_header_io"]
        return {
            "define (local)": run["t_define"],
            "consistency check": run["t_check"],
            "metadata exchange": run["t_exchange"],
            "layout": run["t_layout"],
            "header I/O": run["t_header_io"],
            "other enddef": max(rest, 0.0),
            "close": run["t_close"],
        }
    return {
        "metadata exchange": run["t_exchange"],
        "define (every object, checked on each call)": run["t_create"] + run["t_define"],
        "enddef (header I/O)": run["t_enddef"],
        "close": run["t_close"],
    }


groups = defaultdict(list)  # (dataset, ranks, approach) -> runs
failed = []
for r in runs:
    a = approach(r)
    if a is None:
        failed.append(r)
        continue
    groups[(r["dataset"], r["ranks"], a)].append(r)


def median_run(rs):
    """The run with the median total (its phases stay consistent)."""
    rs = sorted(rs, key=lambda r: r["t_total"])
    return rs[(len(rs) - 1) // 2]


summary = []
for (ds, np_, a), rs in sorted(groups.items()):
    m = median_run(rs)
    rss = [k / 1024.0 for k in m["peak_rss_kib"]]
    entry = {
        "dataset": ds, "ranks": np_, "approach": a, "repetitions": len(rs),
        "t_total_s": m["t_total"], "t_total_all_s": [r["t_total"] for r in rs],
        "phases_s": phases(m), "peak_rss_mib_max": max(rss), "peak_rss_mib_min": min(rss),
        "variables": m["variables"], "dimensions": m["dimensions"],
        "header_bytes": m["header_bytes"],
        # the generator predicts the CDF-5 header; the partitioned metadata differs
        "header_ok": a == "partitioned_exacdf" or m["header_bytes"] == m["header_bytes_expected"],
    }
    if "peak_rss_define_kib" in m:
        entry["peak_rss_after_define_mib_max"] = max(m["peak_rss_define_kib"]) / 1024.0
    summary.append(entry)


def share(c, c1):
    """Peak RSS per rank beyond the 1-rank figure divided by the ranks (MiB)."""
    if not c or not c1:
        return "-"
    return f"{c['peak_rss_mib_max'] - c1['peak_rss_mib_max'] / c['ranks']:+.0f}"


def find(ds, np_, a):
    for e in summary:
        if (e["dataset"], e["ranks"], e["approach"]) == (ds, np_, a):
            return e
    return None


datasets = sorted({e["dataset"] for e in summary}, key=lambda d: (not d.endswith("98M"), d))
ranks_of = {ds: sorted({e["ranks"] for e in summary if e["dataset"] == ds}) for ds in datasets}
for ds in datasets:
    for np_ in ranks_of[ds]:
        b, c, p, x = (find(ds, np_, a) for a in ("indep_exacdf", "partitioned_exacdf", "baseline_pnetcdf",
                                                  "baseline_exacdf"))
        for e in (b, c):
            if e and p:
                e["speedup_vs_pnetcdf_baseline"] = p["t_total_s"] / e["t_total_s"]
            if e and x:
                e["speedup_vs_exacdf_baseline"] = x["t_total_s"] / e["t_total_s"]
        if b and c:
            c["speedup_vs_cdf5_indep"] = b["t_total_s"] / c["t_total_s"]

with open(f"{out_dir}/exatrkx_create.json", "w") as f:
    json.dump({"command": command, "commit": commit, "machine": "2 cores, 24 GiB (4 and 8 ranks oversubscribed)",
               "results": summary, "failed_or_timed_out": failed}, f, indent=1)

md = []
md.append("# Creating the Exa.TrkX data sets: independent define (CDF-5 and partitioned) vs the "
          "application-level baseline\n")
md.append(f"Command: `{command}` (commit {commit}). Machine: 2 cores, 24 GiB; 4 and 8 ranks are "
          "oversubscribed. Times: max over ranks, from the first define call (baseline: from the "
          "metadata allgather) to the end of `ncmpi_close`; median of the repetitions for exacdf, one "
          "run for PnetCDF. Each run starts after a `sync` (the previous run's file written back). "
          "Memory: peak RSS (ru_maxrss) per rank at close, largest rank. Every CDF-5 "
          "run's header size equals the generator's count (103,348,160 bytes for dataset_98M).\n")
md.append("(a) is seed 000's application-level baseline (section 3.1): allgather the metadata, every "
          "rank defines every object collectively (PnetCDF with `nc_hash_size_dim/var=1048576`). (b) is "
          "exacdf's `EXA_INDEP_DEFINE`: each rank defines only its own samples; `ncmpi_enddef` merges.\n")
md.append("(c) writes the same objects in the partitioned format (docs/format.md), one metadata block "
          "per sample (`/<parent>_grp_<sample>/<key>`), every variable compact (its data would go in "
          "its block; nothing is written here, as with NC_NOFILL in (a) and (b)). Each block is "
          "written by the rank that defined it (at 1 rank in one collective write; on the private-blocks "
          "path below each rank writes its own blocks independently, 8 MiB at a time).\n")
md.append("(c) takes the private-blocks enddef (docs/architecture.md): every sample is one rank's, so "
          "there is no merge. Phases of (c): \"consistency check\" is the merge of global attributes "
          "plus the gather of block summaries to rank 0, its placement of every block and the scatter "
          "of placements; \"layout\" is each rank planning its own blocks; \"header I/O\" is encoding "
          "and writing its blocks, rank 0's index table, the superblock, and reading the new index "
          "head back (as an open). After enddef each rank keeps only its own objects. Column \"(c) "
          "share\": peak RSS per rank minus the 1-rank figure divided by the ranks (the aim: at most "
          "a constant).\n")
md.append("With the classic formats every rank ends enddef holding the whole header, as in PnetCDF: "
          "in (b) the metadata exchange (every rank receives and decodes every object) and the memory "
          "at close are the whole file's on every rank, while the local define phase and the memory "
          "after it follow the rank's share (column \"(b) after define\"). On this 2-core machine 4 "
          "and 8 ranks share two cores, so that whole-file work per rank shows up as time.\n")
for ds in datasets:
    md.append(f"\n## {ds}\n")
    md.append("| ranks | (a) PnetCDF s | (a) exacdf s | (b) CDF-5 indep s | (c) partitioned s | (b) vs (a) PnetCDF "
              "| (c) vs (a) PnetCDF | (c) vs (b) | peak RSS MiB (a) PnetCDF | (a) exacdf | (b) | (c) "
              "| (b) after define | (c) share |")
    md.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    c1 = find(ds, 1, "partitioned_exacdf")
    for np_ in ranks_of[ds]:
        p, x, b, c = (find(ds, np_, a) for a in ("baseline_pnetcdf", "baseline_exacdf", "indep_exacdf",
                                                 "partitioned_exacdf"))
        def t(e):
            return f"{e['t_total_s']:.2f}" if e else "-"
        def mem(e, key="peak_rss_mib_max"):
            return f"{e[key]:.0f}" if e and key in e else "-"
        def ratio(e, key, fmt="{:.0f}x"):
            return fmt.format(e[key]) if e and key in e else "-"
        md.append(f"| {np_} | {t(p)} | {t(x)} | {t(b)} | {t(c)} | {ratio(b, 'speedup_vs_pnetcdf_baseline')} "
                  f"| {ratio(c, 'speedup_vs_pnetcdf_baseline')} | {ratio(c, 'speedup_vs_cdf5_indep', '{:.2f}x')} "
                  f"| {mem(p)} | {mem(x)} | {mem(b)} | {mem(c)} | {mem(b, 'peak_rss_after_define_mib_max')} "
                  f"| {share(c, c1)} |")
    md.append("\nPhases (s), in the categories of seed 000's Figures 7-10:\n")
    for a, label in APPROACHES:
        rows = [find(ds, np_, a) for np_ in ranks_of[ds]]
        rows = [e for e in rows if e]
        if not rows:
            continue
        names = list(rows[0]["phases_s"].keys())
        md.append(f"\n{label}:\n")
        md.append("| ranks | " + " | ".join(names) + " | total |")
        md.append("|---|" + "---|" * (len(names) + 1))
        for e in rows:
            md.append(f"| {e['ranks']} | " + " | ".join(f"{e['phases_s'][n]:.3f}" for n in names)
                      + f" | {e['t_total_s']:.3f} |")
if failed:
    md.append("\n## Runs that failed or timed out\n")
    for r in failed:
        md.append(f"- {r.get('program')} dataset_{r.get('dataset')} at {r.get('ranks')} ranks "
                  f"(limit {r.get('timeout_s')} s)")
with open(f"{out_dir}/exatrkx_create.md", "w") as f:
    f.write("\n".join(md) + "\n")

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit(0)
ds = "dataset_98M" if "dataset_98M" in datasets else datasets[0]
rk = ranks_of[ds]
fig, axes = plt.subplots(1, 3, figsize=(16, 4.8))
width = 0.2
for i, (a, label) in enumerate(APPROACHES):
    xs = [j + (i - 1.5) * width for j in range(len(rk))]
    es = [find(ds, n, a) for n in rk]
    axes[0].bar(xs, [e["t_total_s"] if e else 0 for e in es], width, label=label)
    axes[1].bar(xs, [e["peak_rss_mib_max"] if e else 0 for e in es], width, label=label)
for ax, title, ylabel in ((axes[0], "create + define + enddef + close", "seconds (log)"),
                          (axes[1], "peak RSS per rank at close", "MiB")):
    ax.set_xticks(range(len(rk)))
    ax.set_xticklabels([str(n) for n in rk])
    ax.set_xlabel("ranks (4, 8 oversubscribed on 2 cores)")
    ax.set_ylabel(ylabel)
    ax.set_title(f"{ds}: {title}")
axes[0].set_yscale("log")
axes[0].legend(fontsize=8)
es = [find(ds, n, "indep_exacdf") for n in rk]
bottom = [0.0] * len(rk)
for name in (es[0]["phases_s"].keys() if es and es[0] else []):
    vals = [e["phases_s"][name] if e else 0 for e in es]
    axes[2].bar(range(len(rk)), vals, 0.6, bottom=bottom, label=name)
    bottom = [b + v for b, v in zip(bottom, vals)]
axes[2].set_xticks(range(len(rk)))
axes[2].set_xticklabels([str(n) for n in rk])
axes[2].set_xlabel("ranks")
axes[2].set_ylabel("seconds")
axes[2].set_title(f"(b) exacdf independent define: phases, {ds}")
axes[2].legend(fontsize=8)
fig.tight_layout()
fig.savefig(f"{out_dir}/exatrkx_create.png", dpi=110)
