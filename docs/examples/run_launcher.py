#!/usr/bin/env python3
"""A Python host running model-written commands through sandbox-exec-launcher.

    python3 run_launcher.py [LAUNCHER] [-- CMD ARGS...]

The launcher confines the command and, with --outcome-fd, writes the run's
outcome as one JSON object (docs/api.md, "The outcome"): the exit status, and
every refusal the kernel reported, certain, as opposed to words in stderr. Its
--timeout ends the whole process tree (exit 124); if this host dies, or kills
the launcher, the run dies with it: nothing is left running unguarded.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

_warned = False  # the host's once-per-process flag


def capabilities(launcher):
    out = subprocess.run([launcher, "--self-test", "--json"], capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out)


def run_sandboxed(launcher, cmd, project, timeout=60):
    """Run cmd confined to project; return (exit_status, stdout, stderr, note, outcome)."""
    global _warned
    caps = capabilities(launcher)
    flags = []
    if caps["network"]["available"]:
        flags.append("--no-network")
    if caps["filesystem"]["available"]:
        flags.append("--confine-fs")
    supervised = caps.get("supervised", {}).get("available", False)
    if not flags:
        # Spec 000: no backend, so confinement is not requested; say so once.
        if not _warned:
            print("warning: the OS sandbox is unavailable here; commands run with your "
                  "account's permissions", file=sys.stderr)
            _warned = True
        argv = list(cmd)
    # The outcome goes to a file, not a pipe: nothing to drain while the
    # command runs.
    with tempfile.TemporaryFile() as out:
        if flags and supervised:
            argv = [launcher, *flags, "--outcome-fd", str(out.fileno()), "--timeout", str(timeout),
                    "--project", project, "--", *cmd]
        elif flags:
            argv = [launcher, *flags, "--report", "--project", project, "--", *cmd]
        try:
            # The launcher's own --timeout ends the tree first; this one is the
            # host's last resort, and killing the launcher still ends the run.
            p = subprocess.run(argv, cwd=project, capture_output=True, text=True,
                               timeout=timeout + 30, pass_fds=(out.fileno(),))
        except FileNotFoundError:
            return 127, "", f"{cmd[0]}: command not found", None, None
        out.seek(0)
        text = out.read().decode()
    status = p.returncode if p.returncode >= 0 else 128 - p.returncode
    outcome = json.loads(text) if text.strip() else None
    note = outcome and outcome.get("summary")
    if note is None and not supervised:
        # Without a supervisor only words are left: the last launcher line.
        for line in p.stderr.splitlines():
            if line.startswith("sandbox-exec-launcher: ") and "sandbox" in line[23:]:
                note = line[len("sandbox-exec-launcher: "):]
    if status == 124 and outcome and outcome["timed_out"]:
        note = f"the command ran past {timeout} s and was ended, with everything it started"
    if status == 126 and flags and note is None:
        note = "the sandbox could not be applied; the command did not run"
    return status, p.stdout, p.stderr, note, outcome


def main():
    args = sys.argv[1:]
    launcher = args.pop(0) if args and args[0] != "--" else shutil.which("sandbox-exec-launcher")
    cmd = args[1:] if args[:1] == ["--"] else ["sh", "-c", "echo hello from the sandbox"]
    status, out, err, note, outcome = run_sandboxed(launcher, cmd, os.getcwd())
    sys.stdout.write(out)
    sys.stderr.write(err)
    if outcome:
        certain = [r for r in outcome["records"] if r["certain"]]
        print(f"outcome: schema {outcome['schema']}, {len(certain)} certain record(s)")
    print(f"exit status: {status}" + (f"; sandbox: {note}" if note else ""))
    return 0 if status in (0, 126) else status


if __name__ == "__main__":
    sys.exit(main())
