"""The named sandboxes the project runs: each is a `SandboxSpec` for the one builder.

- `untrusted_build`: `npm ci` / `npm run check` / `npm run build` of a submission (the
  evaluator). Inside: `/usr`, `ETC_MINIMAL`, Node 22 at `/opt/node` (read-only), the app copy at
  `/tmp/app` and a private npm-cache copy at `/tmp/npm-cache` (both writable, handed over to the
  sandbox's host uid), a capped `/tmp`; resource limits; no network at all.
- `agent_session`: the coding agent's process (OpenCode) behind a loopback forwarder to the
  recording proxy's Unix socket. Inside: `/usr`, `SESSION_ETC`, generated `/etc/passwd`,
  `/etc/group` and `/etc/hosts` naming only the sandbox's own user and localhost (never the
  host's), Node 22 and the agent's files (read-only), the worktree at `/workspace` and a private
  HOME (writable, handed over to the sandbox's host uid), the proxy's socket folder, a capped
  `/tmp`; `SESSION_LIMITS`; no network but a private loopback.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from records.tools import NODE_BIN_DIR
from sandbox.limits import GiB, Limits
from sandbox.runner import (
    DEFAULT_OUTPUT_CAP,
    DEFAULT_TMP_SIZE,
    SANDBOX_GID,
    SANDBOX_UID,
    Bind,
    SandboxSpec,
)

NODE_DIR = "/opt/node"
NODE_PACKAGE = NODE_BIN_DIR.parent

# --- untrusted build -------------------------------------------------------------------------

APP_MOUNT = "/tmp/app"
CACHE_MOUNT = "/tmp/npm-cache"
BUILD_PATH = f"{NODE_DIR}/bin:/usr/local/bin:/usr/bin:/bin"
BUILD_ENV = {
    "PATH": BUILD_PATH,
    "HOME": "/tmp/home",
    "npm_config_cache": CACHE_MOUNT,
    "npm_config_update_notifier": "false",
    "npm_config_audit": "false",
    "npm_config_fund": "false",
    "npm_config_progress": "false",
    "CI": "1",
    "NO_COLOR": "1",
}


def untrusted_build(
    app: Path,
    cache: Path,
    argv: Sequence[str],
    *,
    timeout: float,
    output_cap: int = DEFAULT_OUTPUT_CAP,
    limits: Limits | None = None,
    tmp_size: int | None = DEFAULT_TMP_SIZE,
    node_package: Path = NODE_PACKAGE,
) -> SandboxSpec:
    """Install, type-check or build the untrusted app copy `app` with the npm cache copy `cache`.

    Both must live under a `sandbox.private_dir()` (the sandbox's host uid must reach them);
    `limits` defaults to `Limits()`.
    """
    return SandboxSpec(
        argv=list(argv),
        cwd=APP_MOUNT,
        binds=[
            Bind(node_package, NODE_DIR),
            Bind(app, APP_MOUNT, writable=True),
            Bind(cache, CACHE_MOUNT, writable=True),
        ],
        env=dict(BUILD_ENV),
        timeout=timeout,
        output_cap=output_cap,
        kill_on_output_cap=True,
        tmp_size=tmp_size,
        limits=limits if limits is not None else Limits(),
    )


# --- agent session ---------------------------------------------------------------------------

SESSION_WORKDIR = "/workspace"
SESSION_HOME = "/home/agent"
GATEWAY_DIR = "/run/gateway"
FORWARDER_MOUNT = "/opt/siteos/forward.js"
LOOPBACK_PORT = 18080
SESSION_PATH = f"{NODE_DIR}/bin:/opt/agent/bin:/usr/local/bin:/usr/bin:/bin"
# What OpenCode, Node, npm, git and a shell need of the host's /etc; the sandbox's own user and
# localhost come from `write_session_identity` instead of the host's passwd, group and hosts.
SESSION_ETC = (
    "/etc/nsswitch.conf",
    "/etc/ld.so.cache",
    "/etc/localtime",
    "/etc/alternatives",
    "/etc/ssl/openssl.cnf",
)
IDENTITY_FILES = ("passwd", "group", "hosts")
# Sized from a real OpenCode 1.17.18 session in this sandbox against the simulator (the demo's
# `idle` unit: 23 tasks in 5 processes, 519 MiB resident in total, 5.8 MiB of /tmp, 102 MiB in
# 1356 files in the worktree and HOME) with room for the `npm ci`, `tsc` and `vite build` the
# agent runs (evaluator/README.md: 33 tasks, 1.2 GiB of data in the largest process). Bun sizes
# its address-space reservations to RLIMIT_DATA (4.8 GiB of "data" under 8 GiB, 1.7 GiB under
# 2 GiB, 70 GiB unlimited) and runs under all three, so the data limit binds real allocations.
SESSION_LIMITS = Limits(
    nproc=1024,
    memory=8 * GiB,
    address_space=None,  # Bun and Node reserve tens of GiB of address space they never touch
    resident_total=8 * GiB,
    file_size=1 * GiB,
    writable_total=8 * GiB,
    open_files=8192,
)
SESSION_TMP_SIZE = 1 * GiB


def session_limits(memory: int) -> Limits:
    """`SESSION_LIMITS` with the slot's memory budget (bytes) as the resident total of all the
    sandbox's processes, and as the per-process cap when that is smaller."""
    per_process = SESSION_LIMITS.memory
    return replace(
        SESSION_LIMITS,
        resident_total=memory,
        memory=min(per_process, memory) if per_process is not None else None,
    )


def write_session_identity(folder: Path) -> Path:
    """Write the sandbox's passwd, group and hosts into `folder` (created): one user `agent`
    (the sandbox's uid) whose home is the session HOME, and localhost only."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "passwd").write_text(
        f"root:x:0:0:root:/nonexistent:/usr/sbin/nologin\n"
        f"agent:x:{SANDBOX_UID}:{SANDBOX_GID}:agent:{SESSION_HOME}:/bin/bash\n"
        "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
    )
    (folder / "group").write_text(f"root:x:0:\nagent:x:{SANDBOX_GID}:\nnogroup:x:65534:\n")
    (folder / "hosts").write_text("127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost\n")
    return folder


def agent_session(
    command: Sequence[str],
    *,
    worktree: Path,
    home: Path,
    gateway_socket: Path,
    forwarder: Path,
    identity: Path,
    ro_binds: Mapping[str, Path] | None = None,
    env: Mapping[str, str] | None = None,
    node_package: Path = NODE_PACKAGE,
    timeout: float = 3600.0,
    limits: Limits | None = SESSION_LIMITS,
    tmp_size: int | None = SESSION_TMP_SIZE,
) -> SandboxSpec:
    """The agent's sandbox: `command` behind the loopback forwarder to the proxy's socket.

    `worktree` appears at /workspace and `home` at /home/agent (both writable), `ro_binds` maps
    inside paths to host paths (read-only), the proxy's socket directory appears at /run/gateway
    and `forwarder` (harness/session/sandbox_forward.js) listens on 127.0.0.1:18080 inside;
    `identity` is a folder made by `write_session_identity`. The agent runs as `SANDBOX_UID` in
    a user namespace of its own (no capabilities), started as the unprivileged host uid when the
    caller is root, so `limits` apply in full (RLIMIT_NPROC never applies to host root).
    """
    binds = [Bind(node_package, NODE_DIR), Bind(forwarder, FORWARDER_MOUNT)]
    binds += [Bind(identity / name, f"/etc/{name}") for name in IDENTITY_FILES]
    binds += [Bind(host, inside) for inside, host in sorted((ro_binds or {}).items())]
    binds += [
        Bind(gateway_socket.parent, GATEWAY_DIR),
        Bind(home, SESSION_HOME, writable=True),
        Bind(worktree, SESSION_WORKDIR, writable=True),
    ]
    full_env = {
        "PATH": SESSION_PATH,
        "HOME": SESSION_HOME,
        "TMPDIR": "/tmp",
        "LANG": "C.UTF-8",
        "USER": "agent",
        "LOGNAME": "agent",
        **(env or {}),
    }
    socket_inside = f"{GATEWAY_DIR}/{gateway_socket.name}"
    argv = [
        f"{NODE_DIR}/bin/node",
        FORWARDER_MOUNT,
        str(LOOPBACK_PORT),
        socket_inside,
        *command,
    ]
    return SandboxSpec(
        argv=argv,
        cwd=SESSION_WORKDIR,
        binds=binds,
        etc_files=SESSION_ETC,
        env=full_env,
        timeout=timeout,
        tmp_size=tmp_size,
        limits=limits,
    )
