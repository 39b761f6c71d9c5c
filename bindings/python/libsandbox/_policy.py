"""The policy: the launcher's policy flags, validated before anything runs."""
from dataclasses import dataclass, field
from typing import List, Optional

MODES = ("sandbox", "no-network", "confine-fs", "read-only")
CLASSES = ("project", "research", "build", "offline", "media", "tool-server")


class PolicyError(ValueError):
    """A policy the launcher would refuse; raised before anything is spawned."""


def _path(what: str, p: str) -> str:
    if not isinstance(p, str) or not p.startswith("/") or "\0" in p:
        raise PolicyError(f"{what}: an absolute path without NUL bytes is needed, got {p!r}")
    return p


@dataclass
class Policy:
    """The launcher's policy flags (sandbox-exec-launcher --help)."""
    mode: str = "sandbox"
    project: Optional[str] = None
    workdir: Optional[str] = None
    add_dirs: List[str] = field(default_factory=list)
    add_reads: List[str] = field(default_factory=list)
    klass: Optional[str] = None          # --class NAME, or "tool-server"
    output: Optional[str] = None         # --output DIR (--class media)
    scratch: Optional[str] = None
    writable_caches: bool = False
    protect_secrets: bool = False
    protect: List[str] = field(default_factory=list)
    net_eperm: bool = False
    no_user_namespaces: bool = False

    def validate(self) -> None:
        if self.mode not in MODES:
            raise PolicyError(f"mode {self.mode!r} is not one of {', '.join(MODES)}")
        if self.klass is not None and self.klass not in CLASSES:
            raise PolicyError(f"class {self.klass!r} is not one of {', '.join(CLASSES)}")
        if self.mode == "read-only" and (self.klass or self.writable_caches or self.output):
            raise PolicyError("read-only is a fixed profile: it takes no class, writable caches or output")
        if self.klass == "media" and not self.output:
            raise PolicyError("class media needs its output folder (output=DIR)")
        if self.output and self.klass != "media":
            raise PolicyError("output is the output folder of class media only")
        if self.add_reads and not self.klass:
            raise PolicyError("add_reads has no effect without a class")
        for name in ("project", "workdir", "output", "scratch"):
            if getattr(self, name) is not None:
                _path(name, getattr(self, name))
        for d in self.add_dirs:
            _path("add_dirs", d)
        for d in self.add_reads:
            if d in ("/", "//"):
                raise PolicyError("add_reads: never /")
            _path("add_reads", d)
        for p in self.protect:
            if not isinstance(p, str) or not p or "\0" in p:
                raise PolicyError(f"protect: a non-empty pattern is needed, got {p!r}")

    def flags(self) -> List[str]:
        """The launcher flags for this policy (validated first)."""
        self.validate()
        f = ["--" + self.mode]
        if self.klass == "tool-server":
            f.append("--tool-server")
        elif self.klass:
            f += ["--class", self.klass]
        for opt, val in (("--project", self.project), ("--workdir", self.workdir),
                         ("--output", self.output), ("--scratch", self.scratch)):
            if val is not None:
                f += [opt, val]
        for d in self.add_dirs:
            f += ["--add-dir", d]
        for d in self.add_reads:
            f += ["--add-read", d]
        for p in self.protect:
            f += ["--protect", p]
        for flag, on in (("--writable-caches", self.writable_caches),
                         ("--protect-secrets", self.protect_secrets),
                         ("--net-eperm", self.net_eperm),
                         ("--no-user-namespaces", self.no_user_namespaces)):
            if on:
                f.append(flag)
        return f
