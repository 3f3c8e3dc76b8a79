"""Run untrusted commands under bubblewrap with limits, or plain commands with the same limits.

Containment given by `run_sandboxed`:

- the whole filesystem is mounted read-only; `/tmp` is a private, empty tmpfs; each path in
  `hide` is replaced by an empty, read-only tmpfs (the repository, home folders);
- only `Bind(..., writable=True)` entries can be written, and only through their sandbox path;
- a user namespace maps the caller to an unprivileged uid with every capability dropped, so
  nothing inside can remount, ptrace the host or change ownership;
- a fresh network namespace (only a private loopback: no route to any other host);
- fresh pid/ipc/uts namespaces, a new session (no terminal injection), `--die-with-parent`;
- a clean environment (only `env` plus a minimal PATH/HOME);
- a wall-clock timeout after which the whole process tree is killed;
- an output cap: stdout and stderr are each kept up to `output_cap` bytes; with
  `kill_on_output_cap` a process that writes more is killed (a log flood cannot fill the disk).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Literal

DEFAULT_OUTPUT_CAP = 2 * 1024 * 1024
SANDBOX_UID = 1000
SANDBOX_GID = 1000
DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"


class SandboxError(RuntimeError):
    """The sandbox itself could not be set up (not a failure of the command inside it)."""


@dataclass(frozen=True)
class Bind:
    """Make host `source` visible at `dest` inside the sandbox (read-only unless `writable`)."""

    source: Path
    dest: str
    writable: bool = False


@dataclass(frozen=True)
class SandboxSpec:
    argv: Sequence[str]
    cwd: str = "/tmp"
    binds: Sequence[Bind] = ()
    hide: Sequence[str] = ()
    network: Literal["none", "loopback"] = "none"
    env: Mapping[str, str] = field(default_factory=dict)
    timeout: float = 300.0
    output_cap: int = DEFAULT_OUTPUT_CAP
    kill_on_output_cap: bool = True
    tmp_size: int | None = 512 * 1024 * 1024


@dataclass
class SandboxResult:
    argv: list[str]
    exit_code: int | None
    stdout: str
    stderr: str
    duration: float
    timed_out: bool = False
    output_capped: bool = False
    stdout_bytes: int = 0
    stderr_bytes: int = 0

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out and not self.output_capped

    def describe(self) -> str:
        """One line a developer can act on: how the command ended."""
        cmd = " ".join(self.argv)
        if self.timed_out:
            return f"`{cmd}` was killed after the {self.duration:.0f} s time limit"
        if self.output_capped:
            total = self.stdout_bytes + self.stderr_bytes
            return f"`{cmd}` was killed: it wrote more than the output cap ({total} bytes seen)"
        if self.exit_code == 0:
            return f"`{cmd}` succeeded in {self.duration:.1f} s"
        return f"`{cmd}` exited with code {self.exit_code} after {self.duration:.1f} s"


def bwrap_argv(spec: SandboxSpec) -> list[str]:
    """The full bubblewrap command line for `spec` (exposed for tests and logs)."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise SandboxError("bubblewrap (bwrap) is not installed: apt-get install bubblewrap")
    args = [
        bwrap,
        "--unshare-user",
        "--uid",
        str(SANDBOX_UID),
        "--gid",
        str(SANDBOX_GID),
        "--cap-drop",
        "ALL",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--unshare-net",
        "--die-with-parent",
        "--new-session",
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
    ]
    if spec.tmp_size:
        args += ["--size", str(spec.tmp_size)]
    args += ["--tmpfs", "/tmp"]
    for hidden in spec.hide:
        args += ["--tmpfs", str(hidden)]
    for bind in spec.binds:
        if not bind.source.exists():
            raise SandboxError(f"bind source {bind.source} does not exist")
        args += ["--bind" if bind.writable else "--ro-bind", str(bind.source), bind.dest]
    for hidden in spec.hide:
        # Empty and read-only: nothing can be stashed there for a later step to find.
        args += ["--remount-ro", str(hidden)]
    env = {"PATH": DEFAULT_PATH, "HOME": "/tmp", "LANG": "C.UTF-8", "TMPDIR": "/tmp"}
    env.update(spec.env)
    args.append("--clearenv")
    for key, value in env.items():
        args += ["--setenv", key, value]
    args += ["--chdir", spec.cwd, "--", *spec.argv]
    return args


