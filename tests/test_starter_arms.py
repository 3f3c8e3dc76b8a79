"""The starter factor's arms (benchmark/interventions/starter/): `plain` the baseline and
`storybook` the component catalogue: its lockfile pins, telemetry off, its stories, its
`replaces` (arm.json schema 2) and the worktree it gives a unit. The offline install and builds in
the evaluator's sandbox are `tests/test_starter_storybook_build.py`."""

from __future__ import annotations

import io
import json
import re
import shutil
import tarfile
from pathlib import Path
from typing import Any

import pytest

from harness.advance import advance
from harness.session.worktree import WorktreeError, archive_bytes, create_worktree, final_diff
from records.inputs import load_round
from records.interventions import ArmManifest, InterventionSpec, load_arm, load_arms
from records.io import RecordError
from records.task import DEFAULT_TASK, load_task

REPO = Path(__file__).resolve().parent.parent
STARTER = InterventionSpec(factor="starter", arms=["plain", "storybook"])
STARTER_APP = load_task(DEFAULT_TASK).starter
PINNED = "10.6.9"  # scripts/generate_starter_arms.py STORYBOOK_VERSION


def _storybook() -> Path:
    return load_arm("starter", "storybook").folder


def _json(path: Path) -> Any:
    return json.loads(path.read_text())


def test_the_starter_arms_load_with_plain_as_the_baseline_and_no_placebo() -> None:
    plain, storybook = load_arms(STARTER)
    assert plain.manifest.baseline and plain.files == [] and plain.replaces == []
    assert not storybook.manifest.baseline and not storybook.manifest.placebo
    assert storybook.manifest.generated is not None
    assert storybook.manifest.generated.version == PINNED
    assert (REPO / storybook.manifest.generated.script).is_file()
    assert sorted(storybook.replaces) == [".gitignore", "package-lock.json", "package.json"]


def test_storybook_is_pinned_exactly_and_the_starters_packages_keep_their_versions() -> None:
    package = _json(_storybook() / "package.json")
    lock = _json(_storybook() / "package-lock.json")
    starter_package = _json(STARTER_APP / "package.json")
    starter_lock = _json(STARTER_APP / "package-lock.json")
    dev = package["devDependencies"]
    assert dev["storybook"] == PINNED and dev["@storybook/react-vite"] == PINNED
    assert all(re.fullmatch(r"\d+\.\d+\.\d+", v) for v in dev.values()), dev  # exact pins
    assert lock["packages"][""]["devDependencies"] == dev
    assert lock["packages"]["node_modules/storybook"]["version"] == PINNED
    assert lock["packages"]["node_modules/@storybook/react-vite"]["version"] == PINNED
    vite = lock["packages"]["node_modules/vite"]["version"]
    assert int(vite.split(".")[0]) >= 5  # @storybook/react-vite needs Vite 5 or later
    # nothing of the starter moves: same dependencies, same locked versions, same scripts
    assert package["dependencies"] == starter_package["dependencies"]
    for name, entry in starter_lock["packages"].items():
        if name:
            assert lock["packages"][name]["version"] == entry["version"], name
    assert {k: v for k, v in package["scripts"].items() if k != "storybook:build"} == (
        starter_package["scripts"]
    )
    # every package resolvable from a warm cache: `npm ci --offline` needs resolved + integrity
    for name, entry in lock["packages"].items():
        if name and not entry.get("link"):
            assert entry.get("resolved", "").startswith("https://registry.npmjs.org/"), name
            assert entry.get("integrity", "").startswith("sha512-"), name


def test_telemetry_is_off_in_the_config_and_where_the_catalogue_builds() -> None:
    main = (_storybook() / ".storybook/main.ts").read_text()
    assert re.search(r"disableTelemetry:\s*true", main)
    assert "@storybook/react-vite" in main
    build = _json(_storybook() / "package.json")["scripts"]["storybook:build"]
    assert build.startswith("STORYBOOK_DISABLE_TELEMETRY=1 storybook build")
    assert "--disable-telemetry" in build


def test_every_starter_component_has_stories_and_the_catalogue_output_is_ignored() -> None:
    components = sorted(p.stem for p in (STARTER_APP / "src/components").glob("*.tsx"))
    stories = sorted(
        p.name.removesuffix(".stories.tsx")
        for p in (_storybook() / "src/components").glob("*.stories.tsx")
    )
    assert components and stories == components
    for name in stories:
        text = (_storybook() / f"src/components/{name}.stories.tsx").read_text()
        assert f"from './{name}'" in text and "satisfies Meta<" in text
    ignore = (_storybook() / ".gitignore").read_text().splitlines()
    starter = (STARTER_APP / ".gitignore").read_text().splitlines()
    assert ignore[: len(starter)] == starter
    assert "storybook-static/" in ignore


