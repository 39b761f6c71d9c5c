"""Real runs under the launcher named by $SANDBOX_EXEC_LAUNCHER (else PATH).
Each enforcement check runs the same command unconfined as its control."""
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import libsandbox
from libsandbox import Policy, PolicyError, LauncherError

PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable


def gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"   # dead, not yet reaped
    except FileNotFoundError:
        return True


class Base(unittest.TestCase):
    def setUp(self):
        # Outside /tmp: the sandbox may always write the system temp directory.
        self.project = tempfile.mkdtemp(prefix="sbx-py-proj.", dir="/var/tmp")
        self.outside = tempfile.mkdtemp(prefix="sbx-py-out.", dir="/var/tmp")
        self.addCleanup(shutil.rmtree, self.project, True)
        self.addCleanup(shutil.rmtree, self.outside, True)
        self.policy = Policy(project=self.project, workdir=self.project)


class Enforcement(Base):
    def test_outside_write_refused_and_works_unconfined(self):
        target = os.path.join(self.outside, "f")
        cmd = ["sh", "-c", f"echo x > {target}"]
        o = libsandbox.run(cmd, self.policy, timeout=60, cwd=self.project)
        self.assertTrue(o.ran)
        self.assertNotEqual(o.exit_code, 0, o)
        self.assertFalse(os.path.exists(target))
        # Landlock's EACCES; root's read-only mounts answer EROFS first.
        self.assertTrue(b"ermission denied" in o.stderr or b"ead-only file system" in o.stderr, o.stderr)
        self.assertTrue(o.sandbox and o.sandbox.startswith("on:"), o.sandbox)
        inside = libsandbox.run(["sh", "-c", "echo x > inside"], self.policy, cwd=self.project)
        self.assertEqual(inside.exit_code, 0, inside)
        self.assertTrue(os.path.exists(os.path.join(self.project, "inside")))
        self.assertEqual(subprocess.run(cmd).returncode, 0)        # the control
        self.assertTrue(os.path.exists(target))

    def test_socket_sigsys_certain_record(self):
        code = "import socket; socket.socket(socket.AF_INET, socket.SOCK_STREAM)"
        o = libsandbox.run([PY, "-c", code], self.policy, timeout=60, cwd=self.project)
        self.assertIsNone(o.exit_code, o)
        self.assertEqual(o.signal_name, "SIGSYS")
        self.assertEqual(o.status, 128 + 31)
        c = o.certain
        self.assertEqual(len(c), 1, o.records)
        self.assertEqual((c[0].kind, c[0].family_name, c[0].action), ("socket", "AF_INET", "SIGSYS"))
        self.assertEqual(subprocess.run([PY, "-c", code]).returncode, 0)   # the control

    def test_socket_eperm_certain_record(self):
        code = "import socket; socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)"
        self.policy.net_eperm = True
        o = libsandbox.run([PY, "-c", code], self.policy, timeout=60, cwd=self.project)
        self.assertEqual(o.exit_code, 1, o)
        self.assertIn(b"PermissionError", o.stderr)
        self.assertEqual([(r.family_name, r.action) for r in o.certain], [("AF_INET6", "EPERM")])

    def test_protected_env_unreadable(self):
        with open(os.path.join(self.project, ".env"), "w") as f:
            f.write("TOKEN=secret\n")
        self.policy.protect_secrets = True
        o = libsandbox.run(["cat", ".env"], self.policy, timeout=60, cwd=self.project)
        self.assertNotEqual(o.exit_code, 0, o)
        self.assertNotIn(b"secret", o.stdout)
        self.assertEqual(subprocess.run(["cat", ".env"], cwd=self.project,
                                        capture_output=True).stdout, b"TOKEN=secret\n")

    def test_outcome_file_has_no_name(self):
        o = libsandbox.run(["ls", "-a", tempfile.gettempdir()], self.policy, cwd=self.project)
        self.assertEqual(o.exit_code, 0, o)
        self.assertNotIn(b"sbx-outcome", o.stdout)
        self.assertNotIn(b"tmp", o.stdout.split())   # TemporaryFile's names are tmpXXXXXXXX

    def test_stdin_env_cwd(self):
        o = libsandbox.run(["sh", "-c", 'cat; echo "$SBX_X"; pwd'], self.policy, cwd=self.project,
                           env={"PATH": "/usr/bin:/bin", "SBX_X": "y"}, stdin="in\n")
        self.assertEqual(o.exit_code, 0, o)
        self.assertEqual(o.stdout.decode().splitlines(), ["in", "y", os.path.realpath(self.project)])


