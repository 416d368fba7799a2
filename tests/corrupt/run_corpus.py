#!/usr/bin/env python3
"""Corrupted-file corpus (issue 15): valid files of every format (CDF-1/2/5 from
ncgen, partitioned from `exacdf convert`), variants of each (truncations, bit
flips, crafted header fields; for the partitioned format crafted superblock
fields with the CRC recomputed), and every `exacdf` subcommand run on each
under a time bound.

Fails on: a signal (crash), a run past the bound, an exit status other than
0/1 (verify: 0/1/3), a C++ library message instead of an NC error, and, for crafted
partitioned fields a reader can detect, `verify` saying OK (silently wrong
metadata).

usage: run_corpus.py EXACDF NCGEN WORKDIR [FORMAT...]   (FORMAT: cdf1 cdf2 cdf5 partitioned)
"""
import concurrent.futures
import os
import random
import struct
import subprocess
import sys
import time

TIME_BOUND = 10  # seconds per run
CDL = """netcdf base {
dimensions:
  time = UNLIMITED ;
  x = 5 ;
  y = 3 ;
variables:
  int fixed(x) ;
    fixed:units = "m" ;
  double grid(y, x) ;
  float rec(time, x) ;
  short rec2(time) ;
  char title(y) ;
  :history = "corpus" ;
data:
  fixed = 1, 2, 3, 4, 5 ;
  grid = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 ;
  rec = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 ;
  rec2 = 1, 2, 3 ;
  title = "abc" ;
}
"""

# --- CRC-32C (Castagnoli), as src/util/crc32c.cpp -----------------------------
_TABLE = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    _TABLE.append(c)


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = _TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


# --- variants -------------------------------------------------------------------
def truncations(data, points):
    return [("trunc%d" % n, data[:n], False) for n in sorted(set(p for p in points if 0 <= p < len(data)))]


def bit_flips(data, rng, count, limit):
    out = []
    for _ in range(count):
        pos = rng.randrange(min(limit, len(data)))
        bit = rng.randrange(8)
        d = bytearray(data)
        d[pos] ^= 1 << bit
        out.append(("flip%d.%d" % (pos, bit), bytes(d), False))
    return out


