"""Fast unit tests: the static server's fallback, the data helpers, gates and the record."""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from evaluator.browser import CHROMIUM_ARGS, is_loopback
from evaluator.check_set import check_set
from evaluator.checks import CHECKS
from evaluator.checks.base import has_count
from evaluator.checks.spec import Check
from evaluator.data import load_venues
from evaluator.gates import capped, compute_gates, evaluator_errors, journey_statuses
from evaluator.serve import StaticServer, resolve
from records.evidence.evaluation import (
    RESULT_SCHEMA_VERSION,
    CheckResult,
    Diagnostic,
    EvaluationResult,
    GateResult,
)
from records.rubric import AUTOMATED_MAX, GATE_CAP, MAX_AUTOMATED
from records.task import DEFAULT_TASK, load_task

TASK = load_task(DEFAULT_TASK)

ROOT = Path(__file__).resolve().parent.parent
TABLE_ROW = re.compile(
    r"^\| `([a-z-]+)` \| (functional|responsive|accessibility) \| (\d+) \|", re.M
)
# The contract's table of scored checks: id -> (dimension, points), in its order.
CONTRACT = {m[0]: (m[1], int(m[2])) for m in TABLE_ROW.findall(TASK.contract.read_text())}


def test_checks_match_the_contract_table() -> None:
    assert [c.id for c in CHECKS] == list(CONTRACT)
    for check in CHECKS:
        assert CONTRACT[check.id] == (check.dimension, check.points)
        assert check.doc.startswith(check.id) and check.proves
    atlas = check_set("evaluator.checks")
    assert len(CONTRACT) == len(atlas.checks) and atlas.max_points == MAX_AUTOMATED
    for dimension, points in AUTOMATED_MAX.items():
        assert atlas.dimension_points()[dimension] == points
        assert sum(p for d, p in CONTRACT.values() if d == dimension) == points
    assert list(atlas.core_journeys) == ["filter", "detail", "enquiry"]
    assert set(atlas.core_journeys.values()) <= set(CONTRACT)


def test_a_check_spec_states_what_it_is() -> None:
    run = CHECKS[0].run
    with pytest.raises(ValueError, match="docstring"):
        Check(id="x", dimension="functional", points=1, run=run, doc="y: proves nothing")
    with pytest.raises(ValueError, match="points"):
        Check(id="x", dimension="functional", points=0, run=run, doc="x: proves")
    with pytest.raises(ValueError, match="journey-critical"):
        Check(id="x", dimension="functional", points=1, run=run, doc="x: p", journey="filter")


def test_checks_never_use_class_selectors() -> None:
    for path in (Path(__file__).resolve().parent.parent / "evaluator" / "checks").glob("*.py"):
        text = path.read_text()
        assert "venue-card" not in text and "querySelector('." not in text, path


def test_launch_flags_keep_chromium_on_loopback() -> None:
    for flag in (
        "--disable-background-networking",
        "--disable-quic",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
    ):
        assert flag in CHROMIUM_ARGS
    assert any(a.startswith("--host-resolver-rules=MAP * ~NOTFOUND") for a in CHROMIUM_ARGS)
    assert is_loopback("http://127.0.0.1:8000/x") and is_loopback("data:image/png;base64,AA")
    assert not is_loopback("https://fonts.googleapis.com/css") and not is_loopback(
        "http://10.0.0.1/"
    )


def test_count_phrases() -> None:
    assert has_count("14 venues", 14) and has_count("Showing 1 venue", 1)
    assert not has_count("1 venues", 1) and not has_count("114 venues", 14)
    assert not has_count("14 venue", 14)


def test_data_helpers() -> None:
    data = load_venues(TASK.data)
    assert len(data.venues) == 14
    assert len(data.longest_name.name) > 60 and len(data.longest_description.description) > 1500
    assert data.matching({"loft"}) == [v for v in data.venues if v.type == "loft"]
    boundary = data.venues[0].capacity
    assert data.venues[0] in data.matching(guests=boundary)


def test_static_server_fallback(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text("<h1>app</h1>")
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "a.js").write_text("1")
    (tmp_path.parent / "secret.txt").write_text("no")
    assert resolve(tmp_path, "/venues/x")[1] is True
    assert resolve(tmp_path, "/media/missing.webp")[0] is None
    assert resolve(tmp_path, "/../secret.txt")[0] is None
    with StaticServer(tmp_path) as server:
        assert (
            urllib.request.urlopen(server.url + "/venues/abc?type=loft").read() == b"<h1>app</h1>"
        )
        assert urllib.request.urlopen(server.url + "/assets/a.js").read() == b"1"
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(server.url + "/media/missing.webp")
        assert err.value.code == 404


