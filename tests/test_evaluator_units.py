"""Fast unit tests: the static server's fallback, the data helpers, gates and the record."""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from evaluator.browser import CHROMIUM_ARGS, is_loopback
from evaluator.checks import CHECK_COUNT, CHECKS, CORE_JOURNEYS, DIMENSION_POINTS, MAX_POINTS
from evaluator.checks.base import has_count
from evaluator.checks.spec import Check
from evaluator.data import load_venues
from evaluator.gates import GATE_IDS, capped, compute_gates
from evaluator.serve import StaticServer, resolve
from records.evidence.evaluation import CheckResult, EvaluationResult
from records.rubric import AUTOMATED_MAX, GATE_CAP, MAX_AUTOMATED

ROOT = Path(__file__).resolve().parent.parent
TABLE_ROW = re.compile(
    r"^\| `([a-z-]+)` \| (functional|responsive|accessibility) \| (\d+) \|", re.M
)
# The contract's table of scored checks: id -> (dimension, points), in its order.
CONTRACT = {
    m[0]: (m[1], int(m[2]))
    for m in TABLE_ROW.findall((ROOT / "docs" / "acceptance-contract.md").read_text())
}


def test_checks_match_the_contract_table() -> None:
    assert [c.id for c in CHECKS] == list(CONTRACT)
    for check in CHECKS:
        assert CONTRACT[check.id] == (check.dimension, check.points)
        assert check.doc.startswith(check.id) and check.proves
    assert len(CONTRACT) == CHECK_COUNT and MAX_POINTS == MAX_AUTOMATED
    for dimension, points in AUTOMATED_MAX.items():
        assert DIMENSION_POINTS[dimension] == points
        assert sum(p for d, p in CONTRACT.values() if d == dimension) == points
    assert list(CORE_JOURNEYS) == ["filter", "detail", "enquiry"]
    assert set(CORE_JOURNEYS.values()) <= set(CONTRACT)


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
    data = load_venues()
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


def _check(check_id: str, passed: bool) -> CheckResult:
    dim, pts = CONTRACT[check_id]
    return CheckResult(
        id=check_id,
        dimension=dim,
        points=pts if passed else 0,
        max_points=pts,
        executed=True,
        passed=passed,
    )


def test_gates() -> None:
    checks = [_check(c, c != "venue-detail") for c in CONTRACT]
    gates = compute_gates(
        install_ok=True,
        build_ok=True,
        build_reason="",
        probes={"root-page": {"failed": False}, "keyboard-enquiry": {"failed": False}},
        checks=checks,
        max_overflow={"px": 17, "url": "/", "viewport": "360x780", "state": "page"},
    )
    assert [g.id for g in gates] == GATE_IDS
    failed = {g.id for g in gates if g.failed}
    assert failed == {"core-journey", "horizontal-overflow"}
    assert "detail" in next(g.reason for g in gates if g.id == "core-journey")
    assert capped(55, True) == GATE_CAP and capped(55, False) == 55


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
