"""Leaderboard downloads: a flat CSV of the rows and the JSON of the round's leaderboard."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from publish.banner import RoundFacts
from publish.views import DIMENSIONS, Row

CSV_COLUMNS = (
    "rank",
    "unit",
    "candidate_code",
    "model_key",
    "display_name",
    "route",
    "group",
    "status",
    "total",
    "raw_total",
    "capped",
    "provisional",
    "eligible",
    "advances",
    *(f"points_{key}" for key, _, _ in DIMENSIONS),
    "elapsed_seconds",
    "cost_usd",
    "tokens",
    "stop_status",
    "validity",
    "failure_class",
    "invalid_reasons",
    "superseded_by",
    "replacement_of",
    "evidence_missing",
    "round_id",
    "round_kind",
    "harness",
    "agent",
    "evaluator_sha256",
    "billed_usd",
    "task",
    "headline",
    "rank_under_reviews",
)
"""Five columns name the round on every row, so a copied file says where it came from; the
bill beside the metered cost came after them, then the task (id and version) the round ran, the
board's headline claim (leaderboard.json `claim`) and each ranked unit's rank range with its
reviews at either end of its reviewers' range (`review_stability`, a one-run round; e.g. `1-3`)
(new columns go last: positions stay)."""


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def row_values(row: Row, facts: RoundFacts) -> list[Any]:
    return [
        row.rank,
        row.unit,
        row.code,
        row.model_key,
        row.display_name,
        row.route,
        row.group,
        row.status,
        row.total,
        row.raw_total,
        row.capped,
        row.provisional,
        row.eligible,
        row.advances,
        *(row.breakdown.get(key) for key, _, _ in DIMENSIONS),
        row.elapsed_seconds,
        row.cost_usd,
        row.tokens,
        row.stop_status,
        row.validity,
        row.failure_class,
        "; ".join(row.invalid_reasons),
        row.superseded_by,
        row.replaces,
        "; ".join(row.evidence_missing),
        facts.round_id,
        facts.kind,
        facts.harness,
        facts.agent_of(row.agent),
        facts.evaluator_sha,
        row.billed_usd,
        facts.task_ref,
        facts.headline,
        row.rank_under_reviews,
    ]


def leaderboard_csv(rows: list[Row], facts: RoundFacts) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in rows:
        writer.writerow([_cell(value) for value in row_values(row, facts)])
    return buffer.getvalue()


def provisional_json(rows: list[Row], facts: RoundFacts) -> str:
    """Before scoring has run: the provisional rows the site shows (evaluator points only)."""
    data = {
        "round_id": facts.round_id,
        "round_kind": facts.kind,
        "provisional": True,
        "note": "scoring has not run: evaluator points only",
        "rows": [dict(zip(CSV_COLUMNS, row_values(row, facts), strict=True)) for row in rows],
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
