"""A session's worktree: a fresh git-initialised copy of the starter outside the repository.

The copy is hashed exactly like the freeze stage hashes the task's `starter/`
(`records.hashing`), so the unit can prove it started from the frozen bytes. Dependencies come
from a private, writable copy of the warm npm cache, offline. After the session: the diff against
the starter commit and an archive.

The harness never runs git on the agent's `.git` (the agent could set `core.fsmonitor`, a clean
filter or `diff.external` there, which the harness's git would run on the host): `git_init` keeps
a copy of the starter repository beside the worktree (`base_git_dir`), and `final_diff` runs
against that copy with the worktree as its work tree.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import tarfile
from collections.abc import Collection
from pathlib import Path

from records.hashing import TREE_EXCLUDED_DIRS, tree_sha256
from records.tools import NODE_BIN_DIR

EXCLUDED = ("node_modules", "dist", ".git")
ARCHIVE_EXCLUDED = (*EXCLUDED, "storybook-static")
"""Build output the archive leaves out too: a catalogue build (a starter arm's `npm run
storybook:build`) is never judged, and git ignores it like dist/."""
GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "siteos-bench",
    "GIT_AUTHOR_EMAIL": "bench@localhost",
    "GIT_COMMITTER_NAME": "siteos-bench",
    "GIT_COMMITTER_EMAIL": "bench@localhost",
    "GIT_AUTHOR_DATE": "2000-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z",
}


class WorktreeError(RuntimeError):
    """The worktree could not be prepared (a harness failure, never the model's)."""


def base_git_dir(root: Path) -> Path:
    """The harness's own copy of the starter repository of worktree `root` (beside it)."""
    return root.with_name(f"{root.name}.git")


def _git(
    root: Path, *args: str, check: bool = True, git_dir: Path | None = None
) -> subprocess.CompletedProcess[bytes]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(root),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        **GIT_IDENTITY,
    }
    if git_dir is not None:
        env.update({"GIT_DIR": str(git_dir), "GIT_WORK_TREE": str(root)})
    safe = ("-c", "core.hooksPath=/dev/null", "-c", "commit.gpgsign=false", "-c", "core.fsmonitor=")
    result = subprocess.run(
        ["git", *safe, *args],
        cwd=root,
        env=env,
        capture_output=True,
        timeout=120,
    )
    if check and result.returncode != 0:
        detail = result.stderr.decode(errors="replace")
        raise WorktreeError(f"git {' '.join(args)} failed: {detail}")
    return result


def copy_tree(source: Path, dest: Path) -> Path:
    """Copy `source` to `dest` (which must not exist), leaving out node_modules, dist and .git."""
    shutil.copytree(source, dest, symlinks=True, ignore=shutil.ignore_patterns(*EXCLUDED))
    return dest


def git_init(root: Path) -> str:
    """`git init` + one commit of everything; returns the commit the final diff is taken against."""
    _git(root, "init", "-q", "-b", "main")
    exclude = root / ".git" / "info" / "exclude"
    exclude.parent.mkdir(parents=True, exist_ok=True)
    exclude.write_text("node_modules/\ndist/\n")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "--allow-empty", "-m", "starter")
    shutil.copytree(root / ".git", base_git_dir(root), symlinks=True)
    return _git(root, "rev-parse", "HEAD").stdout.decode().strip()


def install_dependencies(root: Path, npm_cache: Path, timeout: float = 300) -> None:
    """`npm ci --offline` from the private cache, with Node 22 first on PATH."""
    if not (root / "package-lock.json").exists():
        return
    env = {
        "PATH": f"{NODE_BIN_DIR}:/usr/bin:/bin",
        "HOME": str(npm_cache.parent),
        "npm_config_cache": str(npm_cache),
        "npm_config_update_notifier": "false",
    }
    cmd = ["npm", "ci", "--offline", "--no-audit", "--no-fund", "--ignore-scripts"]
    result = subprocess.run(cmd, cwd=root, env=env, capture_output=True, timeout=timeout)
    if result.returncode != 0:
        tail = result.stderr.decode(errors="replace")[-2000:]
        raise WorktreeError(f"npm ci --offline failed in {root}: {tail}")


def add_arm_files(
    dest: Path, folder: Path, files: list[str], replaces: Collection[str] = ()
) -> None:
    """Copy an intervention arm's `files` (relative to its `folder`) into the worktree `dest`,
    refusing a path that leaves it or a file the starter already has, unless the arm declares
    that it replaces it (`replaces`: a starter arm's package.json, say)."""
    root = dest.resolve()
    for rel in files:
        target = (dest / rel).resolve()
        if not target.is_relative_to(root) or target == root:
            raise WorktreeError(f"{folder / rel}: an arm file must stay inside the worktree")
        if target.exists() and rel not in replaces:
            raise WorktreeError(
                f"{folder / rel}: the starter already has {rel}; an arm only adds files "
                "unless its arm.json `replaces` names them"
            )
        if rel in replaces and not target.is_file():
            raise WorktreeError(f"{folder / rel}: replaces {rel}, which the starter does not have")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(folder / rel, target, follow_symlinks=False)


def create_worktree(
    dest: Path,
    npm_cache: Path,
    starter: Path,
    arm: tuple[Path, list[str]] | None = None,
    replaces: Collection[str] = (),
) -> tuple[str, str]:
    """Copy and hash the starter at `dest`, add the arm's files (`(folder, files)`, an
    intervention round's; `replaces`: the starter files they may replace), `git init` (so the
    base commit holds them: the final diff counts only what the session changed), then install
    offline (a starter arm's own lockfile, when it replaces the starter's).

    Returns (starter_tree_sha256 of the copy before the arm's files, base commit id).
    """
    copy_tree(starter, dest)
    tree_hash = tree_sha256(dest, TREE_EXCLUDED_DIRS)
    if arm is not None:
        add_arm_files(dest, *arm, replaces=replaces)
    base = git_init(dest)
    install_dependencies(dest, npm_cache)
    return tree_hash, base


def final_diff(root: Path, base: str) -> bytes:
    """Everything the session changed against the starter commit (new files too, binary-safe),
    read through the harness's copy of the repository (the agent's `.git` is never used)."""
    git_dir = base_git_dir(root)
    if not git_dir.is_dir():
        raise WorktreeError(f"{git_dir} is missing: the starter repository copy of {root}")
    _git(root, "add", "-A", check=False, git_dir=git_dir)
    diff = ("diff", "--cached", "--binary", "--no-ext-diff", "--no-textconv", base)
    return _git(root, *diff, check=False, git_dir=git_dir).stdout


def _tar_filter(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
    parts = Path(info.name).parts
    if any(part in ARCHIVE_EXCLUDED for part in parts[1:]):
        return None
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    return info


def archive_bytes(root: Path, name: str = "worktree") -> bytes:
    """A tar.gz of the final tree without node_modules, dist, .git and storybook-static."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        tar.add(root, arcname=name, filter=_tar_filter)
    return buffer.getvalue()
