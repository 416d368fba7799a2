#!/usr/bin/env python3
"""Table of a run of bench/run_checkpoint_ab.sh with CFGS="mpiio-opt hdf5-opt exacdf:all
exacdf:all@old": per graph and rank count, the medians of the per-repetition ratios of exacdf's
checkpoint time to MPI-IO OPT, to HDF5-OPT and to the TC_OLD build, how many repetitions are
at most 1, and whether every run's closure digest agrees.
Usage: bench/checkpoint_ab_table.py AB.jsonl [SUMMARY.json]"""
import json,sys,statistics as st,collections
rows=[json.loads(l) for l in open(sys.argv[1])]
t=collections.defaultdict(dict)
dig=collections.defaultdict(set)
for r in rows:
    t[(r["graph"],r["ranks"],r["rep"])][r["cfg"]]=r["checkpoint_time"]
    dig[(r["graph"],r["ranks"])].add(r["digest"])
keys=sorted({(g,n) for g,n,_ in t})
print("| graph | ranks | exacdf / MPI-IO OPT | exacdf / HDF5-OPT | exacdf / TC_OLD | exacdf ms (median) | pairs |")
print("|---|---|---|---|---|---|---|")
out=[]
for g,n in sorted(keys,key=lambda k:(k[0],k[1])):
    reps=[v for (gg,nn,_),v in t.items() if gg==g and nn==n and all(c in v for c in ("mpiio-opt","hdf5-opt","exacdf:all","exacdf:all@old"))]
    def rat(b):
        x=[v["exacdf:all"]/v[b] for v in reps]; return st.median(x), sum(1 for y in x if y<=1), len(x)
    a,b,c=rat("mpiio-opt"),rat("hdf5-opt"),rat("exacdf:all@old")
    ms=st.median(v["exacdf:all"] for v in reps)*1e3
    print(f"| {g} | {n} | {a[0]:.2f} ({a[1]} of {a[2]} at most 1) | {b[0]:.2f} ({b[1]}) | {c[0]:.2f} ({c[1]}) | {ms:.1f} | {a[2]} |")
    out.append(dict(graph=g,ranks=n,vs_mpiio_opt=a[0],vs_hdf5_opt=b[0],vs_before=c[0],exacdf_ms=ms,pairs=a[2],digests=len(dig[(g,n)])))
loads=[r["load"] for r in rows]; print("load", min(loads), max(loads), "digests agree:", all(o["digests"]==1 for o in out))
if len(sys.argv)>2: json.dump(dict(rows=out,load=[min(loads),max(loads)]),open(sys.argv[2],"w"),indent=1)