def run_sandboxed(spec: SandboxSpec) -> SandboxResult:
    """Run `spec.argv` inside bubblewrap; see the module docstring for what is contained."""
    result = run_process(
        bwrap_argv(spec),
        timeout=spec.timeout,
        output_cap=spec.output_cap,
        kill_on_output_cap=spec.kill_on_output_cap,
        env={"PATH": DEFAULT_PATH},
    )
    result.argv = list(spec.argv)
    if result.exit_code not in (0, None) and result.stderr.startswith("bwrap:"):
        raise SandboxError(f"bubblewrap could not start the sandbox: {result.stderr.strip()}")
    return result


class _Collector(threading.Thread):
    def __init__(self, stream: IO[bytes], cap: int, on_cap: threading.Event) -> None:
        super().__init__(daemon=True)
        self.stream = stream
        self.cap = cap
        self.on_cap = on_cap
        self.chunks: list[bytes] = []
        self.kept = 0
        self.seen = 0

    def run(self) -> None:
        while True:
            try:
                chunk = self.stream.read1(65536)  # type: ignore[attr-defined]
            except (OSError, ValueError):
                break
            if not chunk:
                break
            self.seen += len(chunk)
            if self.kept < self.cap:
                keep = chunk[: self.cap - self.kept]
                self.chunks.append(keep)
                self.kept += len(keep)
            if self.seen > self.cap:
                self.on_cap.set()

    def text(self) -> str:
        data = b"".join(self.chunks).decode("utf-8", errors="replace")
        if self.seen > self.kept:
            data += f"\n[output truncated: {self.seen - self.kept} more bytes not kept]\n"
        return data


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        proc.kill()


def run_process(
    argv: Sequence[str],
    *,
    cwd: Path | str | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = 300.0,
    output_cap: int = DEFAULT_OUTPUT_CAP,
    kill_on_output_cap: bool = True,
) -> SandboxResult:
    """Run a command in its own process group with a timeout and an output cap.

    On timeout (or output flood) the whole process group is killed with SIGKILL.
    """
    start = time.monotonic()
    capped = threading.Event()
    try:
        proc = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=dict(env) if env is not None else None,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        raise SandboxError(f"could not start {argv[0]}: {exc}") from exc
    assert proc.stdout is not None and proc.stderr is not None
    out = _Collector(proc.stdout, output_cap, capped)
    err = _Collector(proc.stderr, output_cap, capped)
    out.start()
    err.start()
    timed_out = False
    output_capped = False
    deadline = start + timeout
    while True:
        try:
            proc.wait(timeout=0.05)
            break
        except subprocess.TimeoutExpired:
            pass
        if kill_on_output_cap and capped.is_set():
            output_capped = True
            _kill_group(proc)
            proc.wait()
            break
        if time.monotonic() >= deadline:
            timed_out = True
            _kill_group(proc)
            proc.wait()
            break
    # Kill any leftovers of the group (e.g. a daemonised grandchild holding the pipes).
    _kill_group(proc)
    out.join(timeout=5)
    err.join(timeout=5)
    for stream in (proc.stdout, proc.stderr):
        stream.close()
    return SandboxResult(
        argv=list(argv),
        exit_code=None if (timed_out or output_capped) else proc.returncode,
        stdout=out.text(),
        stderr=err.text(),
        duration=round(time.monotonic() - start, 3),
        timed_out=timed_out,
        output_capped=output_capped,
        stdout_bytes=out.seen,
        stderr_bytes=err.seen,
    )
