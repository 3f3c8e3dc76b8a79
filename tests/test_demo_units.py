"""Preflights and units of the demo round as the README's own command recorded them.

The shared demo build (`demo_build`, read from its pristine copy) already ran, through real
OpenCode in the sandbox against the simulator, the preflights and sessions these tests judge: a
3/3 and a 2/3 preflight and a completed unit (the showcase's step and budget ceilings and
transient 503: `tests/test_showcase.py`). Running them again in a scratch round would repeat
the same sessions; these tests read the build's records instead, and judge the write-once rules
on copies of them.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from demo_build import DemoBuild
from session_support import demo_round as scratch_round

from harness.invalidation import REQUIRED_EVIDENCE
from harness.preflight import run_preflight
from harness.replacement import ReplacementRefused, create_replacement
from harness.unit import UnitRefused, run_unit
from records.evidence.round import PreflightRecord
from records.evidence.session import SessionRecord
from records.io import read_record
from records.layout import round_paths
from records.round import Round

pytestmark = [pytest.mark.slow, pytest.mark.opencode, pytest.mark.browser]

EVIDENCE = ("session.json", *REQUIRED_EVIDENCE)  # events, trace, gateway log, commands, worktree


@pytest.fixture(scope="module")
def built(demo_round: DemoBuild) -> Path:
    return demo_round.pristine


def preflight(evidence: Path, key: str) -> PreflightRecord:
    return read_record(round_paths("demo", evidence).preflight(key), PreflightRecord)


def session(evidence: Path, unit: str) -> SessionRecord:
    return read_record(round_paths("demo", evidence).unit(unit).session, SessionRecord)


def copy_into(source_root: Path, file: Path, target_root: Path) -> Path:
    """Copy one evidence file to the same place under `target_root`."""
    target = target_root / file.relative_to(source_root)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(file, target)
    return target


def test_three_good_probes_qualify(built: Path) -> None:
    record = preflight(built, "strong-builder")
    assert record.qualified and record.verdict == "qualified" and record.reason_class is None
    assert [p.passed for p in record.probes] == [True, True, True]
    assert (record.probes_passed, record.passed_fraction) == (3, "3/3")
    assert all(p.file_edited and p.command_ran for p in record.probes)
    assert record.catalogue.passed and record.catalogue.tools_supported
    assert record.isolation.level == "bwrap-loopback-proxy"
    probe_dir = round_paths("demo", built).probe_dir("strong-builder", 1)
    for name in ("probe.json", "events.jsonl", "trace.json", "gateway.jsonl", "worktree.diff"):
        assert (probe_dir / name).is_file(), name
    assert "probe 1 ok" in (probe_dir / "worktree.diff").read_text()


def test_a_written_preflight_is_returned_not_run_again(
    built: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    record = preflight(built, "strong-builder")
    with scratch_round(tmp_path_factory) as evidence:
        copy_into(built, round_paths("demo", built).preflight("strong-builder"), evidence)
        assert run_preflight(Round.load("demo", evidence), "strong-builder") == record
        assert not round_paths("demo", evidence).probe_dir("strong-builder", 1).exists()


def test_two_of_three_is_adapter_unstable(built: Path) -> None:
    record = preflight(built, "flaky-adapter")
    assert (record.verdict, record.reason_class) == ("not_testable", "adapter_unstable")
    # every probe runs after a failure, so the literal 2/3 is on record
    assert [p.passed for p in record.probes] == [True, False, True]
    assert (record.probes_passed, record.passed_fraction) == (2, "2/3")
    assert record.reason.startswith("2/3 probes passed (3/3 required); probe 2: ")
    for n in (1, 2, 3):
        assert (round_paths("demo", built).probe_dir("flaky-adapter", n) / "probe.json").is_file()


def test_completed_unit_is_scored_and_never_rewritten(
    built: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    record = session(built, "strong-builder-r1")
    assert (record.stop_status, record.validity, record.failure_class) == (
        "completed", "valid", "none")  # fmt: skip
    assert record.exit_code == 0 and record.steps > 1 and record.cost_usd
    assert record.identity.verdict == "consistent"
    assert record.isolation.level == "bwrap-loopback-proxy"
    assert record.prompt_sha256 == record.frozen_prompt_sha256
    assert record.starter_tree_sha256 == record.frozen_starter_tree_sha256
    unit = round_paths("demo", built).unit("strong-builder-r1")
    assert set(EVIDENCE) <= {p.name for p in unit.root.iterdir()}
    with scratch_round(tmp_path_factory) as evidence:
        copied = copy_into(built, unit.session, evidence)
        before = copied.read_bytes()
        with pytest.raises(UnitRefused, match="never run or written again"):
            run_unit(Round.load("demo", evidence), "strong-builder", check_order=False)
        assert copied.read_bytes() == before
        with pytest.raises(ReplacementRefused, match="model failures are scored"):
            create_replacement(
                "demo", "strong-builder-r1", "wanted a better score", evidence_dir=evidence
            )
