#!/usr/bin/env bash
# run_shared_reads.sh -- the "reads that every rank shares" benchmark (issue 3
# item 3, seed 004: the CGNS cgp_open pattern).  Open + collective read of
# 8,321 tiny arrays on every rank, then close, at 1, 2, 4, 8 ranks, for:
#   exacdf-bcast-on   exacdf with exa_bcast_read=enable  (one rank reads, MPI_Bcast)
#   exacdf-bcast-off  exacdf with exa_bcast_read=disable (every rank reads, MPI_File_read_at_all)
#   pnetcdf           Debian PnetCDF 1.12.3, the same source (bench/shared_reads.c)
#   hdf5              parallel HDF5 1.10.8, bench/hdf5/shared_reads_h5.c (MPI-IO driver,
#                     collective H5Dread of every dataset, contiguous layout)
# Median of REPS repetitions (variants interleaved within a repetition).
# Writes docs/perf/shared_reads.{json,md} and, with matplotlib, shared_reads.png.
#
# Usage: bench/run_shared_reads.sh            (RANKS="1 2 4 8" REPS=7 by default, ~7 min)
#        RANKS="1 2" REPS=1 bench/run_shared_reads.sh   (quick check; still writes docs/perf/)
#        OUT_DIR=/tmp/x bench/run_shared_reads.sh       (write the results elsewhere)
#        EXACDF_SOURCE=tree bench/run_shared_reads.sh   (build exacdf from the working tree)
# Builds exacdf (Release) in build-bench-shared/ and the benchmarks with mpicc;
# touches no other build directory.  By default (EXACDF_SOURCE=head) exacdf is
# built from a snapshot of the committed HEAD (`git archive`, read-only on the
# repository), so a run is reproducible from the recorded commit even while
# src/ is being edited; the benchmark sources always come from this tree.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../scripts/env.sh
source "$HERE/../scripts/env.sh"
ROOT="$EXACDF_ROOT"
BUILD="${BUILD:-$ROOT/build-bench-shared}"
OUT_DIR="${OUT_DIR:-$ROOT/docs/perf}"
RANKS="${RANKS:-1 2 4 8}"
REPS="${REPS:-7}"
RUN_TIMEOUT="${RUN_TIMEOUT:-600}"
PY="${EXACDF_PYTHON:-python3}"
EXACDF_SOURCE="${EXACDF_SOURCE:-head}"
HDF5_INC=/usr/include/hdf5/openmpi
HDF5_LIB=/usr/lib/x86_64-linux-gnu/hdf5/openmpi
CFLAGS=(-O2 -Wall -Wextra -Wno-unused-parameter)
COMMAND="bench/run_shared_reads.sh (RANKS=\"$RANKS\" REPS=$REPS)"

log() { printf '[shared_reads] %s\n' "$*" >&2; }

# ---------------------------------------------------------------- build
mkdir -p "$BUILD"
case "$EXACDF_SOURCE" in
  head)
    SRC="$BUILD/src-HEAD"
    SRC_REV="$(git -C "$ROOT" rev-parse HEAD)"
    if [[ "$(cat "$SRC/.rev" 2>/dev/null)" != "$SRC_REV" ]]; then
      rm -rf "$SRC" && mkdir -p "$SRC"
      git -C "$ROOT" archive --format=tar HEAD | tar -x -C "$SRC"
      echo "$SRC_REV" >"$SRC/.rev"
    fi
    SRC_DESC="committed HEAD $(git -C "$ROOT" rev-parse --short HEAD) (git archive snapshot)" ;;
  tree)
    SRC="$ROOT"
    SRC_DESC="working tree at $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')"
    [[ -n "$(git -C "$ROOT" status --porcelain -- src include CMakeLists.txt 2>/dev/null)" ]] &&
      SRC_DESC="$SRC_DESC with uncommitted changes in src/include/CMakeLists.txt" ;;
  *) log "EXACDF_SOURCE must be head or tree"; exit 2 ;;
esac
log "building exacdf (Release) from $SRC_DESC in $BUILD/lib"
cmake -S "$SRC" -B "$BUILD/lib" "${EXACDF_GENERATOR[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DBUILD_TESTING=OFF >"$BUILD/cmake.log" 2>&1 || { cat "$BUILD/cmake.log"; exit 1; }
cmake --build "$BUILD/lib" --target exacdf -j "$EXACDF_JOBS" >"$BUILD/build.log" 2>&1 ||
  { tail -50 "$BUILD/build.log"; exit 1; }
