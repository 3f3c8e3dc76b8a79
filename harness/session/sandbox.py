"""The session sandbox: the `sandbox.profiles.agent_session` profile for one agent process.

Inside, the agent sees `/usr` (read-only), a few `/etc` files and its own passwd/group/hosts,
Node 22 and its own tools (read-only), its worktree at `/workspace` (writable), a private HOME
with a private npm cache, a capped private `/tmp`, and the recording proxy's Unix socket.
Nothing of the repository, `evaluator/`, `evidence/`, other units or the host's HOME. No network
but loopback; a small Node forwarder listens on 127.0.0.1 inside and pipes to the proxy socket.
It runs as an unprivileged uid with per-process limits and a host-side watch of its memory and
disk (`sandbox.profiles.SESSION_LIMITS`). The bubblewrap command line comes only from `sandbox/`
(`sandbox.bwrap_argv`, `sandbox.runner.host_command`).
"""

from __future__ import annotations

import contextlib
import functools
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import sandbox
from records.evidence.session import Isolation
from records.tools import NODE_BIN_DIR
from sandbox.limits import Limits, human_bytes
from sandbox.profiles import (
    LOOPBACK_PORT,
    SESSION_HOME,
    SESSION_LIMITS,
    SESSION_TMP_SIZE,
    SESSION_WORKDIR,
    agent_session,
    write_session_identity,
)
from sandbox.runner import host_argv, host_command, reclaim

FORWARDER = Path(__file__).with_name("sandbox_forward.js")
WORKDIR = SESSION_WORKDIR
HOME = SESSION_HOME
BWRAP_DETAILS = [
    "bubblewrap: new user/pid/ipc/uts/cgroup/net namespaces, no capabilities, --die-with-parent",
    "network: loopback only; the recording proxy via a bind-mounted Unix socket",
    "filesystem: allow-list (/usr, a few /etc files, tools read-only); worktree, private HOME "
    "+ npm cache writable; capped tmpfs /tmp",
    "hidden: repository, evaluator/, evidence/, other units, host HOME, host passwd/hosts",
    f"limits: {SESSION_LIMITS.describe()}; /tmp {human_bytes(SESSION_TMP_SIZE)}; "
    "unprivileged host uid",
]


class SandboxUnavailable(RuntimeError):
    """bubblewrap is missing or does not work here; paid units refuse to run without it."""


@functools.cache
def bwrap_available() -> bool:
    """True when `bwrap` exists and can create the namespaces the session needs (as the
    unprivileged host uid, with a capped /tmp, through the same builder as a session)."""
    if shutil.which("bwrap") is None:
        return False
    probe, _ = host_argv(sandbox.SandboxSpec(argv=["true"], limits=None, tmp_size=SESSION_TMP_SIZE))
    try:
        return subprocess.run(probe, capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def require_isolation(paid: bool) -> bool:
    """Whether to sandbox; refuses a paid unit on a machine without working bubblewrap."""
    if bwrap_available():
        return True
    if paid:
        raise SandboxUnavailable(
            "bubblewrap (bwrap) is missing or cannot create namespaces on this machine: paid "
            "sessions must run sandboxed. Install it with `apt-get install bubblewrap` "
            "(scripts/setup does) and retry."
        )
    return False


def isolation_for(isolated: bool) -> Isolation:
    """The isolation level recorded in session.json and preflight.json."""
    if isolated:
        return Isolation(level="bwrap-loopback-proxy", details=list(BWRAP_DETAILS))
    return Isolation(
        level="unsandboxed",
        details=["no bubblewrap: demo round only; the agent runs with the host's view"],
    )


@dataclass
class SandboxSpec:
    """What one sandboxed agent process gets. Host paths map to fixed paths inside."""

    worktree: Path
    home: Path
    gateway_socket: Path
    gateway_port: int = 0  # the proxy's TCP port on the host, used only when unsandboxed
    isolated: bool = True
    ro_binds: dict[str, Path] = field(default_factory=dict)  # inside path -> host path
    env: dict[str, str] = field(default_factory=dict)
    limits: Limits | None = SESSION_LIMITS
    tmp_size: int | None = SESSION_TMP_SIZE

    @property
    def workdir(self) -> str:
        return WORKDIR if self.isolated else str(self.worktree)

    @property
    def home_inside(self) -> str:
        return HOME if self.isolated else str(self.home)

    @property
    def identity_dir(self) -> Path:
        """Where the sandbox's passwd, group and hosts are written (beside the socket folder)."""
        folder = self.gateway_socket.parent
        return folder.with_name(f"{folder.name}-etc")

    @property
    def base_url(self) -> str:
        """The OpenRouter-compatible base URL the agent must use."""
        port = LOOPBACK_PORT if self.isolated else self.gateway_port
        return f"http://127.0.0.1:{port}/api/v1"

    def inside(self, host_path: Path) -> str:
        """The path the agent sees for a host path under the worktree or HOME."""
        if not self.isolated:
            return str(host_path)
        for root, mapped in ((self.worktree, WORKDIR), (self.home, HOME)):
            if host_path.is_relative_to(root):
                return f"{mapped}/{host_path.relative_to(root)}".rstrip("/.")
        raise ValueError(f"{host_path} is not visible inside the sandbox")

    def isolation(self) -> Isolation:
        return isolation_for(self.isolated)

    def profile(self, command: list[str]) -> sandbox.SandboxSpec:
        """The `agent_session` profile for `command` (the sandbox/ builder's input)."""
        return agent_session(
            command,
            worktree=self.worktree,
            home=self.home,
            gateway_socket=self.gateway_socket,
            forwarder=FORWARDER,
            identity=self.identity_dir,
            ro_binds=self.ro_binds,
            env=self.env,
            limits=self.limits,
            tmp_size=self.tmp_size,
        )

    def argv(self, command: list[str]) -> list[str]:
        """The bubblewrap command line for `command` (what runs inside the host uid switch and
        staging of `launch`), or `command` itself when unsandboxed. For inspection and logs."""
        if not self.isolated:
            return list(command)
        return sandbox.bwrap_argv(self.profile(command))

    @property
    def writable(self) -> list[Path]:
        """The host folders the agent can write (watched against the disk limit)."""
        return [self.worktree, self.home] if self.isolated else []

    @contextlib.contextmanager
    def launch(self, command: list[str]) -> Iterator[list[str]]:
        """The host argv that runs `command`, valid while the context is open: in the sandbox
        (identity files written, worktree and HOME handed over to the sandbox's host uid, staged
        binds) or, unsandboxed, `command`. On exit the worktree and HOME are the caller's again,
        so the harness's git can read the evidence."""
        if not self.isolated:
            yield list(command)
            return
        write_session_identity(self.identity_dir)
        try:
            with host_command(self.profile(command)) as argv:
                yield argv
        finally:
            for path in (self.worktree, self.home):
                reclaim(path)

    def host_env(self) -> dict[str, str]:
        """The environment of the unsandboxed fallback (nothing of the caller's leaks in)."""
        path = f"{NODE_BIN_DIR}:/usr/local/bin:/usr/bin:/bin"
        return {
            "PATH": path,
            "HOME": str(self.home),
            "TMPDIR": str(self.home / "tmp"),
            "LANG": "C.UTF-8",
            **self.env,
        }
