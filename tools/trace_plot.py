#!/usr/bin/env python3
"""trace_plot.py REPORT.json OUT.png -- draws a trace connector report.

Top: the time line of operations per rank (one row per rank, a bar per
operation from its start to its end, coloured by kind: puts, gets,
nonblocking posts, waits, metadata). Bottom: Darshan's access-size
histogram (writes and reads). Needs matplotlib (the project venv has it:
/work/main/.venv/bin/python, or `pip install matplotlib`). Also run by
`exacdf trace --png OUT.png REPORT.json`.
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLOURS = {"put": "tab:blue", "get": "tab:green", "iput": "tab:cyan", "iget": "tab:olive",
           "bput": "tab:purple", "wait": "tab:red"}


def colour(kind):
    return COLOURS.get(kind.split("_")[0], "tab:gray")


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    with open(argv[1]) as f:
        report = json.load(f)
    fig, (tl, hist) = plt.subplots(2, 1, figsize=(10, 7), gridspec_kw={"height_ratios": [3, 2]})
    ranks = report["timeline"]["ranks"]
    for row in ranks:
        by_colour = {}
        for start, end, kind, _varid, _bytes in row["events"]:
            by_colour.setdefault(colour(kind), []).append((start, max(end - start, 1e-7)))
        for c, spans in by_colour.items():
            tl.broken_barh(spans, (row["rank"] - 0.4, 0.8), facecolors=c)
    tl.set_yticks([r["rank"] for r in ranks])
    tl.set_ylabel("rank")
    tl.set_xlabel("seconds since create/open")
    dropped = sum(r["dropped"] for r in ranks)
    tl.set_title("%s: %d ranks%s" % (report["file"].split("/")[-1], report["nprocs"],
                                      ", %d events not kept" % dropped if dropped else ""))
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in list(COLOURS.values()) + ["tab:gray"]]
    tl.legend(handles, list(COLOURS) + ["metadata"], loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize="small")

    bins = report["size_bins"]
    x = range(len(bins["edges"]))
    hist.bar([i - 0.2 for i in x], bins["write"], width=0.4, label="writes", color="tab:blue")
    hist.bar([i + 0.2 for i in x], bins["read"], width=0.4, label="reads", color="tab:green")
    hist.set_xticks(list(x))
    hist.set_xticklabels(bins["edges"], fontsize="small")
    hist.set_xlabel("access size (bytes)")
    hist.set_ylabel("accesses (all ranks)")
    hist.legend()
    fig.tight_layout()
    fig.savefig(argv[2], dpi=100)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
