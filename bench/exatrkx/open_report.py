#!/usr/bin/env python3
"""Report of bench/exatrkx/run_open_bench.sh: exatrkx_open.{json,md,png}.

usage: open_report.py RAW.jsonl OUT_DIR COMMAND COMMIT
"""
import json
import sys

raw, out_dir, command, commit = sys.argv[1:5]
runs = [json.loads(line) for line in open(raw) if line.strip()]
key = lambda r: (r["objects"], r["ranks"], r["format"])
runs.sort(key=key)
by = {key(r): r for r in runs}
sizes = sorted({r["objects"] for r in runs})
ranks = sorted({r["ranks"] for r in runs})

with open(f"{out_dir}/exatrkx_open.json", "w") as f:
    json.dump({"command": command, "commit": commit, "machine": "2 cores, 24 GiB (4 ranks oversubscribed)",
               "results": runs}, f, indent=1)

md = ["# Opening the Exa.TrkX objects: CDF-5 vs the partitioned format\n",
      f"Command: `{command}` (commit {commit}). Machine: 2 cores, 24 GiB. The same objects (16 "
      "variables and up to 24 dimensions per graph sample, seed 000's shapes) written once in CDF-5 "
      "and once in the partitioned format with one metadata block per sample "
      "(`/<parent>_grp_<sample>/<key>`), both created in independent define mode. Times: max over "
      "ranks, best of the repetitions (for the partitioned open and one-object figures, which take "
      "well under a millisecond, at least 20); each starts with `ncmpi_open` and ends before "
      "`ncmpi_close`:",
      "- open: `ncmpi_open` + `ncmpi_inq_nvars`;",
      "- one object: open + `ncmpi_inq_varid` + `ncmpi_inq_var` of one variable of the last sample;",
      "- every object: open + `ncmpi_inq_var` of every variable and `ncmpi_inq_dim` of each of its "
      "dimensions, on every rank (seed 000's Table 2).\n",
      "| objects | blocks | ranks | open CDF-5 s | open partitioned s | ratio | one object CDF-5 s | "
      "one object partitioned s | every object CDF-5 s | every object partitioned s | "
      "peak RSS MiB of the process (create included) CDF-5 | partitioned |",
      "|---|---|---|---|---|---|---|---|---|---|---|---|"]
for n in sizes:
    for np_ in ranks:
        c, p = by.get((n, np_, "cdf5")), by.get((n, np_, "partitioned"))
        if not c or not p:
            continue
        md.append(f"| {n:,} | {p['blocks']:,} | {np_} | {c['t_open']:.4f} | {p['t_open']:.4f} | "
                  f"{c['t_open'] / p['t_open']:.0f}x | {c['t_open_one']:.4f} | {p['t_open_one']:.4f} | "
                  f"{c['t_open_all']:.3f} | {p['t_open_all']:.3f} | {c['peak_rss_kib'][3] / 1024:.0f} | "
                  f"{p['peak_rss_kib'][3] / 1024:.0f} |")
small, large = sizes[0], sizes[-1]
for np_ in ranks:
    a, b = by.get((small, np_, "partitioned")), by.get((large, np_, "partitioned"))
    if a and b:
        md.append(f"\nPartitioned open at {np_} rank(s): {a['t_open'] * 1e3:.3f} ms with {small:,} objects, "
                  f"{b['t_open'] * 1e3:.3f} ms with {large:,} ({b['t_open'] / a['t_open']:.1f}x for "
                  f"{large / small:,.0f}x the objects). Opening reads the superblocks, the head of the "
                  f"index table (a directory of {(b['blocks'] + 511) // 512:,} pages of up to 512 "
                  "entries), its first page and the root block, and keeps no object of any other "
                  "block; the head is the only part that grows with the number of blocks.")
with open(f"{out_dir}/exatrkx_open.md", "w") as f:
    f.write("\n".join(md) + "\n")

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit(0)
fig, axes = plt.subplots(1, 3, figsize=(16, 4.6))
for ax, field, title in zip(axes, ("t_open", "t_open_one", "t_open_all"),
                            ("open", "open + one object", "open + every object")):
    for fmt, style in (("cdf5", "o-"), ("partitioned", "s-")):
        for np_ in ranks:
            pts = [(n, by[(n, np_, fmt)][field]) for n in sizes if (n, np_, fmt) in by]
            if pts:
                ax.plot([x for x, _ in pts], [y for _, y in pts], style, label=f"{fmt}, {np_} rank(s)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("objects in the file")
    ax.set_ylabel("seconds (max over ranks)")
    ax.set_title(title)
axes[0].legend(fontsize=7)
fig.tight_layout()
fig.savefig(f"{out_dir}/exatrkx_open.png", dpi=110)
