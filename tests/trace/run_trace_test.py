#!/usr/bin/env python3
"""run_trace_test.py MPIEXEC NP WORKLOAD EXACDF_TOOL WORKDIR

Runs tests/trace/trace_workload.c at NP ranks without and with the trace
connector, checks that both data files are byte-identical, that the JSON
report counts exactly the calls, bytes, bins, sizes, strides and
sequential/consecutive accesses the workload makes (its header comment), and
that `exacdf trace` summarizes it.
"""
import glob
import json
import os
import shutil
import subprocess
import sys

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def eq(got, want, what):
    check(got == want, "%s: got %r, want %r" % (what, got, want))


def run(cmd, env=None):
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=240)
    if p.returncode != 0:
        print(p.stdout)
        sys.exit("command failed (%d): %s" % (p.returncode, " ".join(cmd)))
    return p.stdout


def main():
    mpiexec, np, workload, tool, work = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
    shutil.rmtree(work, ignore_errors=True)
    traces = os.path.join(work, "traces")
    os.makedirs(traces)
    launch = [mpiexec, "--oversubscribe", "-n", str(np), workload]
    env = dict(os.environ)
    env.pop("EXACDF_CONNECTORS", None)
    run(launch + [work, "plain.nc"], env)
    env["EXACDF_CONNECTORS"] = "trace{dir=%s}" % traces
    run(launch + [work, "traced.nc"], env)

    with open(os.path.join(work, "plain.nc"), "rb") as a, open(os.path.join(work, "traced.nc"), "rb") as b:
        check(a.read() == b.read(), "traced file differs from the untraced one")
    reports = glob.glob(os.path.join(traces, "traced.nc.*.trace.json"))
    eq(len(reports), 1, "report files")
    if not reports:
        return
    with open(reports[0]) as f:
        r = json.load(f)
    N = np
    eq(r["schema"], "exacdf-trace-1", "schema")
    eq(r["nprocs"], N, "nprocs")
    eq(r["failed_calls"], 0, "failed calls")
    eq(r["totals"]["bytes_written"], 816 * N, "bytes written")
    eq(r["totals"]["bytes_read"], 600 * N, "bytes read")
    check(r["totals"]["io_calls"] > 0, "io_calls counted")
    kinds = {k: (v["calls"], v["collective"], v["bytes"]) for k, v in r["kinds"].items()}
    eq(kinds, {"put_vara": (N, N, 400 * N), "put_var1": (10 * N, 0, 80 * N),
               "iput_vara": (3 * N, 0, 120 * N), "put_vars": (N, N, 200 * N), "bput_var1": (N, 0, 4 * N),
               "put_varn": (N, N, 12 * N), "get_vara": (N, N, 400 * N), "iget_vara": (N, 0, 200 * N)}, "kinds")
    for k, v in r["kinds"].items():
        eq(v["independent"], v["calls"] - v["collective"], k + " independent")
    # Each independent put_var1 is one MPI-IO write.
    eq(r["kinds"]["put_var1"]["io_calls"], 10 * N, "put_var1 io_calls")
    w = r["waits"]
    eq((w["calls"], w["collective"], w["requests"]), (3 * N, 3 * N, 5 * N), "waits")
    meta = {k: v["calls"] for k, v in r["metadata"].items() if not k.startswith("inq_") and k != "prepare_collective"}
    eq(meta, {"create": N, "def_dim": N, "def_var": 3 * N, "put_att": N, "enddef": N, "begin_indep": N,
              "end_indep": N, "buffer_attach": N, "buffer_detach": N, "close": N}, "metadata calls")
    eq(r["size_bins"]["write"], [15 * N, 2 * N] + [0] * 8, "write bins")
    eq(r["size_bins"]["read"], [0, 2 * N] + [0] * 8, "read bins")
    eq(r["common_sizes"], [[8, 10 * N], [40, 3 * N], [200, 2 * N], [400, 2 * N]], "common sizes")
    eq(r["common_strides"], [[0, 10 * N], [-400, 2 * N], [120, 2 * N], [-392, N]], "common strides")
    eq(r["sequential"], {"reads": 0, "writes": 13 * N}, "sequential")
    eq(r["consecutive"], {"reads": 0, "writes": 10 * N}, "consecutive")
    per_rank = r["ranks"]["per_rank"]
    eq([p["rank"] for p in per_rank], list(range(N)), "per-rank list")
    eq({p["bytes"] for p in per_rank}, {1416}, "bytes per rank")
    eq({p["dropped_events"] for p in per_rank}, {0}, "dropped events")
    for key in ("fastest", "slowest"):
        eq(r["ranks"][key]["bytes"], 1416, key + " rank bytes")
        check(0 <= r["ranks"][key]["rank"] < N, key + " rank")
    check(r["ranks"]["fastest"]["time_s"] <= r["ranks"]["slowest"]["time_s"], "fastest <= slowest")

    v = {x["name"]: x for x in r["variables"]}
    eq(sorted(v), ["a", "b", "c"], "variables")
    eq({k: x["calls"] for k, x in v["a"]["kinds"].items()}, {"put_vara": N, "get_vara": N, "iget_vara": N}, "a kinds")
    eq((v["a"]["totals"]["bytes_written"], v["a"]["totals"]["bytes_read"]), (400 * N, 600 * N), "a bytes")
    eq(v["a"]["common_strides"], [[-400, 2 * N]], "a strides")
    eq(v["a"]["sequential"], {"reads": 0, "writes": 0}, "a sequential")
    eq(v["b"]["common_sizes"], [[8, 10 * N], [40, 3 * N]], "b sizes")
    eq(v["b"]["common_strides"], [[0, 10 * N], [120, 2 * N]], "b strides")
    eq(v["b"]["sequential"]["writes"], 12 * N, "b sequential writes")
    eq(v["b"]["consecutive"]["writes"], 10 * N, "b consecutive writes")
    eq(v["b"]["size_bins"]["write"][0], 13 * N, "b small writes")
    eq((v["c"]["totals"]["bytes_written"], v["c"]["sequential"]["writes"]), (216 * N, N), "c bytes, sequential")
    eq(v["c"]["common_strides"], [[-392, N], [4, N]], "c strides")
    for name in "abc":
        check(0 <= v[name]["fastest"]["rank"] < N and 0 <= v[name]["slowest"]["rank"] < N, name + " extremes")

    ranks = r["timeline"]["ranks"]
    eq(len(ranks), N, "timeline ranks")
    for row in ranks:
        kinds_seen = [e[2] for e in row["events"]]
        eq(kinds_seen.count("put_var1"), 10, "put_var1 events of rank %d" % row["rank"])
        eq(kinds_seen.count("wait"), 4, "wait events of rank %d" % row["rank"])  # 3 waits + the varn's
        eq(kinds_seen[0], "create", "first event")
        eq(kinds_seen[-1], "close", "last event")
        check(all(0 <= e[0] <= e[1] for e in row["events"]), "event times ordered")

    out = run([tool, "trace", reports[0]])
    for text in ("trace of ", "%d ranks" % N, "written 816" if N == 1 else "written ", "(%d B)" % (816 * N),
                 "put_var1", "common sizes", " 8 x%d" % (10 * N), "waits: %d (%d collective) for %d requests" % (3 * N, 3 * N, 5 * N),
                 "a (id 0)", "b (id 1)", "c (id 2)", "sequential: %d writes" % (13 * N)):
        check(text in out, "summary lacks %r:\n%s" % (text, out))


if __name__ == "__main__":
    main()
    if failures:
        sys.exit("%d checks failed" % len(failures))
    print("ok")
