#!/usr/bin/env python3
"""Launch cost of the pre-flight scans on one tree, cold and warm, against
`--sandbox` in the same run (bench/preflight.sh builds the trees).

  preflight.py LAUNCHER TREE ROUNDS INDEX_DIR [watch]

Variants, each `LAUNCHER ... -- /bin/true` run from TREE:
  sandbox       --sandbox                                        (the baseline)
  full          --sandbox --protect-secrets --scan-hardlinks --no-scan-index
                (every launch walks the tree, as before the index)
  cold          the same without --no-scan-index, after removing this tree's
                index files: a full walk that also writes the index
  warm          the same, with the index in place
  warm-protect  --sandbox --protect-secrets, warm
  warm-links    --sandbox --scan-hardlinks, warm
With "watch" (a `LAUNCHER --index-watch` running): only sandbox and the warm
variants, named warm+watch..., which the watcher vouches for.
Every round runs each variant once, in a shuffled order, so load from other
work hits all of them alike. Printed per variant: the median wall and CPU
time (user+sys of the launcher and the command, from wait4), the median over
rounds of (variant / sandbox of the same round), and of (variant - sandbox)
in ms: the "added" figure the goal is about.
"""
import os
import random
import statistics
import sys
import time

VARIANTS = [
    ("sandbox", ["--sandbox"], False),
    ("full", ["--sandbox", "--protect-secrets", "--scan-hardlinks", "--no-scan-index"], False),
    ("cold", ["--sandbox", "--protect-secrets", "--scan-hardlinks"], True),
    ("warm", ["--sandbox", "--protect-secrets", "--scan-hardlinks"], False),
    ("warm-protect", ["--sandbox", "--protect-secrets"], False),
    ("warm-links", ["--sandbox", "--scan-hardlinks"], False),
]


def forget(index_dir, tree):
    """Remove the index files whose question names this tree."""
    needle = tree.encode()
    try:
        names = os.listdir(index_dir)
    except OSError:
        return
    for n in names:
        if not n.endswith(".idx"):
            continue
        p = os.path.join(index_dir, n)
        try:
            with open(p, "rb") as f:
                if needle in f.read():
                    os.unlink(p)
        except OSError:
            pass


def once(argv):
    devnull = os.open(os.devnull, os.O_RDWR)
    t0 = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, os.environ,
                         file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1),
                                       (os.POSIX_SPAWN_DUP2, devnull, 2)])
    _, status, ru = os.wait4(pid, 0)
    t1 = time.perf_counter()
    os.close(devnull)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("preflight.py: %s exited %d" % (" ".join(argv), os.waitstatus_to_exitcode(status)))
    return t1 - t0, ru.ru_utime + ru.ru_stime


def main():
    if len(sys.argv) not in (5, 6) or (len(sys.argv) == 6 and sys.argv[5] != "watch"):
        sys.exit(__doc__)
    launcher, tree, rounds, index_dir = sys.argv[1], os.path.realpath(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    watch = len(sys.argv) == 6
    os.chdir(tree)
    variants = VARIANTS
    if watch:
        variants = [(n if n == "sandbox" else n.replace("warm", "warm+watch"), f, c)
                    for n, f, c in VARIANTS if n == "sandbox" or n.startswith("warm")]
    cmds = {name: ([launcher] + flags + ["--", "/bin/true"], cold) for name, flags, cold in variants}
    wall = {n: [] for n in cmds}
    cpu = {n: [] for n in cmds}
    # Warm-up: page cache, dentries, and the index.
    for name, (argv, _) in cmds.items():
        once(argv)
    order = list(cmds)
    for _ in range(rounds):
        random.shuffle(order)
        for name in order:
            argv, cold = cmds[name]
            if cold:
                forget(index_dir, tree)
            w, c = once(argv)
            wall[name].append(w)
            cpu[name].append(c)
    print("%-13s %10s %10s %9s %9s %11s %11s" % ("variant", "wall ms", "cpu ms", "wall ×", "cpu ×",
                                                "+wall ms", "+cpu ms"))
    for name in cmds:
        rw = [a / b for a, b in zip(wall[name], wall["sandbox"])]
        rc = [a / b for a, b in zip(cpu[name], cpu["sandbox"]) if b > 0]
        dw = [(a - b) * 1000 for a, b in zip(wall[name], wall["sandbox"])]
        dc = [(a - b) * 1000 for a, b in zip(cpu[name], cpu["sandbox"])]
        print("%-13s %10.2f %10.2f %9.2f %9.2f %11.2f %11.2f" % (
            name, statistics.median(wall[name]) * 1000, statistics.median(cpu[name]) * 1000,
            statistics.median(rw), statistics.median(rc) if rc else float("nan"),
            statistics.median(dw), statistics.median(dc)))


if __name__ == "__main__":
    main()
