#!/usr/bin/env python3
"""Helpers for bench/run.sh and bench/smoke.sh: every figure is a ratio to the
bare command measured in the same run.

  benchlib.py interleave OUT.json RUNS NAME=CMD...   (first NAME is the baseline)
      Runs each command once per iteration, in a shuffled order, RUNS times
      (after one warm-up each), so load from other work hits every variant
      alike. Records wall time and CPU time (user+sys of the whole process
      tree). CMD is split like a shell would (shlex), then run without a
      shell; a CMD starting with "cd=DIR " runs in DIR.
  benchlib.py hyperfine-ratios JSON...
      One hyperfine --export-json file per round; prints, per command, the
      median over rounds of (median time / median time of the first command)
      and the min-max over rounds, as TSV: name, median, min, max, ms.
  benchlib.py launch-ratios TSV...
      One bench/launchtime output per run; per command the median over runs of
      its wall and CPU ratios, with min-max, and bare's median ms.
  benchlib.py interleave-ratios JSON...
      The same for interleave files: name, wall median/min/max, cpu
      median/min/max, baseline ms.
"""
import json
import os
import random
import resource
import shlex
import statistics
import subprocess
import sys
import time


def parse_cmd(text):
    cwd = None
    if text.startswith("cd="):
        first, _, text = text.partition(" ")
        cwd = first[3:]
    return cwd, shlex.split(text)


def once(cwd, argv):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    t1 = time.perf_counter()
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit("benchlib: %s exited %d: %s" % (" ".join(argv), p.returncode,
                                                p.stderr.decode(errors="replace").strip()[-400:]))
    return t1 - t0, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def interleave(out, runs, specs):
    variants = []
    for s in specs:
        name, _, cmd = s.partition("=")
        variants.append((name, parse_cmd(cmd)))
    wall = {n: [] for n, _ in variants}
    cpu = {n: [] for n, _ in variants}
    for _, (cwd, argv) in variants:  # warm-up: page cache, dentries
        once(cwd, argv)
    for _ in range(runs):
        order = list(variants)
        random.shuffle(order)
        for name, (cwd, argv) in order:
            w, c = once(cwd, argv)
            wall[name].append(w)
            cpu[name].append(c)
    json.dump({"order": [n for n, _ in variants], "wall": wall, "cpu": cpu}, open(out, "w"))


def spread(values):
    return statistics.median(values), min(values), max(values)


def hyperfine_ratios(files):
    per = {}
    names = None
    base_ms = []
    for f in files:
        res = json.load(open(f))["results"]
        names = names or [r["command"] for r in res]
        base = res[0]["median"]
        base_ms.append(base * 1e3)
        for r in res:
            per.setdefault(r["command"], []).append(r["median"] / base)
    for n in names:
        m, lo, hi = spread(per[n])
        print("%s\t%.3f\t%.3f\t%.3f\t%.3f" % (n, m, lo, hi, statistics.median(base_ms)))


def interleave_ratios(files):
    wall, cpu, base_ms = {}, {}, []
    names = None
    for f in files:
        d = json.load(open(f))
        names = names or d["order"]
        bw = statistics.median(d["wall"][names[0]])
        bc = statistics.median(d["cpu"][names[0]])
        base_ms.append(bw * 1e3)
        for n in names:
            wall.setdefault(n, []).append(statistics.median(d["wall"][n]) / bw)
            cpu.setdefault(n, []).append(statistics.median(d["cpu"][n]) / bc if bc else 0.0)
    for n in names:
        print("%s\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.1f" % ((n,) + spread(wall[n]) + spread(cpu[n])
                                                             + (statistics.median(base_ms),)))


def launch_ratios(files):
    rows = {}
    names = []
    for f in files:
        for line in open(f):
            c = line.rstrip("\n").split("\t")
            if c[0] not in rows:
                names.append(c[0])
                rows[c[0]] = []
            rows[c[0]].append([float(x) for x in c[1:]])
    for n in names:
        r = rows[n]
        w = spread([x[0] for x in r])
        c = spread([x[3] for x in r])
        print("%s\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f" % ((n,) + w + c + (statistics.median(x[6] for x in r),)))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cmd = sys.argv[1]
    if cmd == "interleave":
        interleave(sys.argv[2], int(sys.argv[3]), sys.argv[4:])
    elif cmd == "hyperfine-ratios":
        hyperfine_ratios(sys.argv[2:])
    elif cmd == "launch-ratios":
        launch_ratios(sys.argv[2:])
    elif cmd == "interleave-ratios":
        interleave_ratios(sys.argv[2:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
