"""The frozen-round tag: made on a clean tree with a passing calibration, checked later."""

from __future__ import annotations

import json
from pathlib import Path

import git
import pytest

import harness.freeze as freeze_stage
from publish import tag
from records.io import write_json
from records.layout import round_paths
from records.round import Round

ROUND = "round-0"


@pytest.fixture
def repo(frozen_inputs: Path) -> Path:
    """A git repo holding a frozen round's evidence; prompt and starter live beside it."""
    root = frozen_inputs / "repo"
    evidence = root / "evidence"
    freeze_stage.freeze(Round.load(ROUND, evidence))
    calibrated(evidence, passed=True)
    repository = git.Repo.init(root)
    with repository.config_writer() as config:
        config.set_value("user", "name", "Bench")
        config.set_value("user", "email", "bench@example.invalid")
    commit_all(repository)
    return root


def calibrated(evidence: Path, passed: bool) -> None:
    write_json(
        round_paths(ROUND, evidence).calibration,
        {"passed": passed, "automated_score": 26 if passed else 31, "checks_executed": 15},
    )


def commit_all(repository: git.Repo) -> None:
    repository.git.add(A=True)
    repository.index.commit("evidence")


def test_tag_records_every_hash(repo: Path) -> None:
    name = tag.create_tag(Round.load(ROUND, repo / "evidence"), repo)
    message = git.Repo(repo).tags[name].tag.message  # type: ignore[union-attr]
    body = json.loads(message.split(tag.MARKER, 1)[1])
    expected = {"prompt_sha256", "starter_tree_sha256", "cohort_sha256", "settings_sha256",
                "evaluator_sha256", "tool_versions_sha256"}  # fmt: skip
    assert set(body["fingerprint"]) == expected
    assert body["calibration"]["automated_score"] == 26
    assert all(f"{key}: {value}" in message for key, value in body["fingerprint"].items())
    assert tag.check_tag(Round.load(ROUND), repo) == []


def test_check_names_what_differs(repo: Path, tmp_path: Path) -> None:
    tag.create_tag(Round.load(ROUND, repo / "evidence"), repo)
    (tmp_path / "tasks/atlas-rooms/prompt.md").write_bytes(b"Build the site!\n")
    differences = tag.check_tag(Round.load(ROUND), repo)
    assert len(differences) == 1 and differences[0].startswith("prompt_sha256:")


def test_dirty_tree_is_refused(repo: Path) -> None:
    (repo / "stray.txt").write_text("uncommitted\n")
    with pytest.raises(tag.TagRefused, match="dirty.*stray.txt"):
        tag.create_tag(Round.load(ROUND, repo / "evidence"), repo)


@pytest.mark.parametrize("state", ["failed", "missing"])
def test_failed_or_missing_calibration_is_refused(repo: Path, state: str) -> None:
    path = round_paths(ROUND, repo / "evidence").calibration
    if state == "failed":
        calibrated(repo / "evidence", passed=False)
    else:
        path.unlink()
    commit_all(git.Repo(repo))
    with pytest.raises(tag.TagRefused, match="calibration|doit calibrate"):
        tag.create_tag(Round.load(ROUND, repo / "evidence"), repo)


def test_changed_inputs_since_the_freeze_are_refused(repo: Path, tmp_path: Path) -> None:
    (tmp_path / "tasks/atlas-rooms/starter/src/main.ts").write_text("export {};\n")
    with pytest.raises(tag.TagRefused, match="starter_tree_sha256"):
        tag.create_tag(Round.load(ROUND, repo / "evidence"), repo)


def test_a_round_is_tagged_once(repo: Path) -> None:
    tag.create_tag(Round.load(ROUND, repo / "evidence"), repo)
    with pytest.raises(tag.TagRefused, match="already exists"):
        tag.create_tag(Round.load(ROUND, repo / "evidence"), repo)


def test_check_without_a_tag_is_refused(repo: Path) -> None:
    with pytest.raises(tag.TagRefused, match="no annotated tag"):
        tag.check_tag(Round.load(ROUND), repo)