mkdir -p "$BUILD/bench" "$BUILD/data" "$OUT_DIR"
BIN="$BUILD/bench"
log "building bench/shared_reads.c (exacdf, PnetCDF) and bench/hdf5/shared_reads_h5.c"
# exacdf: this tree's include/ and libexacdf; the source #errors on the wrong pnetcdf.h.
mpicc "${CFLAGS[@]}" -DBENCH_LIB='"exacdf"' -DBENCH_EXPECT_EXACDF=1 -I"$SRC/include" \
  "$ROOT/bench/shared_reads.c" -o "$BIN/shared_reads_exacdf" \
  -L"$BUILD/lib" -lexacdf -Wl,-rpath,"$BUILD/lib"
# PnetCDF: /usr/include/pnetcdf.h and -lpnetcdf only.
mpicc "${CFLAGS[@]}" -DBENCH_LIB='"pnetcdf"' -DBENCH_EXPECT_EXACDF=0 \
  "$ROOT/bench/shared_reads.c" -o "$BIN/shared_reads_pnetcdf" -lpnetcdf
mpicc "${CFLAGS[@]}" -I"$HDF5_INC" "$ROOT/bench/hdf5/shared_reads_h5.c" \
  -o "$BIN/shared_reads_h5" -L"$HDF5_LIB" -lhdf5 -Wl,-rpath,"$HDF5_LIB"
[[ "$(ldd "$BIN/shared_reads_exacdf")" == *"$BUILD/lib/libexacdf"* ]] || { log "exacdf binary not linked to $BUILD"; exit 1; }
[[ "$(ldd "$BIN/shared_reads_pnetcdf")" == *libpnetcdf* ]] || { log "pnetcdf binary not linked to libpnetcdf"; exit 1; }

run() {  # run NRANKS BINARY ARGS...
  local n="$1"; shift
  timeout "$RUN_TIMEOUT" mpiexec --oversubscribe -n "$n" "$@"
}

# ---------------------------------------------------------------- files
NC_PNC="$BUILD/data/cgns_like_pnetcdf.nc"
NC_EXA="$BUILD/data/cgns_like_exacdf.nc"
H5="$BUILD/data/cgns_like.h5"
log "generating the files once"
run 1 "$BIN/shared_reads_pnetcdf" gen "$NC_PNC" >&2
run 1 "$BIN/shared_reads_exacdf" gen "$NC_EXA" >&2
run 1 "$BIN/shared_reads_h5" gen "$H5" >&2
if cmp -s "$NC_PNC" "$NC_EXA"; then NC_IDENTICAL=true; else NC_IDENTICAL=false; fi
log "exacdf- and PnetCDF-written files byte-identical: $NC_IDENTICAL"
# Both netCDF readers read the file PnetCDF wrote (the peer's own bytes).
NC="$NC_PNC"

# ---------------------------------------------------------------- runs
RAW="$BUILD/shared_reads_raw.txt"
: >"$RAW"
START=$(date +%s)
for rep in $(seq 1 "$REPS"); do
  for n in $RANKS; do
    for variant in exacdf-bcast-on exacdf-bcast-off pnetcdf hdf5; do
      case "$variant" in
        exacdf-bcast-on)  cmd=("$BIN/shared_reads_exacdf" read "$NC" label=$variant exa_bcast_read=enable) ;;
        exacdf-bcast-off) cmd=("$BIN/shared_reads_exacdf" read "$NC" label=$variant exa_bcast_read=disable) ;;
        pnetcdf)          cmd=("$BIN/shared_reads_pnetcdf" read "$NC" label=$variant exa_bcast_read=enable) ;;
        hdf5)             cmd=("$BIN/shared_reads_h5" read "$H5" label=$variant) ;;
      esac
      load=$(cut -d' ' -f1 /proc/loadavg)  # 1-min load before the run: was the machine shared?
      line=$(run "$n" "${cmd[@]}" | grep '^RESULT ') || { log "FAILED: $variant at $n ranks"; exit 1; }
      echo "$line rep=$rep load1=$load" >>"$RAW"
      log "rep $rep ranks $n $variant: $(sed -E 's/.*(open_s=[^ ]+ read_s=[^ ]+ close_s=[^ ]+).*/\1/' <<<"$line")"
    done
  done
done
ELAPSED=$(( $(date +%s) - START ))
log "runs took ${ELAPSED}s"

