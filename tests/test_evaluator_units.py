"""Fast unit tests: the static server's fallback, the data helpers, gates and the record."""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path

import pytest

from evaluator.browser import CHROMIUM_ARGS, is_loopback
from evaluator.checks import CHECKS, CORE_JOURNEYS
from evaluator.checks.base import has_count
from evaluator.data import load_venues
from evaluator.gates import GATE_IDS, capped, compute_gates
from evaluator.serve import StaticServer, resolve
from records.evidence.evaluation import CheckResult, EvaluationResult

CONTRACT = {
    "catalogue-listing": ("functional", 4),
    "filter-journey": ("functional", 6),
    "url-state": ("functional", 5),
    "venue-detail": ("functional", 5),
    "enquiry-form": ("functional", 5),
    "no-overflow": ("responsive", 5),
    "responsive-layout": ("responsive", 4),
    "long-copy": ("responsive", 4),
    "media-fallback": ("responsive", 4),
    "mobile-nav": ("responsive", 3),
    "keyboard-focus": ("accessibility", 3),
    "dialog-focus": ("accessibility", 3),
    "semantics": ("accessibility", 3),
    "reduced-motion": ("accessibility", 3),
    "axe": ("accessibility", 3),
}


def test_checks_match_the_contract_table() -> None:
    assert [m.ID for m in CHECKS] == list(CONTRACT)
    for module in CHECKS:
        assert CONTRACT[module.ID] == (module.DIMENSION, module.POINTS)
        assert module.__doc__ and module.__doc__.startswith(module.ID)
    assert sum(m.POINTS for m in CHECKS) == 60
    assert set(CORE_JOURNEYS.values()) <= set(CONTRACT)


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
        points=pts if passed else 0,  # type: ignore[arg-type]
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
    assert capped(55, True) == 49 and capped(55, False) == 55


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
