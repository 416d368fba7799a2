"""e3sm_io_report.py -- turns the RESULT lines of bench/run_e3sm_io.sh into
OUT_DIR/e3sm_io.json, e3sm_io.md and (with matplotlib) e3sm_io.png.
Reads its inputs from the environment the run script exports."""
import json
import os
import statistics as st

env = os.environ
raw = []
for line in open(env["RAW"]):
    kv = dict(tok.split("=", 1) for tok in line.split()[1:])
    for k, v in list(kv.items()):
        if k == "steps_s":
            kv[k] = [float(x) for x in v.split(",")]
            continue
        try:
            kv[k] = int(v)
        except ValueError:
            try:
                kv[k] = float(v)
            except ValueError:
                pass
    raw.append(kv)

variants = ["exacdf-nb", "pnetcdf-nb", "exacdf-blocking", "pnetcdf-blocking"]
ranks = sorted({r["ranks"] for r in raw})
TIMES = ("step_s", "post_s", "wait_s", "fixed_s", "create_s", "close_s", "pwrite_step_s")
COUNTS = ("mpiio_calls_step_rank_min", "mpiio_calls_step_rank_max", "mpiio_calls_step_sum",
          "mpiio_calls_fixed_rank_max", "mpiio_calls_close_rank_max",
          "mpiio_calls_write_phase_rank_max", "exa_io_calls_step_rank_min",
          "exa_io_calls_step_rank_max", "reqs_per_step_rank_max", "pieces_d1_rank_max",
          "pieces_d2_rank_max", "pieces_d1", "pieces_d2", "pieces_d3", "step_bytes",
          "file_bytes", "nvars", "ndecomp_vars", "ncol", "lev", "steps", "maxlen")
summary = {}
for v in variants:
    summary[v] = {}
    for n in ranks:
        rs = [r for r in raw if r["label"] == v and r["ranks"] == n]
        if not rs:
            continue
        s = {"reps": len(rs)}
        for k in TIMES:
            xs = [r[k] for r in rs]
            s[k] = st.median(xs)
            s[k + "_min"] = min(xs)
            s[k + "_max"] = max(xs)
        last = rs[-1]
        for k in COUNTS:
            s[k] = last[k]
        s["counts_constant_over_reps"] = all(
            r["mpiio_calls_step_sum"] == last["mpiio_calls_step_sum"] for r in rs)
        s["all_verified"] = all(r["verify"] == "ok" for r in rs)
        s["values_checked_per_run"] = last["values_checked"]
        summary[v][n] = s

any_s = next(iter(summary["pnetcdf-nb"].values()))
load_start = float(env["LOAD_START"].split()[0])
loaded = load_start > 2.5
meta = {
    "benchmark": "e3sm_io (E3SM F-case-like output, issue 4)",
    "command": env["COMMAND"],
    "quick": env["QUICK"] == "1",
    "date": env["M_DATE"],
    "machine": {"cpu": env["M_CPU"], "cores": int(env["M_NPROC"]), "memory": env["M_MEM"],
                "kernel": env["M_KERNEL"], "filesystem_of_data": env["M_FS"]},
    "load_average_start": env["LOAD_START"],
    "load_average_end": env["LOAD_END"],
    "loaded_machine": loaded,
    "versions": {"open_mpi": env["V_OMPI"], "pnetcdf_deb": env["V_PNC"], "gcc": env["V_GCC"],
                 "exacdf_built_from": env["V_SRC"]},
    "exacdf_build": "CMake Release (-O3 -DNDEBUG), build-bench-e3sm/lib",
    "shape": {k: any_s[k] for k in ("ncol", "lev", "steps", "maxlen", "nvars", "ndecomp_vars",
                                    "step_bytes", "file_bytes")},
    "files_identical_at_2_ranks": env["IDENT"],
    "reps": int(env["REPS"]),
    "statistic": "time per step = median over steps of the max over ranks (barrier before "
                 "each step); then median over reps",
    "oversubscribed": "4 and 8 ranks run on 2 cores (mpiexec --oversubscribe, mpi_yield_when_idle=1)",
    "mpiio_counting": "bench/mpiio_count.c LD_PRELOADed (PMPI interposition) in every run",
    "runs_wall_seconds": int(env["ELAPSED"]),
}
out = env["OUT_DIR"]
json.dump({"meta": meta, "summary": summary, "runs": raw},
          open(os.path.join(out, "e3sm_io.json"), "w"), indent=1)


def f3(x):
    return f"{x:.3f}"


def ratio(a, b):
    return f"{a / b:.2f}" if b > 0 else "-"


def calls(s):
    lo, hi = s["mpiio_calls_step_rank_min"], s["mpiio_calls_step_rank_max"]
    fmt = lambda x: f"{x:g}"
    return fmt(lo) if lo == hi else f"{fmt(lo)}..{fmt(hi)}"


sh = meta["shape"]
L = []
L.append("# E3SM-like output: nonblocking (iput_varn + wait_all) vs blocking, exacdf vs PnetCDF\n")
if meta["quick"]:
    L.append("**QUICK smoke run (EXACDF_BENCH_QUICK=1): tiny sizes, one repetition; "
             "not a measurement to quote.**\n")
