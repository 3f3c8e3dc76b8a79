"""The rule paths the methodology page lists, and how to find each one in a round's evidence.

The lists are data on the page (`site/docs/methodology.md`): the table after
`<!-- rule-paths:showcase -->` names each path the offline showcase round shows and the unit or
route that shows it (the quick demo round shows the rows naming its six models); the table after
`<!-- rule-paths:tests -->` names the paths a demo cannot show honestly and the test that proves
each. Here every showcase path gets a finder: given the round's evidence it returns the model
keys whose evidence exercises the path.
"""

from __future__ import annotations

import json
import re
import statistics
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from records.layout import REPO_ROOT, RoundPaths, round_paths
from records.rubric import ADVANCE_MARGIN, ADVANCE_TOP

METHODOLOGY = REPO_ROOT / "site" / "docs" / "methodology.md"
SHOWCASE = "showcase"  # the table of the paths the showcase round shows; the quick demo shows some
ROW = re.compile(r"^\|\s*`(?P<id>[a-z0-9-]+)`\s*\|(?P<rest>.*)\|\s*$")
TICKED = re.compile(r"`([^`]+)`")


@dataclass(frozen=True)
class RulePath:
    id: str
    names: list[str]  # demo: model keys / routes; tests: test files and test functions
    line: int


def table(marker: str, page: Path = METHODOLOGY) -> list[RulePath]:
    """The rows of the table that follows `<!-- rule-paths:<marker> -->` on the page."""
    lines = page.read_text().splitlines()
    start = lines.index(f"<!-- rule-paths:{marker} -->")
    rows: list[RulePath] = []
    for number, line in enumerate(lines[start + 1 :], start=start + 2):
        if not line.strip():
            if rows:
                break
            continue
        match = ROW.match(line)
        if match:
            cells = match["rest"].split("|")
            rows.append(RulePath(match["id"], TICKED.findall(cells[0]), number))
    return rows


@dataclass(frozen=True)
class Evidence:
    """What the finders read: leaderboard.json, preflight records, replacement records."""

    board: dict[str, Any]
    preflight: dict[str, dict[str, Any]]
    replacements: dict[str, dict[str, Any]]
    root: Path | None = None  # the round's evidence folder, for the finders that read a unit

    def exchanges(self, unit: str) -> list[dict[str, Any]]:
        """A unit's gateway records (`units/<unit>/gateway.jsonl`), as written."""
        path = RoundPaths(self.root).unit(unit).gateway if self.root else None
        if path is None or not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]

    @classmethod
    def load(cls, round_id: str, evidence_dir: Path) -> Evidence:
        paths = round_paths(round_id, evidence_dir)
        board = json.loads(paths.leaderboard.read_text()) if paths.leaderboard.exists() else {}
        preflight = {
            p.parent.name: json.loads(p.read_text())
            for p in (paths.root / "preflight").glob("*/preflight.json")
        }
        replacements = {
            p.parent.name: json.loads(p.read_text())
            for p in paths.units_dir.glob("*/replacement.json")
        }
        return cls(board, preflight, replacements, paths.root)

    def rows(self, **match: Any) -> list[dict[str, Any]]:
        return [
            r for r in self.board.get("units", []) if all(r.get(k) == v for k, v in match.items())
        ]


Finder = Callable[[Evidence], set[str]]


def _keys(rows: list[dict[str, Any]]) -> set[str]:
    return {r["model_key"] for r in rows}


def _scored(ev: Evidence) -> list[dict[str, Any]]:
    return [r for r in ev.board.get("units", []) if r["status"] in ("ranked", "gate_failed")]


def _gate(gate: str) -> Finder:
    return lambda ev: _keys(
        [r for r in ev.rows(status="gate_failed") if gate in [g["id"] for g in r["gates_failed"]]]
    )


def _stop(stop: str) -> Finder:
    return lambda ev: _keys([r for r in _scored(ev) if r["stop_status"] == stop])


def _catalogue(failed: Callable[[dict[str, Any]], bool]) -> Finder:
    def find(ev: Evidence) -> set[str]:
        return {
            key
            for key, p in ev.preflight.items()
            if p.get("reason_class") == "catalogue"
            and not p.get("probes")
            and failed(p["catalogue"])
        }

    return find


def _component(row: dict[str, Any], dimension: str, name: str) -> dict[str, Any] | None:
    components = (row.get("breakdown") or {}).get(dimension, {}).get("components", [])
    return next((c for c in components if c["name"] == name), None)


def _false_progress(ev: Evidence) -> set[str]:
    rows = []
    for r in _scored(ev):
        part = _component(r, "verification", "progress_truthful")
        commands = (r.get("breakdown") or {}).get("verification", {}).get("points")
        if part is not None and part["points"] == 0 and commands == 0:
            rows.append(r)
    return _keys(rows)


def _own(ev: Evidence, status: str) -> list[dict[str, Any]]:
    """Rows whose own evidence gives `status`, a superseded unit's included (its own status)."""
    return [
        r
        for r in ev.board.get("units", [])
        if r["status"] == status or (r["status"] == "superseded" and r.get("own_status") == status)
    ]


def _superseded(ev: Evidence) -> set[str]:
    """A replaced unit kept as superseded by its replacement, which holds the only place."""
    rows = {r["unit"]: r for r in ev.board.get("units", [])}
    return _keys(
        [
            r
            for r in rows.values()
            if r["status"] == "superseded"
            and r["rank"] is None
            and rows.get(r["superseded_by"], {}).get("replacement_of") == r["unit"]
        ]
    )


def _replacement(ev: Evidence) -> set[str]:
    replaced = {r["replaced_unit"] for r in ev.replacements.values()}
    return _keys([r for r in ev.board.get("units", []) if r.get("replacement_of") in replaced])