def _starter_arm(root: Path, arm: str, files: dict[str, str], **fields: Any) -> None:
    folder = root / "starter" / arm
    folder.mkdir(parents=True)
    for rel, text in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    manifest = {
        "id": arm, "factor": "starter", "title": arm, "adds": "files", "baseline": False,
        "placebo": False, "source": "a test", **fields,
    }  # fmt: skip
    (folder / "arm.json").write_text(json.dumps(manifest))


def test_only_a_starter_arm_replaces_and_only_the_files_it_names(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="only a starter arm replaces"):
        ArmManifest.model_validate(
            {
                "id": "m",
                "factor": "method",
                "title": "m",
                "adds": "x",
                "baseline": False,
                "placebo": False,
                "source": "s",
                "replaces": ["README.md"],
            }  # fmt: skip
        )
    with pytest.raises(ValueError, match="needs schema_version 2"):
        ArmManifest.model_validate(
            {
                "schema_version": 1,
                "id": "s",
                "factor": "starter",
                "title": "s",
                "adds": "x",
                "baseline": False,
                "placebo": False,
                "source": "s",
                "replaces": ["a"],
            }  # fmt: skip
        )
    _starter_arm(tmp_path, "stray", {"a.txt": "a"}, replaces=["b.txt"])
    with pytest.raises(RecordError, match=r"arm.json: field replaces: b.txt not in the arm"):
        load_arm("starter", "stray", tmp_path)
    # schema 1 (every method arm committed before) still loads and replaces nothing
    assert load_arm("method", "tracer-bullets").manifest.schema_version == 1
    assert load_arm("method", "tracer-bullets").replaces == []


def _mini_starter(root: Path) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "src/main.ts").write_text("export {};\n")
    (root / "README.md").write_text("# Starter\n")
    (root / ".gitignore").write_text("node_modules/\ndist/\n")
    return root


def test_a_replacement_is_the_base_commit_and_an_undeclared_one_is_refused(
    tmp_path: Path,
) -> None:
    starter = _mini_starter(tmp_path / "starter")
    _starter_arm(
        tmp_path / "arms", "cat",
        {".gitignore": "node_modules/\ndist/\nstorybook-static/\n", "src/a.stories.ts": "x\n"},
        replaces=[".gitignore"],
    )  # fmt: skip
    arm = load_arm("starter", "cat", tmp_path / "arms")
    bare_hash, _ = create_worktree(tmp_path / "bare", tmp_path / "cache", starter)
    wt = tmp_path / "wt"
    tree_hash, base = create_worktree(
        wt, tmp_path / "cache", starter, (arm.folder, arm.files), arm.replaces
    )
    assert tree_hash == bare_hash  # hashed as the frozen starter, before the arm's files
    assert "storybook-static/" in (wt / ".gitignore").read_text()
    assert final_diff(wt, base) == b""
    (wt / "storybook-static").mkdir()
    (wt / "storybook-static/index.html").write_text("<html></html>\n")
    (wt / "src/main.ts").write_text("export const a = 1;\n")
    diff = final_diff(wt, base).decode()
    assert "src/main.ts" in diff and "storybook-static" not in diff and ".gitignore" not in diff
    with tarfile.open(fileobj=io.BytesIO(archive_bytes(wt))) as tar:
        names = tar.getnames()
    assert "worktree/src/main.ts" in names and not any("storybook-static" in n for n in names)
    with pytest.raises(WorktreeError, match=r"the starter already has \.gitignore.*`replaces`"):
        create_worktree(tmp_path / "wt2", tmp_path / "cache", starter, (arm.folder, arm.files))
    gone = tmp_path / "starter-without-ignore"
    shutil.copytree(starter, gone)
    (gone / ".gitignore").unlink()
    with pytest.raises(WorktreeError, match="which the starter does not have"):
        create_worktree(
            tmp_path / "wt3", tmp_path / "cache", gone, (arm.folder, arm.files), arm.replaces
        )


def test_the_starter_rounds_load_and_the_real_one_is_refused_until_round_1_is_final(
    tmp_path: Path,
) -> None:
    """demo-starter runs the two arms offline; round-2-starter is a real round of OpenCode on
    Round 1's champion cohort in each starter arm, the fixed controls kept, refused until Round 1's
    model leaderboard advances its models (as round-2-method)."""
    demo = load_round("demo-starter")
    assert (demo.factor, demo.arm_ids, demo.kind) == ("starter", ["plain", "storybook"], "demo")
    real = load_round("round-2-starter", require_cohort=False)
    assert real.kind == "real" and real.advances_from == "round-1"
    assert (real.factor, real.arm_ids) == ("starter", ["plain", "storybook"])
    assert real.agent == load_round("round-0").agent and not real.control_differences
    with pytest.raises(RecordError, match=r"run python -m harness.advance round-1 --to round-2"):
        load_round("round-2-starter")
    with pytest.raises(RecordError, match=r"round-1-cohort.json does not exist yet"):
        advance("round-1", "round-2-starter", evidence_dir=tmp_path, out=tmp_path / "c.json")
