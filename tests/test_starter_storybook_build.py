"""The Storybook starter arm works offline the two ways its units need it: the session's worktree
installs it from the warm npm cache (`create_worktree`, as the harness prepares a unit), and in the
evaluator's build sandbox (no network: a private loopback only) it installs, type-checks (its
stories too), builds the site and builds the catalogue. What the evaluator serves is `dist/`, the
site's build; the catalogue goes to storybook-static/, which git ignores."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evaluator import build
from harness.session.worktree import create_worktree, final_diff
from records.interventions import load_arm
from records.task import DEFAULT_TASK, load_task
from records.tools import copy_npm_cache
from sandbox import run_sandboxed

pytestmark = pytest.mark.slow


def test_the_session_worktree_installs_the_arms_lockfile_offline(tmp_path: Path) -> None:
    arm = load_arm("starter", "storybook")
    cache = copy_npm_cache(tmp_path / "npm-cache")
    wt = tmp_path / "wt"
    _, base = create_worktree(
        wt, cache, load_task(DEFAULT_TASK).starter, (arm.folder, arm.files), arm.replaces
    )
    installed = wt / "node_modules"
    assert (installed / "storybook/package.json").is_file()
    assert (installed / "@storybook/react-vite/package.json").is_file()
    assert (installed / ".package-lock.json").is_file()
    assert final_diff(wt, base) == b""  # the arm's files, node_modules included, are the start


def test_the_catalogue_and_the_site_build_in_the_evaluators_sandbox(tmp_path: Path) -> None:
    arm = load_arm("starter", "storybook")
    app = tmp_path / "app"
    shutil.copytree(load_task(DEFAULT_TASK).starter, app)
    shutil.copytree(arm.folder, app, dirs_exist_ok=True, ignore=shutil.ignore_patterns("arm.json"))
    workspace = build.make_workspace("siteos-storybook-")
    try:
        build.copy_app(app, workspace)
        for step in ("install", "check", "build"):  # the evaluator's own steps
            result = build.run_step(workspace, step)
            assert result.ok, f"{step}: {result.stderr[-2000:]}"
        catalogue = run_sandboxed(
            build.sandbox_spec(workspace, ["npm", "run", "storybook:build"], 300)
        )
        assert catalogue.ok, catalogue.stdout[-2000:] + catalogue.stderr[-2000:]
        assert "Storybook build completed successfully" in catalogue.stdout + catalogue.stderr
        static = workspace.app / "storybook-static"
        assert (static / "index.html").is_file() and (static / "index.json").is_file()
        stories = (static / "index.json").read_text()
        for component in ("VenueCard", "VenueMedia", "SiteHeader", "SiteFooter", "SkipLink"):
            assert f"components-{component.lower()}--" in stories, component
        # the judged build is the site's, untouched by the catalogue
        site = (workspace.dist / "index.html").read_text()
        assert "storybook" not in site.lower()
        assert not any("stories" in p.name for p in workspace.dist.rglob("*"))
    finally:
        shutil.rmtree(workspace.root, ignore_errors=True)
