#!/usr/bin/env python3
"""Summarizes bench/exatrkx/run_create_pairs.sh lines: per pair the load, the
summed CPU (task-clock) and wall of base and new and their ratio, then medians;
the peak RSS per rank at close; first define to end of enddef of each library
(the baseline's from its metadata allgather: exchange + create + define +
enddef, each the max over ranks) and PnetCDF/new ratios.

    python3 bench/exatrkx/create_pairs_table.py raw.jsonl [more.jsonl ...]
"""
import json
import statistics
import sys


def define_enddef(run):
    """First define to the end of enddef: exacdf's t_define includes ncmpi_create;
    the application-level baseline starts with its metadata allgather and create."""
    return run.get("t_exchange", 0) + run.get("t_create", 0) + run["t_define"] + run["t_enddef"]


def main():
    rows = [json.loads(l) for f in sys.argv[1:] for l in open(f) if l.startswith("{")]
    pairs = {}
    for r in rows:
        pairs.setdefault(r["pair"], {})[r["kind"]] = r
    print("| pair | load | base CPU ms | new CPU ms | new/base CPU | base wall s | new wall s | new/base wall |"
          " base define+enddef s | new define+enddef s | PnetCDF define+enddef s | PnetCDF/new |")
    print("|---" * 12 + "|")
    cpu, wall, de, vs = [], [], [], []
    for p in sorted(pairs):
        k = pairs[p]
        if "base" not in k or "new" not in k:
            continue
        b, n = k["base"], k["new"]
        loads = [x for r in k.values() for x in (r["load_before"], r["load_after"])]
        rc = n["task_clock_ms"] / b["task_clock_ms"]
        rw = n["run"]["t_total"] / b["run"]["t_total"]
        cpu.append(rc)
        wall.append(rw)
        de.append(define_enddef(n["run"]) / define_enddef(b["run"]))
        pn = k.get("pnetcdf")
        pn_de = f'{define_enddef(pn["run"]):.3f}' if pn else "-"
        ratio = "-"
        if pn:
            vs.append(define_enddef(pn["run"]) / define_enddef(n["run"]))
            ratio = f"{vs[-1]:.2f}"
        print(f"| {p} | {min(loads):.1f}-{max(loads):.1f} | {b['task_clock_ms']:.0f} | {n['task_clock_ms']:.0f} |"
              f" {rc:.3f} | {b['run']['t_total']:.2f} | {n['run']['t_total']:.2f} | {rw:.3f} |"
              f" {define_enddef(b['run']):.3f} | {define_enddef(n['run']):.3f} | {pn_de} | {ratio} |")
    med = statistics.median
    print()
    print(f"median new/base: CPU {med(cpu):.3f}, wall {med(wall):.3f}, define+enddef {med(de):.3f}"
          + (f"; PnetCDF/new define+enddef {med(vs):.2f}" if vs else ""))
    for kind in ("base", "new", "pnetcdf"):
        rs = [r for r in rows if r["kind"] == kind]
        if not rs:
            continue
        print(f"{kind}: CPU ms median {med(r['task_clock_ms'] for r in rs):.0f}"
              f" (min {min(r['task_clock_ms'] for r in rs):.0f}), wall s median {med(r['run']['t_total'] for r in rs):.2f},"
              f" peak RSS MiB rank 0 {min(r['run']['peak_rss_kib'][0] for r in rs) / 1024:.1f}-"
              f"{max(r['run']['peak_rss_kib'][0] for r in rs) / 1024:.1f}, other ranks max "
              f"{max(max(r['run']['peak_rss_kib'][1:] or [0]) for r in rs) / 1024:.1f}")


if __name__ == "__main__":
    main()