# ---------------------------------------------------------------- environment facts
# (No head/grep -q after a pipe: under pipefail the writer can fail with SIGPIPE.)
cpu=$( (lscpu 2>/dev/null || true) | awk -F': *' '/^Model name:/ && !found {print $2; found = 1}')
mem=$(free -g | awk '/^Mem:/{print $2 " GiB"}')
fs=$(df -T "$BUILD/data" | awk 'NR==2{print $2 " (" $7 ")"}')
ompi=$(mpiexec --version 2>&1 || true); ompi=${ompi%%$'\n'*}
pnc=$(dpkg-query -W -f '${Version}' libpnetcdf-dev 2>/dev/null || echo unknown)
h5=$(dpkg-query -W -f '${Version}' libhdf5-openmpi-dev 2>/dev/null || echo unknown)
gcc_v=$(gcc -dumpfullversion)

export RAW OUT_DIR COMMAND ELAPSED NC_IDENTICAL REPS RANKS
export M_CPU="$cpu" M_NPROC="$(nproc)" M_MEM="$mem" M_FS="$fs" M_KERNEL="$(uname -r)"
export V_OMPI="$ompi" V_PNC="$pnc" V_H5="$h5" V_GCC="$gcc_v" V_SRC="$SRC_DESC"
export M_DATE="$(date -u '+%Y-%m-%d %H:%M UTC')"
export M_FILESIZES="nc $(stat -c %s "$NC") bytes, h5 $(stat -c %s "$H5") bytes"

"$PY" - <<'PYEOF'
import json, os, statistics as st

raw = []
for line in open(os.environ["RAW"]):
    kv = dict(tok.split("=", 1) for tok in line.split()[1:])
    for k, v in list(kv.items()):
        try:
            kv[k] = int(v)
        except ValueError:
            try:
                kv[k] = float(v)
            except ValueError:
                pass
    raw.append(kv)

variants = ["exacdf-bcast-on", "exacdf-bcast-off", "pnetcdf", "hdf5"]
ranks = sorted({r["ranks"] for r in raw})
summary = {}
for v in variants:
    summary[v] = {}
    for n in ranks:
        rs = [r for r in raw if r["label"] == v and r["ranks"] == n]
        if not rs:
            continue
        s = {"reps": len(rs)}
        for k in ("open_s", "read_s", "close_s", "total_s"):
            xs = [r[k] for r in rs]
            s[k] = st.median(xs)
            s[k + "_min"] = min(xs)
            s[k + "_max"] = max(xs)
        last = rs[-1]
        for k in ("nvars", "payload_bytes", "get_bytes_min", "get_bytes_max", "get_bytes_sum",
                  "open_read_calls_sum", "read_calls_min", "read_calls_max", "read_calls_sum",
                  "read_syscalls_min", "read_syscalls_max", "read_syscalls_sum",
                  "set_view_calls_max", "bcast_hint_used"):
            s[k] = last[k]
        # the counts are deterministic; say so if a repetition disagreed
        s["counts_constant_over_reps"] = all(
            r["read_calls_sum"] == last["read_calls_sum"] for r in rs)
        summary[v][n] = s

# Paired ratios: variants ran back to back within a repetition, so the ratio of
# each repetition's times cancels slow changes of machine load; median of those.
paired = {}
for n in ranks:
    paired[n] = {}
    for other in ("exacdf-bcast-off", "pnetcdf", "hdf5"):
        for k in ("read_s", "total_s"):
            rs = []
            for rep in sorted({r["rep"] for r in raw}):
                on = [r for r in raw if r["label"] == "exacdf-bcast-on" and r["ranks"] == n and r["rep"] == rep]
                ot = [r for r in raw if r["label"] == other and r["ranks"] == n and r["rep"] == rep]
                if on and ot and on[0][k] > 0:
                    rs.append(ot[0][k] / on[0][k])
            if rs:
                paired[n][f"{other}/on {k}"] = st.median(rs)
loads = [r["load1"] for r in raw if "load1" in r]

