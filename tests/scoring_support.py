"""Builders for the scoring tests: real session/result records and a round folder in tmp."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evaluator.checks import GATE_ORDER
from harness.agents.opencode import OpenCodeAgent
from harness.session.evidence import save_trace
from records.evidence.agent import AgentTrace
from records.evidence.evaluation import EvaluationResult
from records.evidence.round import OrderRecord
from records.evidence.session import SessionRecord
from records.inputs import Cohort, load_cohort
from records.io import read_record, write_record
from records.layout import BENCHMARK_DIR, round_paths
from scoring.evidence import RoundContext

CHECKS = [  # the acceptance contract's 15 checks: id, dimension, points
    ("catalogue-listing", "functional", 4),
    ("filter-journey", "functional", 6),
    ("url-state", "functional", 5),
    ("venue-detail", "functional", 5),
    ("enquiry-form", "functional", 5),
    ("no-overflow", "responsive", 5),
    ("responsive-layout", "responsive", 4),
    ("long-copy", "responsive", 4),
    ("media-fallback", "responsive", 4),
    ("mobile-nav", "responsive", 3),
    ("keyboard-focus", "accessibility", 3),
    ("dialog-focus", "accessibility", 3),
    ("semantics", "accessibility", 3),
    ("reduced-motion", "accessibility", 3),
    ("axe", "accessibility", 3),
]
GATES = list(GATE_ORDER)


def demo_cohort() -> Cohort:
    path = BENCHMARK_DIR / "showcase-cohort.json"
    return load_cohort(path if path.exists() else BENCHMARK_DIR / "models.json")


def session(model_key: str = "strong-builder", **overrides: Any) -> SessionRecord:
    """A valid, completed session record; override any field."""
    data: dict[str, Any] = {
        "unit": f"{model_key}-r1",
        "round_id": "test",
        "model_key": model_key,
        "repetition": 1,
        "agent": {"name": "opencode", "version": "1.17.18"},
        "gateway_kind": "simulator",
        "requested_route": "demo-northwind/builder-1",
        "expected_slug": "demo-northwind/builder-1-20261001",
        "identity": {
            "requested_route": "demo-northwind/builder-1",
            "expected_slug": "demo-northwind/builder-1-20261001",
            "observed_models": ["demo-northwind/builder-1-20261001"],
            "observed_providers": ["Northwind Cloud"],
            "verdict": "consistent",
        },
        "steps": 12,
        "stop_status": "completed",
        "exit_code": 0,
        "elapsed_seconds": 600.0,
        "tokens": {"prompt": 1000, "completion": 200},
        "cost_usd": 1.25,
        "gateway": {},
        "ceilings": {"steps": 40, "wall_clock_seconds": 1800, "budget_usd": 10},
        "isolation": {"level": "unsandboxed"},
        "validity": "valid",
        "failure_class": "none",
        "prompt_sha256": None,
        "starter_tree_sha256": None,
        "frozen_prompt_sha256": None,
        "frozen_starter_tree_sha256": None,
        "started_at": "2026-11-30T00:00:00Z",
        "finished_at": "2026-11-30T00:10:00Z",
    }
    data.update(overrides)
    return SessionRecord.model_validate(data)


def result(
    failed: tuple[str, ...] = (),
    not_executed: tuple[str, ...] = (),
    gates: tuple[str, ...] = (),
    build_ok: bool = True,
    **overrides: Any,
) -> EvaluationResult:
    """An evaluation result: every check passes unless named in `failed`/`not_executed`."""
    checks: list[dict[str, Any]] = []
    for check_id, dimension, points in CHECKS:
        ran = check_id not in not_executed
        ok = ran and check_id not in failed
        checks.append(
            {
                "id": check_id,
                "dimension": dimension,
                "points": points if ok else 0,
                "max_points": points,
                "executed": ran,
                "passed": ok,
                "diagnostics": [] if ok else [{"expected": "x", "seen": "y"}],
            }
        )
    journeys = {
        "filter": "failed" if "filter-journey" in failed else "passed",
        "detail": "failed" if "venue-detail" in failed else "passed",
        "enquiry": "failed" if "enquiry-form" in failed else "passed",
    }
    score = sum(c["points"] for c in checks)
    data: dict[str, Any] = {
        "app_dir": "/app",
        "automated_score": score,
        "capped_score": min(score, 49) if gates else score,
        "checks": checks,
        "gates": [
            {"id": g, "failed": g in gates, "reason": "broken" if g in gates else ""} for g in GATES
        ],
        "hard_gate_failed": bool(gates),
        "core_journeys": journeys,
        "checks_executed": 15 - len(not_executed),
        "install_ok": True,
        "check_ok": build_ok,
        "build_ok": build_ok,
        "timings": {},
        "tool_versions": {},
        "screenshots": [
            {
                "page": "home",
                "state": "settled",
                "viewport": "360x800",
                "path": "screenshots/home-360.png",
                "url": "http://127.0.0.1/",
            },
        ],
        "video": "video.webm",
    }
    data.update(overrides)
    return EvaluationResult.model_validate(data)


def bash_event(
    command: str, exit_code: int | None = 0, status: str = "completed"
) -> dict[str, Any]:
    """One OpenCode `tool_use` event for the bash tool, as `--format json` prints it."""
    return {
        "type": "tool_use",
        "timestamp": 1796077736166,
        "sessionID": "ses_dd16cbb0cffeOqRJMA6omQr1PK",
        "part": {
            "type": "tool",
            "tool": "bash",
            "callID": "call_1",
            "state": {
                "status": status,
                "input": {"command": command, "description": "run"},
                "output": "",
                "metadata": {"output": "", "exit": exit_code},
            },
        },
    }


def write_events(path: Path, commands: list[tuple[str, int | None]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps({"type": "step_start", "part": {"type": "step-start"}})]
    lines += [json.dumps(bash_event(cmd, code)) for cmd, code in commands]
    path.write_text("\n".join(lines) + "\n")


def trace_of(events: Path) -> AgentTrace:
    """The neutral trace the OpenCode adapter reads from `events` (the harness's own reader)."""
    return OpenCodeAgent().read_trace(events)


TRUTHFUL_PROGRESS = """# Progress

- [x] Catalogue with filters and URL state (`npm run check`, `npm run build`)
- [x] Venue detail page, verified with `npm run build`
- [ ] Polish the dialog animation
"""


def make_round(tmp_path: Path, cohort: Cohort | None = None, seed: int = 7) -> RoundContext:
    return RoundContext(
        round_id="test",
        seed=seed,
        cohort=cohort or demo_cohort(),
        paths=round_paths("test", tmp_path),
    )


def in_order(ctx: RoundContext, unit: str) -> None:
    """Add `unit` to the round's order.json (written when the first unit is)."""
    order = (
        read_record(ctx.paths.order, OrderRecord)
        if ctx.paths.order.exists()
        else OrderRecord(
            round_id=ctx.round_id,
            seed=ctx.seed,
            drawn_at="2026-11-30T00:00:00Z",
            qualified=[],
            not_testable=[],
            order=[],
        )  # fmt: skip
    )
    if unit not in order.order:
        key = unit.rsplit("-r", 1)[0]
        qualified = order.qualified + ([key] if key not in order.qualified else [])
        order = order.model_copy(update={"order": [*order.order, unit], "qualified": qualified})
        write_record(ctx.paths.order, order)


def make_unit(
    ctx: RoundContext,
    model_key: str,
    record: SessionRecord | None = None,
    evaluation: EvaluationResult | None = None,
    commands: list[tuple[str, int | None]] | None = None,
    progress: str | None = TRUTHFUL_PROGRESS,
    diff: str = "diff --git a/src/App.tsx b/src/App.tsx\n+// hello\n",
) -> str:
    """Write one unit's evidence; returns the unit id. A unit that replaces none joins the
    round's frozen order (order.json, in the order made), as the order stage would have drawn it:
    scoring counts only the order's units and their documented replacements."""
    record = record or session(model_key, unit=f"{model_key}-r1")
    paths = ctx.paths.unit(record.unit)
    if record.replacement_of is None:
        in_order(ctx, record.unit)
    write_record(paths.session, record)
    write_events(
        paths.events,
        commands if commands is not None else [("npm run check", 0), ("npm run build", 0)],
    )
    save_trace(paths, trace_of(paths.events))  # trace.json, as the harness does
    paths.diff.write_text(diff)
    if progress is not None:
        paths.progress.write_text(progress)
    if evaluation is not None:
        write_record(paths.result, evaluation)
        (paths.evaluation / "screenshots").mkdir(parents=True, exist_ok=True)
        (paths.evaluation / "screenshots" / "home-360.png").write_bytes(b"\x89PNG\r\n\x1a\n\0fake")
        (paths.evaluation / "video.webm").write_bytes(b"\x1aE\xdf\xa3\0fake")
    return record.unit
