"""Finding the launcher, the supervised run and its outcome."""
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from ._policy import Policy

EXPECTED_VERSION = (0, 1, 0)
# After a cancellation the command has this long to end on SIGTERM before the
# launcher is killed (the supervised run dies with its launcher).
GRACE_SECONDS = 2.5
# How long the host waits past the launcher's own --timeout before it ends the run itself.
BACKSTOP_SECONDS = 15.0
# How long the launcher's process group may outlive the launcher (its
# supervisor ending what the command left) before it is killed outright.
GROUP_GONE_SECONDS = 10.0


class LauncherError(RuntimeError):
    """The launcher is missing, not executable, or older than this package expects."""


@dataclass
class Record:
    kind: str
    certain: bool
    syscall: Optional[str] = None
    family_name: Optional[str] = None
    type_name: Optional[str] = None
    path: Optional[str] = None
    pid: Optional[int] = None
    comm: Optional[str] = None
    action: Optional[str] = None
    count: int = 1
    text: Optional[str] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "Record":
        return cls(kind=d.get("kind", ""), certain=bool(d.get("certain")), syscall=d.get("syscall"),
                   family_name=d.get("family_name"), type_name=d.get("type_name"),
                   path=d.get("path"), pid=d.get("pid"), comm=d.get("comm"),
                   action=d.get("action"), count=d.get("count") or 1, text=d.get("text"), raw=d)


@dataclass
class Outcome:
    """What a run ended with. `ran` is False when the launcher refused before the
    command started (126: the sandbox could not be applied; 127: not found):
    then `exit_code` is the launcher's status and `stderr` says why."""
    exit_code: Optional[int]
    signal: Optional[int]
    signal_name: Optional[str]
    stdout: bytes
    stderr: bytes
    records: List[Record]
    sandbox: Optional[str]
    timed_out: bool
    cancelled: bool
    ran: bool
    status: int                      # the launcher's own exit status (128+N for a signal)
    summary: Optional[str] = None
    warning: Optional[str] = None
    leftover_processes: int = 0
    # The resource limit that ended the run: "memory", "pids", "cpu", "file-size",
    # "timeout"; None when none did. limit_certain: the kernel's counters say so.
    limit: Optional[str] = None
    limit_certain: bool = False
    # The sandbox's own supervisor failed after the command started and ended the
    # run (its exit 126 is the sandbox's, not the command's), or, when it says
    # "after the command had exited", while ending what the command left (the
    # status is the command's): why; None otherwise.
    sandbox_failure: Optional[str] = None
    # "run": that failure made the status the sandbox's (126); "after_exit": the
    # status is the command's own; None: no failure.
    sandbox_failed: Optional[str] = None
    raw: Optional[Dict[str, Any]] = field(default=None, repr=False)

    @property
    def certain(self) -> List[Record]:
        return [r for r in self.records if r.certain]

    @property
    def hedged(self) -> List[Record]:
        return [r for r in self.records if not r.certain]


_version_cache: Dict[tuple, tuple] = {}


def _check_version(path: str) -> None:
    st = os.stat(path)
    key = (path, st.st_ino, st.st_mtime_ns)
    if key not in _version_cache:
        try:
            out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30,
                                 stdin=subprocess.DEVNULL).stdout
        except OSError as e:
            raise LauncherError(f"launcher {path} cannot be run: {e}") from e
        m = re.search(r"(\d+)\.(\d+)\.(\d+)", out)
        if not m:
            raise LauncherError(f"launcher {path} printed no version (`--version` said {out!r})")
        _version_cache[key] = tuple(int(x) for x in m.groups())
    got = _version_cache[key]
    if got < EXPECTED_VERSION:
        raise LauncherError("launcher %s is version %s; this package needs %s or later: install a "
                            "newer sandbox-exec-launcher" % (path, ".".join(map(str, got)),
                                                             ".".join(map(str, EXPECTED_VERSION))))


def find_launcher(path: Optional[str] = None) -> str:
    """The launcher: `path`, else $SANDBOX_EXEC_LAUNCHER, else PATH; its version checked."""
    where = "the explicit path"
    if not path:
        path, where = os.environ.get("SANDBOX_EXEC_LAUNCHER") or None, "$SANDBOX_EXEC_LAUNCHER"
    if not path:
        path, where = shutil.which("sandbox-exec-launcher"), "PATH"
        if not path:
            raise LauncherError("sandbox-exec-launcher not found: pass its path, set "
                                "SANDBOX_EXEC_LAUNCHER, or put it on PATH")
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise LauncherError(f"sandbox-exec-launcher from {where} ({path}) is not an executable file")
    _check_version(path)
    return path