env = os.environ
meta = {
    "benchmark": "shared_reads (CGNS cgp_open pattern, seed 004; issue 3 item 3)",
    "command": env["COMMAND"],
    "date": env["M_DATE"],
    "machine": {"cpu": env["M_CPU"], "cores": int(env["M_NPROC"]), "memory": env["M_MEM"],
                "kernel": env["M_KERNEL"], "filesystem_of_data": env["M_FS"]},
    "versions": {"open_mpi": env["V_OMPI"], "pnetcdf_deb": env["V_PNC"],
                 "hdf5_openmpi_deb": env["V_H5"], "gcc": env["V_GCC"],
                 "exacdf_built_from": env["V_SRC"]},
    "exacdf_build": "CMake Release (-O3 -DNDEBUG), build-bench-shared/lib",
    "files": env["M_FILESIZES"],
    "netcdf_files_byte_identical_exacdf_vs_pnetcdf": env["NC_IDENTICAL"] == "true",
    "reps": int(env["REPS"]),
    "statistic": "median over reps of the max over ranks",
    "oversubscribed": "8 ranks run on 2 cores (mpiexec --oversubscribe, mpi_yield_when_idle=1)",
    "cache": "files generated once and read from the page cache (warm) in every run",
    "runs_wall_seconds": int(env["ELAPSED"]),
    "load1_before_runs_min_max": [min(loads), max(loads)] if loads else None,
}
out = env["OUT_DIR"]
json.dump({"meta": meta, "summary": summary, "paired_ratio_medians": paired, "runs": raw},
          open(os.path.join(out, "shared_reads.json"), "w"), indent=1, sort_keys=False)

def f3(x):
    return f"{x:.3f}"

def ratio(a, b):
    return f"{a / b:.2f}x" if b > 0 else "-"

L = []
L.append("# Shared reads: open + read of many tiny arrays on every rank (CGNS `cgp_open` pattern)\n")
L.append("Issue 3 item 3 / seed 004. Every rank opens one file and reads every one of its "
         f"{summary['pnetcdf'][ranks[0]]['nvars']:,} tiny arrays whole with a collective get "
         "(all ranks the same region), checks the values and closes it. The file is CGNS-like: "
         "128 bases x 32 zones; per base a 2-element int array, per zone a 3x3 int64 array "
         "and a 10-char \"Structured\" char array, one scalar float, 5 attributes on each "
         f"({summary['pnetcdf'][ranks[0]]['payload_bytes']:,} bytes of array data; CDF-5).\n")
L.append("- **exacdf-bcast-on**: exacdf, hint `exa_bcast_read=enable`: rank 0 reads, then `MPI_Bcast`.")
L.append("- **exacdf-bcast-off**: exacdf, hint `exa_bcast_read=disable`: every rank reads "
         "(`MPI_File_read_at_all`).")
L.append("- **pnetcdf**: Debian PnetCDF, the same source file `bench/shared_reads.c` "
         "(it ignores the `exa_` hint).")
L.append("- **hdf5**: parallel HDF5, `bench/hdf5/shared_reads_h5.c`: the same arrays as datasets in "
         "groups (5 attributes on each dataset and group, contiguous layout), MPI-IO driver, "
         "every dataset opened and read with `H5FD_MPIO_COLLECTIVE` (the problem of the seed paper). "
         "Its \"read\" column includes `H5Gopen`/`H5Dopen` of every object, which read object "
         "headers from the file; the netCDF readers have all metadata in memory after open.\n")
L.append(f"Command: `{meta['command']}`  ")
L.append(f"Date: {meta['date']}  ")
L.append(f"Machine: {meta['machine']['cpu']}, {meta['machine']['cores']} cores, "
         f"{meta['machine']['memory']} RAM, Linux {meta['machine']['kernel']}, data on "
         f"{meta['machine']['filesystem_of_data']}  ")
v = meta["versions"]
L.append(f"Versions: {v['open_mpi']}; PnetCDF (Debian) {v['pnetcdf_deb']}; HDF5 (Debian, "
         f"openmpi) {v['hdf5_openmpi_deb']}; gcc {v['gcc']}; exacdf built (CMake Release) from "
         f"{v['exacdf_built_from']}.  ")
L.append(f"Statistic: median of {meta['reps']} repetitions of the max over ranks; variants "
         "interleaved within each repetition. **8 ranks run oversubscribed on 2 cores**; "
         "4 ranks are also 2 per core. Files were read warm from the page cache, so a read "
         "system call costs microseconds here, not the milliseconds of a parallel file system "
         "under 2048 clients.  ")
if loads:
    L.append(f"1-minute load average sampled before each run: {min(loads):.2f}..{max(loads):.2f} "
             f"on {meta['machine']['cores']} cores"
             + (" -- **the machine was shared** (other builds and benchmarks ran at the same time), "
                "which is the main source of the wide min..max spread; compare the paired ratios."
                if max(loads) > meta['machine']['cores'] else ".") + "  ")
L.append(f"The netCDF file written by exacdf is byte-identical to the one PnetCDF wrote: "
         f"{meta['netcdf_files_byte_identical_exacdf_vs_pnetcdf']}. Both netCDF readers read "
         "the PnetCDF-written file.\n")