def classic_variants(data, version, rng):
    wide = version == 5  # numrecs and lengths are 8 bytes in CDF-5
    out = truncations(data, [0, 7, 12, 32, 100, len(data) // 2, len(data) - 8, len(data) - 1])
    out += bit_flips(data, rng, 4, 200)
    numrecs = [0xFFFFFFFE, 0x7FFFFFFF] if not wide else [197568495619, 2**40, 2**62 + 1, 2**63 - 1, 2**64 - 2]
    for n in numrecs:
        d = bytearray(data)
        d[4:12 if wide else 8] = struct.pack(">Q" if wide else ">I", n)
        out.append(("numrecs%d" % n, bytes(d), False))
    # Header words set to a large value: counts, lengths, sizes, begins.
    for off in range(8, min(len(data), 240), 40):
        d = bytearray(data)
        d[off:off + 4] = b"\x7f\xff\xff\xff"
        out.append(("word%d" % off, bytes(d), False))
    return out


SB = {"generation": 16, "index_offset": 24, "index_size": 32, "nblocks": 48, "ndims": 56, "nvars": 64,
      "numrecs": 72, "record_begin": 80, "record_size": 88, "file_end": 96, "record_dim": 104, "head_size": 112}


def sb_get(data, slot, field):
    return struct.unpack(">Q", data[slot + SB[field]:slot + SB[field] + 8])[0]


def sb_craft(data, slot, **fields):
    """The fields set in the current slot, and in the other one too when it is a
    superblock (else an open would fall back to it, which is by design: a
    damaged current slot leaves the previous state)."""
    d = bytearray(data)
    for s in (0, 512):
        if s != slot and data[s:s + 8] != b"\x89EXACDF\n":
            continue
        for name, value in fields.items():
            d[s + SB[name]:s + SB[name] + 8] = struct.pack(">Q", value % 2**64)
        d[s + 124:s + 128] = struct.pack(">I", crc32c(bytes(d[s:s + 124])))
    return bytes(d)


def partitioned_variants(data, rng):
    slots = [0, 512]
    slot = max(slots, key=lambda s: sb_get(data, s, "generation") if data[s:s + 8] == b"\x89EXACDF\n" else -1)
    assert struct.unpack(">I", data[slot + 124:slot + 128])[0] == crc32c(data[slot:slot + 124]), "CRC model"
    rb, rs = sb_get(data, slot, "record_begin"), sb_get(data, slot, "record_size")
    io, isz = sb_get(data, slot, "index_offset"), sb_get(data, slot, "index_size")
    numrecs, end = sb_get(data, slot, "numrecs"), sb_get(data, slot, "file_end")
    out = truncations(data, [0, 8, 100, 128, 600, 640, 4096, 4100, io, io + 8, io + isz - 1, len(data) // 2,
                             len(data) - 1])
    out += bit_flips(data, rng, 6, len(data))
    # Crafted fields with a valid CRC. Those marked True must be reported.
    crafted = [
        ("numrecs2^40", {"numrecs": 2**40}, True),
        ("numrecs2^40_end", {"numrecs": 2**40, "file_end": rb + 2**40 * rs}, True),
        ("numrecs2^62+1", {"numrecs": 2**62 + 1}, True),
        ("numrecs2^63-1", {"numrecs": 2**63 - 1}, True),
        ("numrecs+1", {"numrecs": numrecs + 1, "file_end": max(end, rb + (numrecs + 1) * rs)}, True),
        ("nvars+1", {"nvars": sb_get(data, slot, "nvars") + 1}, True),
        ("ndims+1", {"ndims": sb_get(data, slot, "ndims") + 1}, True),
        ("nblocks+1", {"nblocks": sb_get(data, slot, "nblocks") + 1}, True),
        ("file_end4096", {"file_end": 4096}, True),
        ("record_size+4", {"record_size": rs + 4}, False),
        ("record_begin-8", {"record_begin": rb - 8}, False),
        ("record_dim0", {"record_dim": 0}, False),
        ("index_offset+8", {"index_offset": io + 8}, True),
    ]
    for name, fields, must_detect in crafted:
        out.append((name, sb_craft(data, slot, **fields), must_detect))
    # The data region cut inside the records (the superblock promises more).
    if rs > 0 and rb + rs < len(data):
        out.append(("data_trunc", data[:rb + rs + 2], True))
    return out


# --- running --------------------------------------------------------------------
COMMANDS = [["dump"], ["dump", "-h"], ["stat", "-b"], ["verify"], ["convert", "-q", "-f", "cdf5"],
            ["convert", "-q", "-f", "partitioned"]]


def run_one(exacdf, path, cmd, workdir):
    args = [exacdf] + cmd + [path]
    if cmd[0] == "convert":
        args.append(path + ".out." + cmd[-1])
    t0 = time.time()
    try:
        p = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=TIME_BOUND, cwd=workdir)
    except subprocess.TimeoutExpired:
        return "timeout after %ds" % TIME_BOUND, None, time.time() - t0
    err = p.stderr.decode(errors="replace")
    if p.returncode < 0:
        return "killed by signal %d" % -p.returncode, err, time.time() - t0
    # 3: verify's "newest generation damaged, previous one sound" (a report).
    if p.returncode not in ((0, 1, 3) if cmd[0] == "verify" else (0, 1)):
        return "exit status %d" % p.returncode, err, time.time() - t0
    for leak in ("std::", "vector", "bad_alloc", "terminate called", "AddressSanitizer", "runtime error:"):
        if leak in err:
            return "not an NC error: %r" % leak, err, time.time() - t0
    return None, p.returncode, time.time() - t0


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    exacdf, ncgen, workdir = os.path.abspath(sys.argv[1]), sys.argv[2], os.path.abspath(sys.argv[3])
    formats = sys.argv[4:] or ["cdf1", "cdf2", "cdf5", "partitioned"]
    os.makedirs(workdir, exist_ok=True)
    cdl = os.path.join(workdir, "base.cdl")
    with open(cdl, "w") as f:
        f.write(CDL)
    rng = random.Random(15)
    files = []  # (path, must_detect)
    for fmt in formats:
        base = os.path.join(workdir, "base_%s.nc" % fmt)
        if fmt == "partitioned":
            src = os.path.join(workdir, "base_src5.nc")
            subprocess.run([ncgen, "-k", "nc5", "-o", src, cdl], check=True)
            subprocess.run([exacdf, "convert", "-q", "-f", "partitioned", src, base], check=True)
        else:
            subprocess.run([ncgen, "-k", {"cdf1": "nc3", "cdf2": "nc6", "cdf5": "nc5"}[fmt], "-o", base, cdl],
                           check=True)
        # The valid file itself must verify.
        problem, code, _ = run_one(exacdf, base, ["verify"], workdir)
        if problem or code != 0:
            print("FAIL: valid %s file does not verify: %s" % (fmt, problem or code))
            return 1
        with open(base, "rb") as f:
            data = f.read()
        variants = (partitioned_variants(data, rng) if fmt == "partitioned"
                    else classic_variants(data, int(fmt[-1]), rng))
        for name, bytes_, must_detect in variants:
            path = os.path.join(workdir, "%s_%s.nc" % (fmt, name))
            with open(path, "wb") as f:
                f.write(bytes_)
            files.append((path, must_detect))
    jobs = [(path, cmd, must) for path, must in files for cmd in COMMANDS]
    failures = []
    slowest = (0.0, "")
    t0 = time.time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        futures = {pool.submit(run_one, exacdf, path, cmd, workdir): (path, cmd, must) for path, cmd, must in jobs}
        for fut in concurrent.futures.as_completed(futures):
            path, cmd, must = futures[fut]
            problem, code, secs = fut.result()
            what = "%s %s" % (" ".join(cmd), os.path.basename(path))
            slowest = max(slowest, (secs, what))
            if problem:
                failures.append("%s: %s%s" % (what, problem, "\n    " + code.strip()[-300:] if code else ""))
            elif must and cmd == ["verify"] and code == 0:
                failures.append("%s: crafted field not reported (verify says OK)" % what)
    print("%d files x %d commands = %d runs in %.0f s (slowest %.1f s: %s)" %
          (len(files), len(COMMANDS), len(jobs), time.time() - t0, slowest[0], slowest[1]))
    for f in sorted(failures):
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
