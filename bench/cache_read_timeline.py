#!/usr/bin/env python3
"""The timeline of the cache connector's read prefetch, from the files that
EXACDF_CACHE_READ_TRACE=PREFIX writes (PREFIX.RANK, one event a line:
`seconds kind varid start... value`; kinds: S scheduled, F fetch taken by
the fetcher, E fetch ended (value 1 kept), R read came, W its wait for a
fetch ended (value: seconds waited), L below_mu taken, D answered (value 1
served, 0 direct)). A file holds every run appended; runs are split where
a rank's clock goes back or jumps by more than GAP seconds.

    python3 bench/cache_read_timeline.py PREFIX [RUN]

Prints per read (all ranks, time from the run's first event): when it came,
how long it waited for a fetch (wait), for the file (lock: a fetch or the
log held below_mu), its own read (read), served or direct, and the fetches
that ended on its rank while it waited; then per rank the fetches: when
scheduled, taken, ended, and whether kept.
"""
import glob
import sys

GAP = 2.0


def load(prefix):
    runs = {}
    for path in sorted(glob.glob(prefix + ".*")):
        rank = int(path.rsplit(".", 1)[1])
        events, run, prev = [], [], None
        for line in open(path):
            f = line.split()
            t, kind, var, start, value = float(f[0]), f[1], int(f[2]), tuple(int(x) for x in f[3:-1]), float(f[-1])
            if prev is not None and (t < prev or t - prev > GAP * 10):
                events.append(run)
                run = []
            run.append((t, kind, var, start, value))
            prev = t
        if run:
            events.append(run)
        for i, r in enumerate(events):
            runs.setdefault(i, {})[rank] = r
    return runs


def main():
    prefix = sys.argv[1]
    runs = load(prefix)
    pick = int(sys.argv[2]) if len(sys.argv) > 2 else max(runs)
    ranks = runs[pick]
    t0 = min(r[0][0] for r in ranks.values())
    print(f"run {pick} of {len(runs)}; ranks {sorted(ranks)}")
    print("rank var start          came    wait    lock    read  answer  fetches ended meanwhile")
    rows = []
    for rank, ev in ranks.items():
        pending = None
        for t, kind, var, start, value in ev:
            if kind == "R":
                pending = {"rank": rank, "var": var, "start": start, "R": t}
            elif pending and kind in "WLD":
                pending[kind] = t
                if kind == "W":
                    pending["wait"] = value
                if kind == "D":
                    pending["served"] = value
                    lo, hi = pending["R"], pending.get("L", t)
                    pending["during"] = [(v, s[0]) for (tt, k, v, s, val) in ev if k == "E" and lo <= tt <= hi]
                    rows.append(pending)
                    pending = None
    total_wait = {}
    for p in sorted(rows, key=lambda p: p["R"]):
        w = p.get("W", p["R"]) - p["R"]
        lock = p.get("L", p.get("W", p["R"])) - p.get("W", p["R"])
        rd = p["D"] - p.get("L", p["R"])
        total_wait.setdefault(p["rank"], [0, 0, 0])
        for i, x in enumerate((w, lock, rd)):
            total_wait[p["rank"]][i] += x
        print(f"{p['rank']:4d} {p['var']:3d} {str(p['start']):14s} {p['R'] - t0:6.3f} {w:7.3f} {lock:7.3f} {rd:7.3f} "
              f"{'served' if p['served'] else 'direct'}  {p['during']}")
    for rank, (w, lock, rd) in sorted(total_wait.items()):
        print(f"rank {rank}: waited for fetches {w:.3f} s, for the file {lock:.3f} s, reading {rd:.3f} s")
    for rank, ev in sorted(ranks.items()):
        print(f"rank {rank} fetches (scheduled / taken / ended, kept):")
        sched, taken = {}, {}
        for t, kind, var, start, value in ev:
            key = (var, start)
            if kind == "S":
                sched[key] = t
            elif kind == "F":
                taken[key] = t
            elif kind == "E":
                s = sched.get(key)
                f = taken.get(key)
                print(f"  var {var} {str(start):14s} {'' if s is None else f'{s - t0:6.3f}'} / "
                      f"{'' if f is None else f'{f - t0:6.3f}'} / {t - t0:6.3f}  {'kept' if value else 'dropped'}")


if __name__ == "__main__":
    main()
