"""Copy an untrusted app into a private workspace and install, type-check and build it in the
sandbox: no network, read-only system, the repository and home folders hidden, only the app copy
and a private copy of the npm cache writable, time and output limits."""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from records.layout import REPO_ROOT
from records.tools import NODE_BIN_DIR, NPM_CACHE
from sandbox import Bind, SandboxResult, SandboxSpec, run_sandboxed

APP_MOUNT = "/tmp/app"
CACHE_MOUNT = "/tmp/npm-cache"
STEP_TIMEOUTS = {"install": 180.0, "check": 180.0, "build": 300.0}
STEP_COMMANDS = {
    "install": ["npm", "ci", "--offline", "--no-audit", "--no-fund"],
    "check": ["npm", "run", "check"],
    "build": ["npm", "run", "build"],
}
LOG_CAP = 2 * 1024 * 1024
IGNORED = {"node_modules", "dist", ".git"}


@dataclass
class Workspace:
    root: Path

    @property
    def app(self) -> Path:
        return self.root / "app"

    @property
    def cache(self) -> Path:
        return self.root / "npm-cache"

    @property
    def dist(self) -> Path:
        return self.app / "dist"


def copy_app(src: Path, workspace: Workspace) -> None:
    """Copy the app (without node_modules, dist, .git); symlinks stay symlinks."""
    shutil.copytree(
        src,
        workspace.app,
        symlinks=True,
        ignore=lambda folder, names: [n for n in names if n in IGNORED and Path(folder) == src],
    )
    if NPM_CACHE.is_dir():
        shutil.copytree(NPM_CACHE, workspace.cache, symlinks=True)
    else:
        workspace.cache.mkdir()


def hidden_paths() -> list[str]:
    """Folders replaced by an empty tmpfs inside the sandbox."""
    candidates = [REPO_ROOT.parent, REPO_ROOT, Path("/root"), Path("/home")]
    return [str(p) for p in dict.fromkeys(candidates) if p.is_dir() and str(p) != "/"]


def sandbox_spec(workspace: Workspace, argv: list[str], timeout: float) -> SandboxSpec:
    node_pkg = NODE_BIN_DIR.parent
    return SandboxSpec(
        argv=argv,
        cwd=APP_MOUNT,
        binds=[
            Bind(node_pkg, str(node_pkg)),
            Bind(workspace.app, APP_MOUNT, writable=True),
            Bind(workspace.cache, CACHE_MOUNT, writable=True),
        ],
        hide=hidden_paths(),
        network="none",
        env={
            "PATH": f"{NODE_BIN_DIR}:/usr/local/bin:/usr/bin:/bin",
            "HOME": "/tmp/home",
            "npm_config_cache": CACHE_MOUNT,
            "npm_config_update_notifier": "false",
            "npm_config_audit": "false",
            "npm_config_fund": "false",
            "npm_config_progress": "false",
            "CI": "1",
            "NO_COLOR": "1",
        },
        timeout=timeout,
        output_cap=LOG_CAP,
        kill_on_output_cap=True,
    )


def run_step(workspace: Workspace, name: str) -> SandboxResult:
    argv = STEP_COMMANDS[name]
    return run_sandboxed(sandbox_spec(workspace, argv, STEP_TIMEOUTS[name]))


def write_log(path: Path, result: SandboxResult) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    head = (
        f"$ {' '.join(result.argv)}\n# {result.describe()}\n"
        f"# exit code: {result.exit_code}; stdout {result.stdout_bytes} bytes; "
        f"stderr {result.stderr_bytes} bytes\n"
    )
    text = head + "\n--- stdout ---\n" + result.stdout + "\n--- stderr ---\n" + result.stderr
    path.write_text(text[: LOG_CAP * 2 + 4096], encoding="utf-8")


def make_workspace(prefix: str = "siteos-eval-") -> Workspace:
    import tempfile

    root = Path(tempfile.mkdtemp(prefix=prefix))
    os.chmod(root, 0o700)
    return Workspace(root)


def timed_copy(src: Path, workspace: Workspace) -> float:
    start = time.monotonic()
    copy_app(src, workspace)
    return round(time.monotonic() - start, 3)
