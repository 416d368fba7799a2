#!/usr/bin/env python3
"""Turns the RESULT lines of bench/run_data_bench.sh into docs/perf/data_bench.{json,md,png}.

Medians over repetitions of the max-over-ranks times; bandwidth = bytes / median time,
in MiB/s.  Standard library only; the PNG needs matplotlib (skipped if missing).
"""
import argparse
import datetime
import json
import os
import platform
import re
import statistics
import subprocess
from collections import defaultdict

LIBS = ["exacdf", "pnetcdf", "hdf5", "mpiio", "posix"]
LIB_TITLE = {"exacdf": "exacdf", "pnetcdf": "PnetCDF", "hdf5": "HDF5", "mpiio": "MPI-IO", "posix": "pwrite"}
# The physical ceiling: plain pwrite/pread per rank into the same file system.
CEILING = "posix"
LIBRARIES = ["exacdf", "pnetcdf", "hdf5", "mpiio"]
PATTERNS = ["Z", "Y", "X", "ZY", "ZX", "YX", "ZYX"]
SIZE_ORDER = {"8MiB": 0, "64MiB": 1, "1GiB": 2}


def parse(raw):
    runs = []
    versions = {}
    identity = {}
    failures = []
    for line in open(raw):
        line = line.strip()
        if line.startswith("RESULT "):
            kv = dict(tok.split("=", 1) for tok in line.split()[1:] if "=" in tok)
            runs.append(kv)
        elif line.startswith("# "):
            m = re.match(r"# (\w+): (.*)", line)
            if m:
                versions[m.group(1)] = m.group(2).strip()
        elif line.startswith("IDENTITY"):
            what, _, verdict = line.split(None, 1)[1].partition("=")
            identity[what] = verdict
        elif line.startswith("FAILED"):
            failures.append(line)
    return runs, versions, "; ".join(f"{k}: {v}" for k, v in identity.items()) or None, failures


def machine():
    info = {"nproc": os.cpu_count(), "platform": platform.platform()}
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                info["mem_total_gib"] = round(int(line.split()[1]) / 1048576, 1)
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return info


def fs_of(path):
    try:
        out = subprocess.run(["df", "-T", path], capture_output=True, text=True).stdout.splitlines()
        return out[-1].split()[1]
    except Exception:
        return "unknown"


def tree_state(root):
    try:
        rev = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", root, "status", "--porcelain", "--", "src", "include"],
                               capture_output=True, text=True).stdout.splitlines()
        return f"{rev}" + (f" + uncommitted changes in {len(dirty)} file(s) under src/ include/" if dirty else "")
    except Exception:
        return "unknown"


def med(xs):
    return statistics.median(xs) if xs else None


def aggregate(runs):
    groups = defaultdict(lambda: defaultdict(list))
    for r in runs:
        key = (r["bench"], r["size"], r["pattern"], int(r["ranks"]))
        groups[key][r["lib"]].append(r)
    rows = []
    for key in sorted(groups, key=lambda k: (k[0], SIZE_ORDER.get(k[1], 9), k[3],
                                             PATTERNS.index(k[2]) if k[2] in PATTERNS else 0)):
        bench, size, pattern, ranks = key
        row = {"bench": bench, "size": size, "pattern": pattern, "ranks": ranks, "libs": {}}
        for lib, rs in groups[key].items():
            b = int(rs[0]["bytes"])
            row["bytes"] = b
            ent = {"reps": len(rs), "write_s": [float(x["write_s"]) for x in rs]}
            ent["write_s_median"] = med(ent["write_s"])
            ent["write_mibs"] = b / 1048576 / ent["write_s_median"]
            if bench == "partition3d":
                ent["read_s"] = [float(x["read_s"]) for x in rs]
                ent["read_s_median"] = med(ent["read_s"])
                ent["read_mibs"] = b / 1048576 / ent["read_s_median"]
                ent["grid"] = rs[0]["grid"]
                ent["dims"] = rs[0]["dims"]
                ent["values_wrong"] = sum(int(x["bad"]) for x in rs)
            else:
                for f in ("ckpt_s", "plot_centered_s", "plot_corner_s", "pack_s"):
                    ent[f + "_median"] = med([float(x[f]) for x in rs])
                ent["tot_blocks"] = int(rs[0]["tot_blocks"])
            row["libs"][lib] = ent
        row["ratios"] = ratios(row)
        rows.append(row)
    return rows