def _reviews(row: dict[str, Any], dimension: str) -> list[float]:
    components = (row.get("breakdown") or {}).get(dimension, {}).get("components", [])
    return [c["points"] for c in components if c["name"].startswith("review:")]


def _aggregated(count: int) -> Finder:
    """Rows whose visual score is the median (the average of two) of exactly `count` reviews."""

    def find(ev: Evidence) -> set[str]:
        rows = []
        for r in _scored(ev):
            scores = sorted(_reviews(r, "visual"))
            if len(scores) == count and not r["provisional"]:
                expected = statistics.median(scores)
                if abs(r["breakdown"]["visual"]["points"] - expected) < 1e-9:
                    rows.append(r)
        return _keys(rows)

    return find


def _final(ev: Evidence) -> set[str]:
    board = ev.board
    held = (
        board.get("standing") == "final"
        and bool(board.get("advancing"))
        and board.get("advancing") == board.get("advancing_projected")
    )
    projected = set(board.get("advancing", []))
    return _keys(
        [r for r in ev.board.get("units", []) if held and r["candidate_code"] in projected]
    )


FINDERS: dict[str, Finder] = {
    "scored-and-ranked": lambda ev: _keys(ev.rows(status="ranked")),
    "step-ceiling": _stop("step_ceiling"),
    "budget-ceiling": _stop("budget_ceiling"),
    "resource-limit": _stop("resource_limit"),
    "gate-install-build": _gate("install-build"),
    "gate-core-journey": _gate("core-journey"),
    "gate-horizontal-overflow": _gate("horizontal-overflow"),
    "cap-lowers-total": lambda ev: _keys(
        [
            r
            for r in ev.rows(status="gate_failed")
            if r["capped"]
            and r["raw_total"] > r["total"]
            and r["total"] == ev.board["rules"]["gate_cap"]
        ]
    ),
    "false-progress-claim": _false_progress,
    "invalid-identity": lambda ev: _keys(
        [r for r in ev.rows(status="invalid") if r["identity_verdict"] == "contradicts"]
    ),
    "provider-outage": lambda ev: _keys(_own(ev, "provider_outage")),
    "harness-failure": lambda ev: _keys(ev.rows(status="harness_failure")),
    "cost-gap-flagged": lambda ev: _keys([r for r in _scored(ev) if r.get("cost_gap_flagged")]),
    "invalid-provider": lambda ev: _keys(
        [
            r
            for r in ev.rows(status="invalid")
            if any("outside the pinned" in x for x in r["invalid_reasons"])
        ]
    ),
    "stall-after-first-words": lambda ev: _keys(
        [
            r
            for r in _own(ev, "provider_outage")
            if any(
                x.get("error_class") == "provider_stall" and "after chunk" in x["error_message"]
                for x in ev.exchanges(r["unit"])
            )
        ]
    ),
    "truncated-stream": lambda ev: _keys(
        [r for r in _own(ev, "provider_outage") if r["failure_detail"].startswith("truncated")]
    ),
    "documented-replacement": _replacement,
    "superseded-unit": _superseded,
    "preflight-two-of-three": lambda ev: {
        key
        for key, p in ev.preflight.items()
        if not p.get("qualified")
        and (p.get("probes_passed"), p.get("probes_required"), len(p.get("probes", [])))
        == (2, 3, 3)
    },
    "catalogue-route-absent": _catalogue(lambda c: not c["present"]),
    "catalogue-slug-mismatch": _catalogue(lambda c: c["present"] and not c["slug_matches"]),
    "catalogue-no-tools": _catalogue(
        lambda c: c["present"] and "tools" not in c["supported_parameters"]
    ),
    "catalogue-no-tool-choice": _catalogue(
        lambda c: (
            c["present"]
            and "tools" in c["supported_parameters"]
            and "tool_choice" not in c["supported_parameters"]
        )
    ),
    "review-average-of-two": _aggregated(2),
    "review-third-reviewer": _aggregated(3),
    "within-three-of-fifth": lambda ev: _keys(
        [
            r
            for r in ev.rows(status="ranked")
            if r["rank"] > ADVANCE_TOP
            and r["advancement"]["advanced"]
            and 0 < r["advancement"]["behind_fifth"] <= ADVANCE_MARGIN
        ]
    ),
    "final-standing": _final,
}


def shown_by(cast: set[str], page: Path = METHODOLOGY) -> list[RulePath]:
    """The showcase rows a round whose cohort is `cast` must show: those naming one of its models
    (a row keeps only the names in the cast)."""
    every = table(SHOWCASE, page)
    rows = [RulePath(p.id, [n for n in p.names if n in cast], p.line) for p in every]
    return [row for row in rows if row.names]


def unexercised(
    round_id: str, evidence_dir: Path, page: Path = METHODOLOGY, cast: set[str] | None = None
) -> list[str]:
    """Each showcase row (naming a model of `cast`, when given) whose path no named unit exercises
    in the round's evidence (empty when the round shows them all)."""
    evidence = Evidence.load(round_id, evidence_dir)
    problems = []
    rows = table(SHOWCASE, page) if cast is None else shown_by(cast, page)
    for path in rows:
        finder = FINDERS.get(path.id)
        if finder is None:
            problems.append(f"{page.name}:{path.line}: `{path.id}` has no finder in {__name__}")
            continue
        found = finder(evidence)
        missing = [name for name in path.names if name not in found]
        if not found or missing:
            problems.append(
                f"{page.name}:{path.line}: `{path.id}` is not exercised by "
                f"{', '.join(missing) or 'any unit'} (found: {sorted(found) or 'none'})"
            )
    return problems
