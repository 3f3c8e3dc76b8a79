"""The session sandbox: bubblewrap with no network but a loopback forwarder to the proxy.

Inside, the agent sees `/usr` (read-only), a few `/etc` files, Node 22 and its own tools
(read-only), its worktree at `/workspace` (writable), a private HOME with a private npm cache, a
private `/tmp`, and the recording proxy's Unix socket. Nothing of the repository, `evaluator/`,
`evidence/`, other units or the host's HOME. `--unshare-net` leaves only loopback; a small Node
forwarder listens on 127.0.0.1 inside and pipes to the proxy socket.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from records.evidence.session import Isolation
from records.tools import NODE_BIN_DIR

FORWARDER = Path(__file__).with_name("sandbox_forward.js")
WORKDIR = "/workspace"
HOME = "/home/agent"
NODE_DIR = "/opt/node"
GATEWAY_DIR = "/run/gateway"
LOOPBACK_PORT = 18080
ETC_FILES = (
    "/etc/passwd",
    "/etc/group",
    "/etc/hosts",
    "/etc/nsswitch.conf",
    "/etc/ld.so.cache",
    "/etc/localtime",
    "/etc/alternatives",
    "/etc/ssl/openssl.cnf",
)
PATH_INSIDE = f"{NODE_DIR}/bin:/opt/agent/bin:/usr/local/bin:/usr/bin:/bin"

# The read-only system every sandbox starts from (merged /usr), then /proc and /dev; shared by the
# availability probe and the session so the probe tests the namespaces a session really needs.
SYSTEM_ROOT = (
    *("--ro-bind", "/usr", "/usr"),
    *("--symlink", "usr/bin", "/bin"),
    *("--symlink", "usr/lib", "/lib"),
    *("--symlink", "usr/lib64", "/lib64"),
)
KERNEL_FS = ("--proc", "/proc", "--dev", "/dev")
BWRAP_DETAILS = [
    "bubblewrap: new pid/ipc/uts/cgroup/net namespaces, no capabilities, --die-with-parent",
    "network: loopback only; the recording proxy via a bind-mounted Unix socket",
    "filesystem: / and tools read-only; worktree, private HOME + npm cache writable; tmpfs /tmp",
    "hidden: repository, evaluator/, evidence/, other units, host HOME",
]


class SandboxUnavailable(RuntimeError):
    """bubblewrap is missing or does not work here; paid units refuse to run without it."""


@functools.cache
def bwrap_available() -> bool:
    """True when `bwrap` exists and can create the namespaces the session needs."""
    if shutil.which("bwrap") is None:
        return False
    probe = ["bwrap", "--unshare-all", "--die-with-parent", *SYSTEM_ROOT, *KERNEL_FS, "true"]
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

    @property
    def workdir(self) -> str:
        return WORKDIR if self.isolated else str(self.worktree)

    @property
    def home_inside(self) -> str:
        return HOME if self.isolated else str(self.home)

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

    def argv(self, command: list[str]) -> list[str]:
        """The full command line: bwrap + forwarder + `command`, or `command` when unsandboxed."""
        if not self.isolated:
            return list(command)
        args = [
            "bwrap",
            "--unshare-all",
            "--die-with-parent",
            "--new-session",
            *SYSTEM_ROOT,
            *("--symlink", "usr/sbin", "/sbin"),
            *KERNEL_FS,
            *("--tmpfs", "/tmp"),
        ]
        for etc in ETC_FILES:
            args += ["--ro-bind-try", etc, etc]
        args += ["--ro-bind", str(NODE_BIN_DIR.parent), NODE_DIR]
        args += ["--ro-bind", str(FORWARDER), "/opt/siteos/forward.js"]
        for inside, host in sorted(self.ro_binds.items()):
            args += ["--ro-bind", str(host), inside]
        args += ["--ro-bind", str(self.gateway_socket.parent), GATEWAY_DIR]
        args += ["--bind", str(self.home), HOME, "--bind", str(self.worktree), WORKDIR]
        args += ["--remount-ro", "/", "--chdir", WORKDIR, "--clearenv"]
        env = {"PATH": PATH_INSIDE, "HOME": HOME, "TMPDIR": "/tmp", "LANG": "C.UTF-8", **self.env}
        for key, value in sorted(env.items()):
            args += ["--setenv", key, value]
        socket_inside = f"{GATEWAY_DIR}/{self.gateway_socket.name}"
        args += [
            "--",
            f"{NODE_DIR}/bin/node",
            "/opt/siteos/forward.js",
            str(LOOPBACK_PORT),
            socket_inside,
            *command,
        ]
        return args

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
