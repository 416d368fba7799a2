#!/usr/bin/env python3
"""docs/perf/query.{md,png} from the JSON lines of bench/query_bench.c."""
import json
import sys

src, md_path, png_path, command = sys.argv[1:5]
rows = [json.loads(l) for l in open(src) if l.startswith("{")]
builds = [r for r in rows if r["kind"] == "build"]
queries = [r for r in rows if r["kind"] == "query"]
updates = [r for r in rows if r["kind"] == "update"]
loads = [r["load1"] for r in rows if r.get("load1", -1) >= 0]
n = rows[0]["n"] if rows else 0


def scan_of(q):
    for r in queries:
        if r["mode"] == "scan" and r["dist"] == q["dist"] and r["ranks"] == q["ranks"] and r["target"] == q["target"]:
            return r
    return None


out = []
out.append("# Queries over values: VPIC-like energy > t\n")
out.append(f"Command: `{command}`\n")
out.append(f"{n:,} float32 energies plus x, y, z (CDF-5, one 1-D variable each); "
           "times are medians of the slowest rank, the file in the page cache "
           "(2-core VM shared with other jobs: absolute times are noisy, ratios in the same run are what to read).\n")
if loads:
    out.append(f"Load average (1 min) during the run: {min(loads):.1f} to {max(loads):.1f} on 2 cores "
               "(other engineers' builds and tests): wall times are inflated and noisy; `cpu s` is the "
               "CPU time of all ranks together, which the load disturbs less.\n")
out.append("## Index build\n")
out.append("| distribution | ranks | index | bins | build s | cpu s | MB/s | index size % of data |")
out.append("|---|---|---|---|---|---|---|---|")
for b in builds:
    out.append(f"| {b['dist']} | {b['ranks']} | {b['index']} | {b['bins']} | {b['build_s']:.3f} | "
               f"{b.get('build_cpu_s', float('nan')):.3f} | {b['build_MBps']:.0f} | {b['index_pct']:.1f} |")
if updates:
    out.append("\n## Update after puts into three chunks (`exa_index_create(..., \"update\")`)\n")
    out.append("| distribution | ranks | chunks | stale | rebuilt | kept | update s | cpu s | full build of that index s |")
    out.append("|---|---|---|---|---|---|---|---|---|")
    for u in updates:
        full = [b for b in builds if b["dist"] == u["dist"] and b["ranks"] == u["ranks"] and b["index"] == "edges=t"]
        fb = f"{full[0]['build_s']:.3f}" if full else "-"
        out.append(f"| {u['dist']} | {u['ranks']} | {u['chunks']} | {u['stale']} | {u['rebuilt']} | {u['kept']} | "
                   f"{u['update_s']:.3f} | {u['update_cpu_s']:.3f} | {fb} |")
out.append("\n## Queries (speed-up = scan time / index time)\n")
out.append("| distribution | ranks | selectivity | hits | mode | count s | count cpu s | positions s | fetch x,y,z s | count speed-up | count cpu speed-up | positions speed-up | fetch speed-up |")
out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for q in queries:
    s = scan_of(q)
    sp = lambda k: (s[k] / q[k]) if s and q[k] > 0 else float("nan")
    out.append(f"| {q['dist']} | {q['ranks']} | {100 * q['target']:g}% | {q['hits']:,} | {q['mode']} | "
               f"{q['count_s']:.4f} | {q.get('count_cpu_s', float('nan')):.4f} | {q['positions_s']:.4f} | {q['fetch_xyz_s']:.4f} | "
               f"{sp('count_s'):.1f}x | {sp('count_cpu_s') if 'count_cpu_s' in q else float('nan'):.1f}x | "
               f"{sp('positions_s'):.1f}x | {sp('fetch_xyz_s'):.1f}x |")
out.append("""
## Reading the table

- `index` (64 equal-weight bins) with the cost check: the engine plans every chunk (skip or
  take whole by min/max, test by value, or bitmaps, from the bins' counts) and compares the
  plan's cost with the scan's on the slowest rank; when the plan would cost more than 0.7 of
  the scan (random data: the constant's bin holds 1/64 of the values spread over every chunk,
  so every chunk would be tested by value) the leaf is scanned -- the `index` rows then equal
  the scan within noise. `index_nocheck` is the same index without the check
  (EXACDF_QUERY_INDEX_SHARE=1e30): the cost the check avoids. On the smooth field, min/max
  skip most chunks and only the chunks crossing the threshold are tested.
- `index_edges` (edges just above the constants, so each query is a union of whole bins):
  count and positions come from the bitmaps alone: 10-300x faster than the scan at 0.1% and
  1%, on every distribution. With more bins (`bins=1024`) the edge bin of a random threshold
  shrinks accordingly; the issue's 10x at 1% on the smooth field is met by `index_edges` (and
  by `index` at 4 ranks), not by the 64-bin index at 1-2 ranks.
- Fetching x, y, z is the same call with or without an index (`exa_query_get`: one
  collective varn read of the hits' runs, or slabs of rows when the hits are dense); its
  column compares two runs of the same code.
- Index size: a random bin's positions cost 2 bytes each in Roaring array containers, so a
  64-bin index of random float32 data is 50% of the data; on the smooth field runs compress it
  to 25% (0.3% with 4 bins). Build: sampling, one read of the data, bitmaps, sidecar write;
  15-25 MB/s here, dominated by computing the bins and the bitmaps (single-threaded).
""")
open(md_path, "w").write("\n".join(out) + "\n")

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit(0)
dists = sorted({q["dist"] for q in queries})
ranks = sorted({q["ranks"] for q in queries})
fig, axes = plt.subplots(1, len(dists), figsize=(5 * len(dists), 4), squeeze=False)
for ax, d in zip(axes[0], dists):
    for mode, style in (("scan", "k-o"), ("index", "b-s"), ("index_nocheck", "r:x"), ("index_edges", "g-^")):
        for r, alpha in zip(ranks, (1.0, 0.7, 0.45, 0.3)):
            pts = sorted((q["target"], q["positions_s"]) for q in queries
                         if q["dist"] == d and q["mode"] == mode and q["ranks"] == r)
            if pts:
                ax.plot([100 * p[0] for p in pts], [p[1] for p in pts], style, alpha=alpha,
                        label=f"{mode}, {r} rank{'s' if r > 1 else ''}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("selectivity %")
    ax.set_ylabel("count + positions, s")
    ax.set_title(f"{d}, N={n:,}")
    ax.legend(fontsize=6)
fig.tight_layout()
fig.savefig(png_path, dpi=110)