def ratios(row):
    out = {}
    L = row["libs"]
    ops = ["write", "read"] if row["bench"] == "partition3d" else ["write"]
    for op in ops:
        k = op + "_mibs"
        if "exacdf" not in L:
            continue
        ex = L["exacdf"][k]
        for peer, name in (("mpiio", "exacdf/MPI-IO"), ("pnetcdf", "exacdf/PnetCDF"), ("hdf5", "exacdf/HDF5")):
            if peer in L and (peer != "hdf5" or row["bench"] == "flash"):
                out[f"{op} {name}"] = ex / L[peer][k]
    # Every library as a fraction of the pwrite ceiling.
    for op in ops:
        k = op + "_mibs"
        if CEILING not in L:
            continue
        for lib in LIBRARIES:
            if lib in L:
                out[f"{op} {LIB_TITLE[lib]}/pwrite"] = L[lib][k] / L[CEILING][k]
    return out


def fmt(x, nd=0):
    return "—" if x is None else f"{x:,.{nd}f}"


def table(rows, bench, op, size):
    sel = [r for r in rows if r["bench"] == bench and r["size"] == size]
    if not sel:
        return []
    k = op + "_mibs"
    peers = ["exacdf", "pnetcdf", "hdf5", "mpiio", "posix"]
    ratio_names = (["exacdf/MPI-IO", "exacdf/PnetCDF"] + (["exacdf/HDF5"] if bench == "flash" else [])
                   + [f"{LIB_TITLE[lib]}/pwrite" for lib in LIBRARIES])
    head = ["pattern" if bench == "partition3d" else "nxb", "ranks"] + [LIB_TITLE[p] + " MiB/s" for p in peers] + ratio_names
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in sel:
        cells = [r["pattern"] if bench == "partition3d" else r["pattern"].replace("nxb", ""), str(r["ranks"])]
        for p in peers:
            cells.append(fmt(r["libs"][p][k]) if p in r["libs"] else "—")
        for name in ratio_names:
            v = r["ratios"].get(f"{op} {name}")
            cells.append(fmt(v, 2) if v is not None else "—")
        out.append("| " + " | ".join(cells) + " |")
    return out


def summary(rows):
    lines = []
    for bench, ops in (("partition3d", ["write", "read"]), ("flash", ["write"])):
        for op in ops:
            for peer, thr, text in (("pnetcdf", 1.0, "slower than PnetCDF"), ("mpiio", 0.95, "below 95% of MPI-IO")):
                sel = [r for r in rows if r["bench"] == bench and f"{op} exacdf/{LIB_TITLE[peer]}" in r["ratios"]]
                bad = [r for r in sel if r["ratios"][f"{op} exacdf/{LIB_TITLE[peer]}"] < thr]
                if not sel:
                    continue
                worst = min(sel, key=lambda r: r["ratios"][f"{op} exacdf/{LIB_TITLE[peer]}"])
                wv = worst["ratios"][f"{op} exacdf/{LIB_TITLE[peer]}"]
                geo = statistics.geometric_mean([r["ratios"][f"{op} exacdf/{LIB_TITLE[peer]}"] for r in sel])
                lines.append(
                    f"- {bench} {op}: exacdf {text} in {len(bad)} of {len(sel)} cases; "
                    f"geometric mean exacdf/{LIB_TITLE[peer]} = {geo:.2f}; worst {wv:.2f} "
                    f"({worst['size']} {worst['pattern']} {worst['ranks']} ranks)")
    lines.extend(ceiling_summary(rows))
    lines.extend(per_rank_summary(rows))
    lines.extend(best_of_reps_summary(rows))
    fl = [r for r in rows if r["bench"] == "flash" and "write exacdf/HDF5" in r["ratios"]]
    if fl:
        geo = statistics.geometric_mean([r["ratios"]["write exacdf/HDF5"] for r in fl])
        n2 = sum(1 for r in fl if r["ratios"]["write exacdf/HDF5"] >= 2)
        lines.append(f"- flash write: exacdf/HDF5 geometric mean {geo:.2f}; at least 2x HDF5 in {n2} of {len(fl)} cases")
    return lines


def contiguous_write(row):
    """Each rank's piece is one run of the file: the large contiguous writes the
    pwrite aim is about (Z slabs at any rank count; any pattern at 1 rank)."""
    return row["bench"] == "partition3d" and (row["pattern"] == "Z" or row["ranks"] == 1)