L.append("## Time (seconds, median; max over ranks)\n")
L.append("| ranks | variant | open | read all | close | total | total min..max |")
L.append("|---:|---|---:|---:|---:|---:|---|")
for n in ranks:
    for vv in variants:
        s = summary[vv].get(n)
        if not s:
            continue
        L.append(f"| {n} | {vv} | {f3(s['open_s'])} | {f3(s['read_s'])} | {f3(s['close_s'])} | "
                 f"**{f3(s['total_s'])}** | {f3(s['total_s_min'])}..{f3(s['total_s_max'])} |")
L.append("")

L.append("## Ratios (other variant's time / exacdf-bcast-on time; >1 means bcast-on is faster)\n")
L.append("Ratios of the medians; in parentheses the median of the per-repetition (paired) ratios. "
         "At 1 rank bcast-on and bcast-off run the same code (nothing to broadcast), so their "
         "difference there is noise.\n")
L.append("| ranks | read: off/on | read: PnetCDF/on | read: HDF5/on | total: off/on | "
         "total: PnetCDF/on | total: HDF5/on |")
L.append("|---:|---:|---:|---:|---:|---:|---:|")
for n in ranks:
    on = summary["exacdf-bcast-on"].get(n)
    if not on:
        continue
    g = lambda vv, k: summary[vv][n][k] if n in summary[vv] else 0
    def cell(other, k):
        p = paired[n].get(f"{other}/on {k}")
        return ratio(g(other, k), on[k]) + (f" ({p:.2f}x)" if p is not None else "")
    L.append(f"| {n} | {cell('exacdf-bcast-off','read_s')} | {cell('pnetcdf','read_s')} | "
             f"{cell('hdf5','read_s')} | {cell('exacdf-bcast-off','total_s')} | "
             f"{cell('pnetcdf','total_s')} | {cell('hdf5','total_s')} |")
L.append("")

L.append("## File reads during the read-all phase (summed over ranks unless noted)\n")
L.append("MPI-IO read calls are counted by PMPI wrappers in the benchmark executables "
         "(`MPI_File_read*`, whatever the library calls); read system calls are the "
         "`syscr` delta of `/proc/self/io` (all read-type syscalls of the process, so also "
         "a few unrelated ones); `ncmpi_inq_get_size` is the library's own byte count. "
         "For HDF5 the MPI-IO reads include its metadata (object header) reads.\n")
L.append("| ranks | variant | MPI-IO read calls (sum) | per rank min..max | read syscalls (sum) | "
         "syscalls on busiest rank | inq_get_size bytes per rank min..max |")
L.append("|---:|---|---:|---|---:|---:|---|")
for n in ranks:
    for vv in variants:
        s = summary[vv].get(n)
        if not s:
            continue
        gb = "-" if s["get_bytes_min"] < 0 else f"{s['get_bytes_min']:,}..{s['get_bytes_max']:,}"
        L.append(f"| {n} | {vv} | {s['read_calls_sum']:,} | {s['read_calls_min']:,}..{s['read_calls_max']:,} | "
                 f"{s['read_syscalls_sum']:,} | {s['read_syscalls_max']:,} | {gb} |")
L.append("")
L.append("Raw per-run lines are in `shared_reads.json` (`runs`).")
open(os.path.join(out, "shared_reads.md"), "w").write("\n".join(L) + "\n")

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    style = {"exacdf-bcast-on": "o-", "exacdf-bcast-off": "s--", "pnetcdf": "^-", "hdf5": "d-"}
    for ax, key, title in ((axes[0], "read_s", "read all (collective gets)"),
                           (axes[1], "total_s", "open + read all + close")):
        for vv in variants:
            xs = [n for n in ranks if n in summary[vv]]
            ax.plot(xs, [summary[vv][n][key] for n in xs], style[vv], label=vv)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks(ranks)
        ax.set_xticklabels([str(n) for n in ranks])
        ax.set_xlabel("MPI ranks (2 cores: 4 and 8 are oversubscribed)")
        ax.set_ylabel("seconds (median of max over ranks)")
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend()
    fig.suptitle(f"8,321 tiny arrays read by every rank (CGNS cgp_open pattern), {meta['date']}")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "shared_reads.png"), dpi=110)
    print("plot written")
except ImportError:
    print("matplotlib not available: no plot")
PYEOF
log "wrote $OUT_DIR/shared_reads.json and shared_reads.md"
cat "$OUT_DIR/shared_reads.md"