if loaded:
    L.append(f"**Taken on a loaded machine:** 1/5/15-minute load average {env['LOAD_START']} at "
             f"the start and {env['LOAD_END']} at the end, on {meta['machine']['cores']} cores "
             "(other engineers' benchmarks were running). Absolute times and small differences "
             "are noisy; the MPI-IO call counts are exact. Re-run on a quiet machine for "
             "figures to quote.\n")
L.append(
    "`bench/e3sm_io.c` writes an E3SM F-case-like history file (CDF-5), scaled down: "
    f"{sh['nvars']} variables, {sh['ndecomp_vars']} of them decomposed over 3 decompositions "
    f"of ncol = {sh['ncol']:,} columns -- D1 (ncol): lat/lon/area (double, fixed) + 321 "
    f"2-D float record variables; D2 (lev={sh['lev']} x ncol): 62 3-D float variables; "
    "D3 (ilev=73 x ncol): 2 -- plus 26 small non-decomposed variables written by rank 0. "
    f"{sh['steps']} record steps (time UNLIMITED) of {sh['step_bytes']/1e6:.1f} MB each; "
    f"file {sh['file_bytes']/1e6:.1f} MB. Each decomposition is an irregular block-cyclic map: "
    f"runs of 1..{sh['maxlen']} columns, dealt round-robin with one in four to a random rank, "
    "so every rank holds many small noncontiguous pieces (a D2 piece is 72 file segments).\n")
L.append("- **nb**: per variable one `ncmpi_iput_varn_float` (all of the rank's pieces), "
         "then one `ncmpi_wait_all` per step.")
L.append("- **blocking**: the same bytes, per variable one `ncmpi_put_varn_float_all` "
         "(non-decomposed: `ncmpi_put_vara_*_all`).")
L.append("- The same source is built against exacdf and against Debian's PnetCDF. Fixed "
         "variables are written in a separate phase before the steps (not in the step time). "
         "After closing, the file is reopened and a sample (every 13th record variable, all D3, "
         "lat/lon/area, all non-decomposed, every step, whole) is read back on every rank "
         "and every value checked: all runs verified.\n")
L.append(f"Command: `{meta['command']}`  ")
L.append(f"Date: {meta['date']}  ")
m = meta["machine"]
L.append(f"Machine: {m['cpu']}, {m['cores']} cores, {m['memory']} RAM, Linux {m['kernel']}, "
         f"data on {m['filesystem_of_data']} (page cache; no parallel file system)  ")
v = meta["versions"]
L.append(f"Versions: {v['open_mpi']}; PnetCDF (Debian) {v['pnetcdf_deb']}; gcc {v['gcc']}; "
         f"exacdf built (CMake Release) from {v['exacdf_built_from']}.  ")
L.append(f"Load average (1/5/15 min) at start: {env['LOAD_START']}; at end: {env['LOAD_END']}.  ")
L.append(f"Statistic: {meta['statistic']}; {meta['reps']} repetitions, the four variants "
         "interleaved in each. **4 and 8 ranks are oversubscribed on 2 cores.**  ")
L.append(f"Files written at 2 ranks compared byte for byte: {env['IDENT']}\n")

L.append("## Time per step (seconds; median, max over ranks)\n")
L.append("| ranks | variant | step | min..max over reps | post (iput) | wait_all | "
         "MPI-IO calls per rank per step | pwrite ceiling | fraction of ceiling |")
L.append("|---:|---|---:|---|---:|---:|---:|---:|---:|")
for n in ranks:
    for vv in variants:
        s = summary[vv].get(n)
        if not s:
            continue
        L.append(f"| {n} | {vv} | **{f3(s['step_s'])}** | {f3(s['step_s_min'])}..{f3(s['step_s_max'])} "
                 f"| {f3(s['post_s'])} | {f3(s['wait_s'])} | {calls(s)} "
                 f"| {f3(s['pwrite_step_s'])} | {ratio(s['pwrite_step_s'], s['step_s'])} |")
L.append("")
L.append("For blocking runs 'post' is the whole step (the blocking calls) and wait_all is 0. "
         "'pwrite ceiling': the same bytes per rank written in the same run with one plain "
         "`pwrite` per rank per step (contiguous, rank after rank, into a side file on the same "
         "file system; median over steps of the max over ranks); 'fraction of ceiling' = "
         "ceiling / step time (1 = as fast as plain pwrite).\n")

L.append("## Ratios\n")
L.append("exacdf/PnetCDF: < 1 means exacdf is faster. nb/blocking: < 1 means nonblocking is faster.\n")
L.append("| ranks | nb: exacdf/PnetCDF | blocking: exacdf/PnetCDF | exacdf nb/blocking | "
         "PnetCDF nb/blocking |")