def ceiling_summary(rows):
    """Every library as a fraction of plain pwrite, per benchmark and operation."""
    lines = []
    for bench, ops in (("partition3d", ["write", "read"]), ("flash", ["write"])):
        for op in ops:
            sel = [r for r in rows if r["bench"] == bench and f"{op} exacdf/pwrite" in r["ratios"]]
            if not sel:
                continue
            geos = []
            for lib in LIBRARIES:
                vs = [r["ratios"][f"{op} {LIB_TITLE[lib]}/pwrite"] for r in sel
                      if f"{op} {LIB_TITLE[lib]}/pwrite" in r["ratios"]]
                if vs:
                    geos.append(f"{LIB_TITLE[lib]} {statistics.geometric_mean(vs):.2f}")
            at90 = sum(1 for r in sel if r["ratios"][f"{op} exacdf/pwrite"] >= 0.9)
            lines.append(f"- {bench} {op}, fraction of pwrite (geometric mean over {len(sel)} cases): "
                         + ", ".join(geos) + f"; exacdf at 90% of pwrite or more in {at90} of {len(sel)}")
    big = [r for r in rows if contiguous_write(r) and "write exacdf/pwrite" in r["ratios"]]
    if big:
        vs = [r["ratios"]["write exacdf/pwrite"] for r in big]
        worst = min(big, key=lambda r: r["ratios"]["write exacdf/pwrite"])
        lines.append(
            f"- large contiguous writes (partition3d Z at every rank count, every pattern at 1 rank; aim 0.90): "
            f"exacdf/pwrite geometric mean {statistics.geometric_mean(vs):.2f}, at 0.90 or more in "
            f"{sum(1 for v in vs if v >= 0.9)} of {len(vs)}; worst {min(vs):.2f} "
            f"({worst['size']} {worst['pattern']} {worst['ranks']} ranks)")
    return lines


def per_rank_summary(rows):
    """exacdf/PnetCDF per rank count over every cell (partition3d write and read, flash write):
    the aim is a geometric mean of 1.1 or more at each."""
    by_n = defaultdict(list)
    for r in rows:
        for key, v in r["ratios"].items():
            if key.endswith(" exacdf/PnetCDF"):
                by_n[r["ranks"]].append(v)
    return per_rank_line("- exacdf/PnetCDF geometric mean per rank count, every cell (partition3d write and read, "
                         "flash write): ", by_n)


def per_rank_line(title, by_n):
    """One summary line: the geometric mean of the ratios of each rank count, and how many are below 1."""
    if not by_n:
        return []
    parts = [f"{n} rank{'s' if n > 1 else ''} {statistics.geometric_mean(vs):.2f} "
             f"(below 1 in {sum(1 for v in vs if v < 1)} of {len(vs)})" for n, vs in sorted(by_n.items())]
    return [title + "; ".join(parts)]


def best_of_reps_summary(rows):
    """The same per-rank-count figure from each library's fastest repetition: a stall of the
    machine only ever adds time, so the fastest repetition is the run without one."""
    by_n = defaultdict(list)
    for r in rows:
        L = r["libs"]
        if "exacdf" not in L or "pnetcdf" not in L:
            continue
        for op in (["write", "read"] if r["bench"] == "partition3d" else ["write"]):
            by_n[r["ranks"]].append(min(L["pnetcdf"][op + "_s"]) / min(L["exacdf"][op + "_s"]))
    return per_rank_line("- the same from each library's fastest repetition of each cell (a stall only adds time): ",
                         by_n)


