"""Run commands under sandbox-exec-launcher (docs/host-guide.md).

A thin host package: it builds the launcher's flags from a validated Policy,
runs the command supervised (--outcome-fd, --timeout) and returns the parsed
outcome (docs/api.md, "The outcome, schema 1"). Standard library only.
"""
from ._policy import Policy, PolicyError, MODES, CLASSES
from ._run import (Outcome, Record, LauncherError, find_launcher, run, self_test, explain,
                   EXPECTED_VERSION)

__all__ = ["Policy", "PolicyError", "MODES", "CLASSES", "Outcome", "Record", "LauncherError",
           "find_launcher", "run", "self_test", "explain", "EXPECTED_VERSION"]
