"""The named sandboxes the project runs: each is a `SandboxSpec` for the one builder.

- `untrusted_build`: `npm ci` / `npm run check` / `npm run build` of a submission (the
  evaluator). Inside: `/usr`, `ETC_MINIMAL`, Node 22 at `/opt/node` (read-only), the app copy at
  `/tmp/app` and a private npm-cache copy at `/tmp/npm-cache` (both writable, handed over to the
  sandbox's host uid), a capped `/tmp`; resource limits; no network at all.
- `agent_session`: the coding agent's OpenCode process. Reproduces exactly the command line that
  `harness/session_sandbox.py` builds (same mounts, environment, loopback-only network, the
  proxy's Unix socket and the loopback forwarder in front of the command), so the session side
  can call it with no change of behaviour; its limits are off by default for the same reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from records.tools import NODE_BIN_DIR
from sandbox.limits import Limits
from sandbox.runner import DEFAULT_OUTPUT_CAP, DEFAULT_TMP_SIZE, Bind, SandboxSpec

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
SESSION_ETC = (
    "/etc/passwd",
    "/etc/group",
    "/etc/hosts",
    "/etc/nsswitch.conf",
    "/etc/ld.so.cache",
    "/etc/localtime",
    "/etc/alternatives",
    "/etc/ssl/openssl.cnf",
)


def agent_session(
    command: Sequence[str],
    *,
    worktree: Path,
    home: Path,
    gateway_socket: Path,
    forwarder: Path,
    ro_binds: Mapping[str, Path] | None = None,
    env: Mapping[str, str] | None = None,
    node_package: Path = NODE_PACKAGE,
    timeout: float = 3600.0,
    limits: Limits | None = None,
) -> SandboxSpec:
    """The agent's sandbox: `command` behind the loopback forwarder to the proxy's socket.

    `worktree` appears at /workspace and `home` at /home/agent (both writable), `ro_binds` maps
    inside paths to host paths (read-only), the proxy's socket directory appears at /run/gateway
    and `forwarder` (harness/sandbox_forward.js) listens on 127.0.0.1:18080 inside. With the
    defaults, `bwrap_argv` of the result equals `harness.session_sandbox.SandboxSpec.argv`.
    """
    binds = [Bind(node_package, NODE_DIR), Bind(forwarder, FORWARDER_MOUNT)]
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
        tmp_size=None,
        limits=limits,
        uid=None,
        unprivileged_host=limits is not None and limits.nproc is not None,
    )