def plot(rows, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    colors = {"exacdf": "#1b9e77", "pnetcdf": "#d95f02", "hdf5": "#7570b3", "mpiio": "#666666", "posix": "#bbbbbb"}
    sizes = sorted({r["size"] for r in rows}, key=lambda s: SIZE_ORDER.get(s, 9))
    ranks = sorted({r["ranks"] for r in rows})
    panels = []
    for s in sizes:
        for op in ("write", "read"):
            panels.append(("partition3d", s, op))
    panels.append(("flash", None, "write"))
    fig, axes = plt.subplots(len(panels), len(ranks), figsize=(4.2 * len(ranks), 2.9 * len(panels)), squeeze=False)
    for i, (bench, size, op) in enumerate(panels):
        for j, n in enumerate(ranks):
            ax = axes[i][j]
            sel = [r for r in rows if r["bench"] == bench and r["ranks"] == n and (size is None or r["size"] == size)]
            xl = [r["pattern"] if bench == "partition3d" else f"{r['size']}\n{r['pattern']}" for r in sel]
            w = 0.16
            for k, lib in enumerate(LIBS):
                ys = [r["libs"].get(lib, {}).get(op + "_mibs", 0) for r in sel]
                ax.bar([x + (k - (len(LIBS) - 1) / 2) * w for x in range(len(sel))], ys, w, color=colors[lib],
                       label=LIB_TITLE[lib])
            ax.set_xticks(range(len(sel)))
            ax.set_xticklabels(xl, fontsize=7)
            title = f"partition3d {size} {op}" if bench == "partition3d" else "FLASH-IO write"
            ax.set_title(f"{title}, {n} rank{'s' if n > 1 else ''}", fontsize=9)
            ax.tick_params(axis="y", labelsize=7)
            if j == 0:
                ax.set_ylabel("MiB/s", fontsize=8)
            if i == 0 and j == 0:
                ax.legend(fontsize=7)
    fig.suptitle("exacdf vs PnetCDF 1.12.3 vs HDF5 1.10.8 vs raw MPI-IO vs plain pwrite (median, max-over-ranks time)",
                 fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 0.98))
    fig.savefig(path, dpi=90)
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--command", default="bench/run_data_bench.sh")
    ap.add_argument("--elapsed", type=int, default=0)
    ap.add_argument("--reps", default="")
    ap.add_argument("--ranks", default="")
    ap.add_argument("--quick", default="0")
    ap.add_argument("--datadir", default="/tmp")
    a = ap.parse_args()
    runs, versions, identity, failures = parse(a.raw)
    rows = aggregate(runs)
    mach = machine()
    mach["filesystem"] = fs_of(a.datadir)
    meta = {
        "command": a.command,
        "exacdf_tree": tree_state(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "machine": mach,
        "versions": versions,
        "repetitions": a.reps,
        "ranks": a.ranks,
        "elapsed_s": a.elapsed,
        "quick": a.quick == "1",
        "byte_identity": identity,
        "failures": failures,
        "oversubscribed": [n for n in map(int, a.ranks.split()) if n > (os.cpu_count() or 1)] if a.ranks else [],
        "units": "MiB/s = bytes / 2^20 / median over repetitions of the max-over-ranks time",
    }
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "data_bench.json"), "w") as f:
        json.dump({"meta": meta, "results": rows}, f, indent=1)
    png = plot(rows, os.path.join(a.out, "data_bench.png"))
    md = render_md(meta, rows, png)
    with open(os.path.join(a.out, "data_bench.md"), "w") as f:
        f.write(md)