def _check(
    check_id: str, passed: bool, critical: bool | None = None, executed: bool = True
) -> CheckResult:
    """A check result; a failed one carries one diagnostic, journey-critical when `critical`."""
    dim, pts = CONTRACT[check_id]
    diagnostics = []
    if not passed:
        diagnostics = [Diagnostic(expected="x", seen="y", journey_critical=bool(critical))]
    return CheckResult(
        id=check_id,
        dimension=dim,
        points=pts if passed else 0,
        max_points=pts,
        executed=executed,
        passed=passed,
        diagnostics=diagnostics,
    )


PROBES_OK: dict[str, dict[str, object]] = {
    "root-page": {"failed": False},
    "keyboard-enquiry": {"failed": False},
}


ATLAS = check_set("evaluator.checks")
JOURNEYS = ATLAS.core_journeys


def _gates(checks: list[CheckResult], probes: dict[str, dict[str, object]] = PROBES_OK) -> dict:
    gates = compute_gates(
        install_ok=True,
        build_ok=True,
        build_reason="",
        probes=probes,
        checks=checks,
        journeys=JOURNEYS,
        probe_gates=list(ATLAS.probes),
        check_gates=ATLAS.check_gates,
        max_overflow={"px": 17, "url": "/", "viewport": "360x780", "state": "page"},
        order=ATLAS.gate_order,
    )
    assert [g.id for g in gates] == list(ATLAS.gate_order) == ATLAS.gate_ids
    return {g.id: g for g in gates}


def test_gates() -> None:
    checks = [_check(c, c != "venue-detail", critical=True) for c in CONTRACT]
    gates = _gates(checks)
    failed = {g.id for g in gates.values() if g.failed}
    assert failed == {"core-journey", "horizontal-overflow"}
    assert "detail" in gates["core-journey"].reason
    assert all(g.status == ("failed" if g.failed else "passed") for g in gates.values())
    assert capped(55, True) == GATE_CAP and capped(55, False) == 55


def test_core_journey_fails_only_on_journey_critical_problems() -> None:
    # The count's live region missing, a fact's term renamed: the checks fail, the journeys hold.
    checks = [_check(c, c not in JOURNEYS.values(), critical=False) for c in CONTRACT]
    gates = _gates(checks)
    assert not gates["core-journey"].failed and gates["core-journey"].status == "passed"
    assert set(journey_statuses(checks, JOURNEYS).values()) == {"passed"}
    assert sum(c.points for c in checks) < MAX_AUTOMATED
    checks[1] = _check("filter-journey", False, critical=True)
    assert _gates(checks)["core-journey"].failed
    assert journey_statuses(checks, JOURNEYS)["filter"] == "failed"


def test_evaluator_errors_are_never_gate_failures() -> None:
    probes = {"root-page": {"failed": False, "reason": "KeyError: x", "evaluator_error": True}}
    checks = [_check(c, True) for c in CONTRACT]
    checks[3] = _check("venue-detail", False, executed=False)
    checks[-1] = _check("axe", False, executed=False)
    gates = _gates(checks, probes)
    errored = {g.id for g in gates.values() if g.status == "evaluator_error"}
    assert errored == {"root-page", "core-journey", "axe-serious", "keyboard-enquiry"}
    assert not any(gates[g].failed for g in errored)
    errors = evaluator_errors(None, list(gates.values()), checks, built=True)
    assert any(e.startswith("gate root-page: ") for e in errors)
    assert any(e.startswith("check venue-detail: ") for e in errors)
    # A submission that did not build: its unrun checks and gates are its own failure.
    unbuilt = compute_gates(
        install_ok=True,
        build_ok=False,
        build_reason="build: exit 1",
        probes={},
        checks=[_check(c, False, executed=False) for c in CONTRACT],
        journeys=JOURNEYS,
        probe_gates=list(ATLAS.probes),
        check_gates=ATLAS.check_gates,
        max_overflow={"px": 0},
    )
    assert all(g.failed and g.status == "failed" for g in unbuilt)
    assert evaluator_errors(None, unbuilt, [], built=False) == []


def test_schema_1_results_still_load() -> None:
    gate = GateResult.model_validate({"id": "root-page", "failed": True, "reason": "blank"})
    assert gate.status == "failed"
    diag = Diagnostic.model_validate({"expected": "x", "seen": "y"})
    assert diag.journey_critical is False
    assert RESULT_SCHEMA_VERSION == 3  # 3: core_journeys is the task's own mapping


def test_result_record_names() -> None:
    fields = set(EvaluationResult.model_fields)
    for name in (
        "automated_score",
        "max_automated",
        "checks",
        "gates",
        "hard_gate_failed",
        "core_journeys",
        "timings",
        "tool_versions",
    ):
        assert name in fields
    assert {"id", "dimension", "points", "max_points", "executed", "passed", "diagnostics"} <= set(
        CheckResult.model_fields
    )
