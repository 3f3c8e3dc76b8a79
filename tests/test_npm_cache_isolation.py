"""The judge's inputs are isolated from other users of the shared npm cache (issue 49).

An evaluation once failed because an `npm` process elsewhere rotated a log file in the shared
`.tools/npm-cache/_logs` while the evaluator copied the whole cache into its workspace. The
evaluator (and the runner's worktree) now take only the cache's content-addressed entries
(`records.tools.copy_npm_cache`). The fault injected: a copy of the real shared cache whose `_logs`
and `_cacache/tmp` hold what no copier can read (a named pipe, as a log another process holds
open stands for) and a log that vanishes; the workspace's copy is made and `npm ci --offline`
installs the real starter from it in the evaluator's own sandbox.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import records.tools
from evaluator import build
from records.task import DEFAULT_TASK, load_task
from records.tools import NPM_CACHE, NPM_CACHE_ENTRIES

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


def relative_files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


@pytest.fixture
def busy_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The real shared cache, copied, with files other npm processes are in the middle of."""
    if not (NPM_CACHE / "_cacache" / "content-v2").is_dir():
        pytest.fail(f"{NPM_CACHE}: no warm npm cache (run scripts/setup)")
    shared = tmp_path / "shared-npm-cache"
    shutil.copytree(NPM_CACHE, shared, symlinks=True)
    (shared / "_logs").mkdir(exist_ok=True)
    os.mkfifo(shared / "_logs" / "2026-12-07T02_54_37_193Z-debug-0.log.rotating")
    (shared / "_cacache" / "tmp").mkdir(exist_ok=True)
    os.mkfifo(shared / "_cacache" / "tmp" / "a1b2c3d4")
    monkeypatch.setattr(records.tools, "NPM_CACHE", shared)
    monkeypatch.setattr(build, "NPM_CACHE", shared, raising=False)  # read by older builds
    return shared


def test_the_evaluator_copies_only_the_content_addressed_entries(
    busy_cache: Path, tmp_path: Path
) -> None:
    """A log or temp file in use elsewhere cannot fail the copy, and none of it is taken."""
    app = tmp_path / "app-src"
    shutil.copytree(load_task(DEFAULT_TASK).starter, app)
    workspace = build.make_workspace("siteos-npm-cache-")
    try:
        build.copy_app(app, workspace)
        copied = relative_files(workspace.cache)
        wanted = set().union(
            *(
                {f"{entry}/{f}" for f in relative_files(busy_cache / entry)}
                for entry in NPM_CACHE_ENTRIES
            )
        )
        assert copied == wanted and wanted
        assert not (workspace.cache / "_logs").exists()
        assert not (workspace.cache / "_cacache" / "tmp").exists()
        install = build.run_step(workspace, "install")  # npm ci --offline, in the sandbox
        assert install.ok, install.stderr[-2000:]
        assert (workspace.app / "node_modules" / ".package-lock.json").is_file()
    finally:
        shutil.rmtree(workspace.root, ignore_errors=True)


def test_an_entry_removed_mid_copy_is_skipped(busy_cache: Path, tmp_path: Path) -> None:
    """A content entry another process removes while the copy runs (`npm cache clean`) is
    skipped, not a failure of the copy (npm then names what it lacks)."""
    index = sorted((busy_cache / "_cacache" / "index-v5").rglob("*"))
    gone = next(p for p in index if p.is_file())
    original = shutil.copyfile

    def racing_copy(src: str | Path, dst: str | Path, **kwargs: bool) -> object:
        if Path(src) == gone:
            gone.unlink()  # removed between the listing and the copy
        return original(src, dst, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(shutil, "copyfile", racing_copy)
        records.tools.copy_npm_cache(tmp_path / "cache", busy_cache)
    assert not (tmp_path / "cache" / gone.relative_to(busy_cache)).exists()
    assert (tmp_path / "cache" / "_cacache" / "content-v2").is_dir()