def render_md(meta, rows, png):
    m = meta["machine"]
    v = meta["versions"]
    L = []
    L.append("# Data-path benchmark: exacdf vs PnetCDF vs parallel HDF5 vs raw MPI-IO vs plain pwrite")
    L.append("")
    L.append(f"- Command: `{meta['command']}` (from the repository root)")
    L.append(f"- Date: {meta['date']}; full run took {meta['elapsed_s']} s")
    L.append(f"- Machine: {m.get('nproc')} cores ({m.get('cpu', '?')}), {m.get('mem_total_gib', '?')} GiB RAM, "
             f"files on {m.get('filesystem')} (local virtual disk), {m.get('platform')}")
    L.append(f"- Libraries: exacdf `{v.get('exacdf', '?')}` (Release build, build-bench/); "
             f"built from tree {meta.get('exacdf_tree')}; PnetCDF `{v.get('pnetcdf', '?')}` (Debian); HDF5 {v.get('hdf5', '?')} (Debian, openmpi); "
             f"MPI `{v.get('mpiio', '?')}` (MPI-IO component: Open MPI's default, ompio)")
    L.append(f"- Repetitions: {meta['repetitions']} per cell, median reported; ranks {meta['ranks']}. "
             + (f"**{', '.join(map(str, meta['oversubscribed']))} ranks are oversubscribed** on {m.get('nproc')} cores "
                "(`mpiexec --oversubscribe`): those columns measure contention as much as I/O."
                if meta["oversubscribed"] else ""))
    L.append(f"- Byte identity (same flash_io source, exacdf vs PnetCDF files; MPI-IO and pwrite bytes vs the netCDF "
             f"data section): **{meta['byte_identity']}**")
    if meta["failures"]:
        L.append(f"- **Failed runs**: {len(meta['failures'])}: " + "; ".join(meta["failures"]))
    L.append("")
    L.append("## How it is measured")
    L.append("")
    L.append("- Times are max over ranks (MPI_Wtime after a barrier, reduced with MPI_MAX) and include "
             "create/open, define, the collective data call(s) and close. No fsync: `ncmpi_close`, "
             "`H5Fclose` and `MPI_File_close` do not sync, so **writes land in the page cache** and the "
             "figures are memory-to-page-cache speeds of a local ext4 file, not disk speeds. Reads follow "
             "the write of the same file and are served from the page cache (nothing here can drop caches "
             "without root). Every file is deleted after its measurement, so its dirty pages are discarded "
             "rather than written back, and `sync` runs before every launch.")
    L.append("- Libraries run interleaved (each repetition runs all five variants, order rotated), defaults for all "
             "hints. The MPI-IO writers write exactly the netCDF data bytes (big-endian; byte swapping "
             "is timed) in the same pattern: subarray file view + `MPI_File_write_all` (partition3d), one "
             "file view + `write_all` per variable (flash). HDF5 writes native little-endian (HDF5 1.10 "
             "drops collective I/O when it has to convert types) with fill time NEVER (as NC_NOFILL); its "
             "files are therefore not the same bytes, only the same amount of data.")
    L.append("- **Random stalls of this machine, in every variant.** The machine is a virtual machine whose "
             "kernel returns freed guest pages to the host (virtio-balloon free page reporting, "
             "`/sys/module/page_reporting/parameters/min_free_ms` = 0; `reported_kib` grows by gigabytes "
             "during a run). Touching such a page again costs a host-side fault, so a write into the page "
             "cache, or a new buffer, sometimes stalls. Measured 2026-11-24, 1 rank, 6 launches of each of "
             "exacdf, PnetCDF and pwrite, patterns Z,Z,Y at 64 MiB: 5 of 54 writes took 0.08-0.14 s instead "
             "of 0.019-0.036 s, pwrite among them; at 1 GiB, pwrite's Z write took 1.37-1.68 s in 3 of 3 "
             "launches against 0.29 s without a stall (that test ran with min_free_ms raised to 60000, which did not stop them). A cell whose median drew two stalls shows a ratio far "
             "from 1 in either direction; read ratios across neighbouring cells, not one cell.")
    L.append("- pwrite, the physical ceiling (bench/posix/): the same bytes as the MPI-IO writer (checked "
             "identical) in the same decomposition and the same file system, written with plain `pwrite` by "
             "every rank into one shared file -- rank 0 creates it, the others open it after a barrier -- one "
             "call per contiguous run of the rank's piece in the file (rows merged while they follow each "
             "other: a Z slab or a FLASH variable's block range is one call), byte swapping into a staging "
             "buffer timed, no fsync; reads `pread` the same runs and swap in place. No MPI-IO, no "
             "aggregation between ranks: for pieces made of many small runs (X, YX, ZX at several ranks) it "
             "is a naive writer, not a bound, and MPI-IO's two-phase I/O can beat it; for large contiguous "
             "runs it is what the file system gives. The `<library>/pwrite` columns are each library's "
             "bandwidth divided by pwrite's in the same cell.")
    L.append("- partition3d: tt(Z,Y,X) float, 64 MiB = 256×256×256, 1 GiB = 1024×512×512; process grid = "
             "MPI_Dims_create over the pattern's axes; every value read is verified (0 wrong values in all "
             "runs below unless said). At 1 GiB only the patterns listed run, to keep the run within time.")
    L.append("- flash: FLASH-IO pattern (workloads.md): base + rank%3 blocks per rank, 24 double variables + "
             "tree metadata + attributes (checkpoint), 4 float variables cell-centred and corner (nxb+1). "
             "64 MiB runs use nxb=8, 1 GiB runs nxb=16; `base` is chosen so the three files hold the total "
             "(so blocks per rank shrink with ranks: strong scaling). Bandwidth = data bytes / (sum over the "
             "three files of max-over-ranks time). Packing interior cells out of the guarded arrays is "
             "timed, identical code in all four variants (its share is in the JSON, `pack_s_median`).")
    L.append("")
    L.append("## Summary")
    L.append("")
    L.extend(summary(rows))
    L.append("")
    for size in sorted({r["size"] for r in rows}, key=lambda s: SIZE_ORDER.get(s, 9)):
        for op in ("write", "read"):
            t = table(rows, "partition3d", op, size)
            if t:
                L.append(f"## partition3d {op}, {size}")
                L.append("")
                L.extend(t)
                L.append("")
    for size in sorted({r["size"] for r in rows if r["bench"] == "flash"}, key=lambda s: SIZE_ORDER.get(s, 9)):
        fl = [r for r in rows if r["bench"] == "flash" and r["size"] == size]
        L.append(f"## FLASH-IO write, {size} (" + ", ".join(
            sorted({f"{r['libs'][next(iter(r['libs']))].get('tot_blocks')} blocks at {r['ranks']} ranks" for r in fl},
                   key=lambda s: int(s.split(" at ")[1].split()[0]))) + ")")
        L.append("")
        L.extend(table(rows, "flash", "write", size))
        L.append("")
    if png:
        L.append("![data bench](data_bench.png)")
        L.append("")
    return "\n".join(L) + "\n"


if __name__ == "__main__":
    main()
