#!/usr/bin/env python3
"""A Python host running model-written commands through sandbox-exec-launcher.

    python3 run_launcher.py [LAUNCHER] [-- CMD ARGS...]

The launcher applies the sandbox to itself and execs the command, so the
host needs no C binding: one extra argv prefix per command.
"""
import json
import os
import shutil
import subprocess
import sys

_warned = False  # the host's once-per-process flag


def capabilities(launcher):
    out = subprocess.run([launcher, "--self-test", "--json"], capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out)


def run_sandboxed(launcher, cmd, project, timeout=60):
    """Run cmd confined to project; return (exit_status, stdout, stderr, note)."""
    global _warned
    caps = capabilities(launcher)
    flags = []
    if caps["network"]["available"]:
        flags.append("--no-network")
    if caps["filesystem"]["available"]:
        flags.append("--confine-fs")
    if not flags:
        # Spec 000: no backend, so confinement is not requested; say so once.
        if not _warned:
            print("warning: the OS sandbox is unavailable here; commands run with your "
                  "account's permissions", file=sys.stderr)
            _warned = True
        argv = list(cmd)
    else:
        argv = [launcher, *flags, "--report", "--project", project, "--", *cmd]
    try:
        p = subprocess.run(argv, cwd=project, capture_output=True, text=True, timeout=timeout)
    except FileNotFoundError:
        return 127, "", f"{cmd[0]}: command not found", None
    status = p.returncode if p.returncode >= 0 else 128 - p.returncode
    note = None
    # --report adds one line naming the sandbox when it probably refused something.
    for line in p.stderr.splitlines():
        if line.startswith("sandbox-exec-launcher: ") and "sandbox" in line[23:]:
            note = line[len("sandbox-exec-launcher: "):]
    if status == 126 and flags and note is None:
        note = "the sandbox could not be applied; the command did not run"
    return status, p.stdout, p.stderr, note


def main():
    args = sys.argv[1:]
    launcher = args.pop(0) if args and args[0] != "--" else shutil.which("sandbox-exec-launcher")
    cmd = args[1:] if args[:1] == ["--"] else ["sh", "-c", "echo hello from the sandbox"]
    status, out, err, note = run_sandboxed(launcher, cmd, os.getcwd())
    sys.stdout.write(out)
    sys.stderr.write(err)
    print(f"exit status: {status}" + (f"; sandbox: {note}" if note else ""))
    return 0 if status in (0, 126) else status


if __name__ == "__main__":
    sys.exit(main())