class Lifecycle(Base):
    # Three processes: the shell, a background sleep, a sleep in a session of its own.
    TREE = "sleep 100 & echo $! >> pids; setsid sleep 100 & echo $! >> pids; echo $$ >> pids; sleep 100"

    def pids(self):
        with open(os.path.join(self.project, "pids")) as f:
            return [int(x) for x in f.read().split()]

    def test_timeout_kills_tree(self):
        t0 = time.monotonic()
        o = libsandbox.run(["sh", "-c", self.TREE], self.policy, timeout=1, cwd=self.project)
        self.assertLess(time.monotonic() - t0, 30)
        self.assertTrue(o.timed_out, o)
        self.assertEqual(o.limit, "timeout", o)
        self.assertEqual(o.status, 124)
        pids = self.pids()
        self.assertEqual(len(pids), 3)
        self.assertEqual([p for p in pids if not gone(p)], [])

    def test_keyboard_interrupt_kills_tree(self):
        def interrupt():
            for _ in range(300):    # once the tree is up
                if os.path.exists(os.path.join(self.project, "pids")) and len(self.pids()) == 3:
                    break
                time.sleep(0.05)
            # A real SIGINT to the main thread, as a terminal's Ctrl-C would
            # be (interrupt_main would not wake a blocked wait).
            signal.pthread_kill(main, signal.SIGINT)
        main = threading.main_thread().ident
        threading.Thread(target=interrupt, daemon=True).start()
        t0 = time.monotonic()
        with self.assertRaises(KeyboardInterrupt):
            libsandbox.run(["sh", "-c", self.TREE], self.policy, timeout=60, cwd=self.project)
        self.assertLess(time.monotonic() - t0, 30)     # ended by the interrupt, not the timeout
        pids = self.pids()
        self.assertEqual(len(pids), 3)
        self.assertEqual([p for p in pids if not gone(p)], [])


class Launcher(Base):
    def test_missing_launcher(self):
        with self.assertRaisesRegex(LauncherError, "not an executable file"):
            libsandbox.run(["true"], launcher="/nonexistent/sandbox-exec-launcher")
        old = os.environ.get("SANDBOX_EXEC_LAUNCHER")
        os.environ["SANDBOX_EXEC_LAUNCHER"] = ""
        path = os.environ.get("PATH", "")
        os.environ["PATH"] = self.outside
        try:
            with self.assertRaisesRegex(LauncherError, "not found"):
                libsandbox.find_launcher()
        finally:
            os.environ["PATH"] = path
            if old is None:
                del os.environ["SANDBOX_EXEC_LAUNCHER"]
            else:
                os.environ["SANDBOX_EXEC_LAUNCHER"] = old

    def fake(self, version):
        marker = os.path.join(self.outside, "spawned")
        path = os.path.join(self.outside, "fake-launcher")
        with open(path, "w") as f:
            f.write(f'#!/bin/sh\n[ "$1" = --version ] && {{ echo "sandbox-exec-launcher {version}"; exit 0; }}\n'
                    f'touch {marker}\n')
        os.chmod(path, 0o755)
        return path, marker

    def test_old_launcher(self):
        path, marker = self.fake("0.0.9")
        with self.assertRaisesRegex(LauncherError, "version 0.0.9; this package needs 0.1.0"):
            libsandbox.run(["true"], launcher=path)
        self.assertFalse(os.path.exists(marker))

    def test_bad_policy_spawns_nothing(self):
        path, marker = self.fake("9.9.9")
        for bad in (Policy(mode="read-only", klass="build"), Policy(klass="media"),
                    Policy(mode="no-net"), Policy(klass="bogus"), Policy(add_dirs=[""]),
                    Policy(add_reads=["/usr"]), Policy(project="rel"),
                    Policy(add_dirs=["--net-eperm"])):
            with self.assertRaises(PolicyError):
                libsandbox.run(["true"], bad, launcher=path)
        with self.assertRaises(ValueError):
            libsandbox.run([], Policy(), launcher=path)
        self.assertFalse(os.path.exists(marker))

    def test_explain_and_self_test(self):
        e = libsandbox.explain(Policy(project=self.project, workdir=self.project, net_eperm=True, klass="build"))
        self.assertEqual(e["project_root"], os.path.realpath(self.project))
        self.assertEqual(e["class"], "build")
        self.assertEqual(e["deny_action"], "eperm")
        s = libsandbox.self_test()
        self.assertEqual(s["platform"], "linux")
        self.assertTrue(s["supervised"]["available"])

    def test_flags(self):
        p = Policy(mode="no-network", project="/p", add_dirs=["/a", "/b"], klass="build",
                   protect_secrets=True, protect=["*.pem"], net_eperm=True)
        self.assertEqual(p.flags(), ["--no-network", "--class", "build", "--project", "/p",
                                     "--add-dir", "/a", "--add-dir", "/b", "--protect", "*.pem",
                                     "--protect-secrets", "--net-eperm"])


if __name__ == "__main__":
    unittest.main()
