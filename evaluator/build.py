"""Copy an untrusted app into a private workspace and install, type-check and build it in the
`sandbox.profiles.untrusted_build` sandbox: nothing of the host inside but `/usr`, two `/etc`
entries, Node 22 (read-only), the app copy and a private copy of the npm cache (writable); no
network; process, memory, file-size and open-file limits; time and output limits."""

from __future__ import annotations

import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from records.tools import copy_npm_cache
from sandbox import Limits, SandboxResult, SandboxSpec, private_dir, run_sandboxed
from sandbox.profiles import untrusted_build

STEP_TIMEOUTS = {"install": 180.0, "check": 180.0, "build": 300.0}
STEP_COMMANDS = {
    "install": ["npm", "ci", "--offline", "--no-audit", "--no-fund"],
    "check": ["npm", "run", "check"],
    "build": ["npm", "run", "build"],
}
LOG_CAP = 2 * 1024 * 1024
LIMITS = Limits()  # processes, memory, file size, open files: the profile's defaults
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


def copy_app(src: Path, workspace: Workspace, *, npm_cache: bool = True) -> None:
    """Copy the app (without node_modules, dist, .git); symlinks stay symlinks; and, unless
    `npm_cache` is False (nothing will be installed), a private copy of the npm cache's
    content-addressed entries (`records.tools.copy_npm_cache`)."""
    shutil.copytree(
        src,
        workspace.app,
        symlinks=True,
        ignore=lambda folder, names: [n for n in names if n in IGNORED and Path(folder) == src],
    )
    if npm_cache:  # its content-addressed entries only: never the _logs other npm runs rotate
        copy_npm_cache(workspace.cache)
    else:
        workspace.cache.mkdir()


def sandbox_spec(workspace: Workspace, argv: list[str], timeout: float) -> SandboxSpec:
    """The `untrusted_build` sandbox for one step."""
    return untrusted_build(
        workspace.app, workspace.cache, argv, timeout=timeout, output_cap=LOG_CAP, limits=LIMITS
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
        f"# limit hit: {result.limit_hit or 'none'}; {result.usage.describe()}\n"
    )
    text = head + "\n--- stdout ---\n" + result.stdout + "\n--- stderr ---\n" + result.stderr
    path.write_text(text[: LOG_CAP * 2 + 4096], encoding="utf-8")


def link_node_modules(node_modules: Path, workspace: Workspace) -> float:
    """Give the workspace's app a hard-linked copy of an installed `node_modules` (folders are
    fresh, files share inodes: a few thousand links instead of an `npm ci`); returns seconds.
    Only for trusted apps whose lockfile matches the one `node_modules` was installed from (the
    controls); a build that rewrote a linked file in place would change it for every copy."""
    if not (node_modules / ".package-lock.json").is_file():
        raise FileNotFoundError(f"{node_modules}: not an installed node_modules (no lockfile)")
    start = time.monotonic()
    subprocess.run(
        ["cp", "-al", str(node_modules), str(workspace.app / "node_modules")],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return round(time.monotonic() - start, 3)


def make_workspace(prefix: str = "siteos-eval-") -> Workspace:
    """A fresh 0700 folder that only the evaluator and the sandbox's host uid can enter."""
    return Workspace(private_dir(prefix))


def timed_copy(src: Path, workspace: Workspace, *, npm_cache: bool = True) -> float:
    start = time.monotonic()
    copy_app(src, workspace, npm_cache=npm_cache)
    return round(time.monotonic() - start, 3)