L.append("|---:|---:|---:|---:|---:|")
g = lambda vv, n: summary[vv][n]["step_s"] if n in summary[vv] else 0
for n in ranks:
    L.append(f"| {n} | {ratio(g('exacdf-nb', n), g('pnetcdf-nb', n))} | "
             f"{ratio(g('exacdf-blocking', n), g('pnetcdf-blocking', n))} | "
             f"{ratio(g('exacdf-nb', n), g('exacdf-blocking', n))} | "
             f"{ratio(g('pnetcdf-nb', n), g('pnetcdf-blocking', n))} |")
L.append("")
slower = []
for n in ranks:
    for mode in ("nb", "blocking"):
        e, p = g(f"exacdf-{mode}", n), g(f"pnetcdf-{mode}", n)
        if p > 0 and e > 1.05 * p:
            se, sp = summary[f"exacdf-{mode}"][n], summary[f"pnetcdf-{mode}"][n]
            overlap = se["step_s_min"] <= sp["step_s_max"]
            slower.append(f"- {mode}, {n} rank{'s' if n > 1 else ''}: exacdf {f3(e)} s vs PnetCDF "
                          f"{f3(p)} s per step ({e / p:.2f}x)"
                          + (" -- the min..max ranges over repetitions overlap, so within "
                             "the noise of this run" if overlap else
                             " -- outside the min..max range of PnetCDF's repetitions"))
L.append("**Where exacdf is slower than PnetCDF in this run** (median step time more than 5% "
         "above PnetCDF's):\n")
L.extend(slower if slower else ["- nowhere"])
L.append("")
notes = os.path.join(os.path.dirname(os.path.abspath(__file__)), "e3sm_io_notes.md")
if os.path.exists(notes) and not meta["quick"]:
    L.append(open(notes).read().rstrip() + "\n")

L.append("## Other phases (seconds; median, max over ranks)\n")
L.append("| ranks | variant | create+define+enddef | fixed variables | close |")
L.append("|---:|---|---:|---:|---:|")
for n in ranks:
    for vv in variants:
        s = summary[vv].get(n)
        if s:
            L.append(f"| {n} | {vv} | {f3(s['create_s'])} | {f3(s['fixed_s'])} | {f3(s['close_s'])} |")
L.append("")

L.append("## MPI-IO calls (PMPI counter, per rank)\n")
L.append("Counted by `bench/mpiio_count.c` (LD_PRELOAD) for both libraries: every "
         "`MPI_File_{write,read}{,_all,_at,_at_all,_shared,_ordered}`, split-collective "
         "`_begin` and `MPI_File_i{write,read}*` call. 'per step' is the step phase only; "
         "'write phase' is create..close on the busiest rank. exacdf's own "
         "`exa_inq_io_calls` agreed with the PMPI count in every exacdf run: "
         + ("yes" if all(s["exa_io_calls_step_rank_max"] == s["mpiio_calls_step_rank_max"]
                         for vv in ("exacdf-nb", "exacdf-blocking") for s in summary[vv].values())
            else "NO (see JSON)") + ".\n")
L.append("| ranks | variant | requests posted per rank per step | per step (min..max over ranks) | "
         "fixed phase (max) | write phase create..close (max) | D1 / D2 pieces on busiest rank |")
L.append("|---:|---|---:|---:|---:|---:|---|")
for n in ranks:
    for vv in variants:
        s = summary[vv].get(n)
        if s:
            L.append(f"| {n} | {vv} | {s['reqs_per_step_rank_max'] if 'nb' in vv else '-'} | {calls(s)} | "
                     f"{s['mpiio_calls_fixed_rank_max']} | {s['mpiio_calls_write_phase_rank_max']} | "
                     f"{s['pieces_d1_rank_max']} / {s['pieces_d2_rank_max']} |")
L.append("")
L.append("Raw per-run lines are in `e3sm_io.json` (`runs`).")
open(os.path.join(out, "e3sm_io.md"), "w").write("\n".join(L) + "\n")

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    style = {"exacdf-nb": "o-", "pnetcdf-nb": "^-", "exacdf-blocking": "o--",
             "pnetcdf-blocking": "^--"}
    for vv in variants:
        xs = [n for n in ranks if n in summary[vv]]
        axes[0].plot(xs, [summary[vv][n]["step_s"] for n in xs], style[vv], label=vv)
        axes[1].plot(xs, [summary[vv][n]["mpiio_calls_step_rank_max"] for n in xs], style[vv],
                     label=vv)
    for ax in axes:
        ax.set_xscale("log", base=2)
        ax.set_xticks(ranks)
        ax.set_xticklabels([str(n) for n in ranks])
        ax.set_xlabel("MPI ranks (2 cores: 4 and 8 are oversubscribed)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("seconds per step (median of max over ranks)")
    axes[0].set_title("time per output step")
    axes[1].set_yscale("log")
    axes[1].set_ylabel("MPI-IO calls per rank per step (max)")
    axes[1].set_title("MPI-IO calls (PMPI count)")
    axes[0].legend()
    title = f"E3SM-like output, {sh['nvars']} vars, ncol={sh['ncol']}, {meta['date']}"
    if loaded:
        title += " (loaded machine)"
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "e3sm_io.png"), dpi=110)
    print("plot written")
except ImportError:
    print("matplotlib not available: no plot")
