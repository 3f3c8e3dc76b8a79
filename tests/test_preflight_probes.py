"""Preflight through real OpenCode against the simulator, inside the loopback-only sandbox."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from session_support import demo_round

from harness.preflight import run_preflight
from harness.session.sandbox import bwrap_available
from records.evidence.round import PreflightRecord
from records.io import read_record
from records.layout import round_paths
from records.round import Round
from records.tools import OPENCODE

pytestmark = [
    pytest.mark.opencode,
    pytest.mark.slow,
    pytest.mark.skipif(not OPENCODE.exists(), reason="OpenCode missing: run scripts/setup"),
    pytest.mark.skipif(not bwrap_available(), reason="bubblewrap missing: run scripts/setup"),
]


@pytest.fixture(scope="module")
def evidence(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with demo_round(tmp_path_factory) as ev:
        yield ev


@pytest.mark.parametrize(
    ("key", "detail"),
    [
        ("missing-route", "not in /models"),
        ("no-tool-choice", "tool_choice"),
        ("slug-mismatch", "demo-tangent/drift-1-20261020"),  # the catalogue's slug, named
        ("no-tools", "tools"),
    ],
)
def test_catalogue_failures_are_not_testable(evidence: Path, key: str, detail: str) -> None:
    record = run_preflight(Round.load("showcase", evidence), key)
    assert (record.verdict, record.reason_class, record.probes) == ("not_testable", "catalogue", [])
    assert detail in record.reason
    assert read_record(round_paths("showcase", evidence).preflight(key), PreflightRecord) == record


def test_provider_errors_are_route_provider(evidence: Path) -> None:
    record = run_preflight(Round.load("showcase", evidence), "probe-404")
    assert (record.verdict, record.reason_class) == ("not_testable", "route_provider")
    assert [p.error_classes for p in record.probes] == [["no_endpoint"]] * 3
    assert record.passed_fraction == "0/3"