def _group_gone(pgid: int) -> None:
    # The launcher's supervisor (same process group) ends what the command left
    # after the launcher dies; wait for it, then kill whatever remains.
    deadline = time.monotonic() + GROUP_GONE_SECONDS
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.02)
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _end(p: subprocess.Popen) -> None:
    """Cancel: SIGTERM reaches the command; then the launcher is killed, and the
    supervised run dies with it. Never a group kill first: it would kill the
    supervisor before it ends what the command started in other sessions."""
    try:
        p.send_signal(signal.SIGTERM)
        p.communicate(timeout=GRACE_SECONDS)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()


def _parse(status: int, stdout: bytes, stderr: bytes, text: str, cancelled: bool) -> Outcome:
    if not text.strip():
        return Outcome(exit_code=status, signal=None, signal_name=None, stdout=stdout,
                       stderr=stderr, records=[], sandbox=None, timed_out=False,
                       cancelled=cancelled, ran=False, status=status)
    d = json.loads(text)
    return Outcome(exit_code=d.get("exit_code"), signal=d.get("signal"),
                   signal_name=d.get("signal_name"), stdout=stdout, stderr=stderr,
                   records=[Record.from_json(r) for r in d.get("records") or []],
                   sandbox=d.get("sandbox"), timed_out=bool(d.get("timed_out")),
                   cancelled=cancelled, ran=True, status=status, summary=d.get("summary"),
                   warning=d.get("warning"), leftover_processes=d.get("leftover_processes") or 0,
                   limit=d.get("limit"), limit_certain=bool(d.get("limit_certain")),
                   sandbox_failure=d.get("sandbox_failure"),
                   sandbox_failed=d.get("sandbox_failed"), raw=d)


def run(argv: Sequence[str], policy: Optional[Policy] = None, timeout: Optional[float] = None,
        cwd: Optional[str] = None, env: Optional[Mapping[str, str]] = None,
        stdin: Union[bytes, str, None] = None, launcher: Optional[str] = None) -> Outcome:
    """Run argv under the launcher, supervised. The process tree is gone when this
    returns or raises (KeyboardInterrupt included: the run is ended, then it propagates)."""
    policy = policy or Policy()
    if not argv or not all(isinstance(a, str) for a in argv):
        raise ValueError("argv: a non-empty list of strings is needed")
    if timeout is not None and not timeout > 0:
        raise ValueError("timeout: a positive number of seconds is needed")
    flags = policy.flags()
    path = find_launcher(launcher)
    if isinstance(stdin, str):
        stdin = stdin.encode()
    # A file, so nothing has to be drained meanwhile; nameless (O_TMPFILE, or
    # unlinked at once), since the sandbox may write the temp directory and a
    # command that found the file by name could forge or spoil its outcome.
    with tempfile.TemporaryFile() as out:
        fd = out.fileno()
        cmd = [path, *flags, "--outcome-fd", str(fd)]
        if timeout is not None:
            # Fixed notation, never an exponent; at least 1 ms, never a 0 the launcher could read as none.
            cmd += ["--timeout", f"{max(float(timeout), 0.001):.3f}"]
        cmd += ["--", *argv]
        # A session (and so a process group) of its own: the terminal's Ctrl-C
        # reaches the host, which ends the run in order (_end).
        p = subprocess.Popen(cmd, cwd=cwd, env=dict(env) if env is not None else None,
                             stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, pass_fds=(fd,),
                             start_new_session=True)
        cancelled = False
        try:
            try:
                backstop = None if timeout is None else timeout + BACKSTOP_SECONDS
                so, se = p.communicate(stdin, timeout=backstop)
            except subprocess.TimeoutExpired:
                cancelled = True
                _end(p)
                so, se = b"", b""
            except BaseException:
                _end(p)
                raise
        finally:
            _group_gone(p.pid)
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    status = p.returncode if p.returncode >= 0 else 128 - p.returncode
    return _parse(status, so, se, text, cancelled)


def _json_action(args: List[str], launcher: Optional[str]) -> Any:
    path = find_launcher(launcher)
    p = subprocess.run([path, *args], capture_output=True, text=True, timeout=60,
                       stdin=subprocess.DEVNULL)
    if p.returncode != 0:
        raise LauncherError(f"{' '.join(args[:2])} failed with status {p.returncode}: "
                            f"{p.stderr.strip()}")
    return json.loads(p.stdout)


def self_test(launcher: Optional[str] = None) -> Any:
    """`--self-test --json`: what this machine enforces."""
    return _json_action(["--self-test", "--json"], launcher)


def explain(policy: Optional[Policy] = None, argv: Sequence[str] = ("true",),
            launcher: Optional[str] = None) -> Any:
    """`--explain --json`: what the policy would enforce; nothing runs."""
    return _json_action(["--explain", "--json", *(policy or Policy()).flags(), "--", *argv],
                        launcher)
