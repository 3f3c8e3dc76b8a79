"""The frozen run order: drawn once from the round seed before the first scored unit.

Qualified routes (3/3 preflight probes) are shuffled with `random.Random(seed)`; repetition r runs
the same order rotated by r-1 (Round 1's rotated order). `order.json` is never rewritten.
"""

from __future__ import annotations

import random
from pathlib import Path

from harness.session.evidence import now_iso
from records.evidence.round import OrderRecord, PreflightRecord
from records.inputs import load_cohort, load_round
from records.io import read_record, write_record
from records.layout import EVIDENCE_DIR, round_paths, unit_id


class OrderError(RuntimeError):
    """The order cannot be drawn (preflight missing) or would change a frozen order."""


def draw(qualified: list[str], seed: int, repetitions: int = 1) -> list[str]:
    """Unit ids in run order: one seeded shuffle, rotated by one per repetition."""
    keys = list(qualified)
    random.Random(seed).shuffle(keys)
    units: list[str] = []
    for rep in range(1, repetitions + 1):
        shift = (rep - 1) % len(keys) if keys else 0
        units += [unit_id(k, rep) for k in keys[shift:] + keys[:shift]]
    return units


def preflight_verdicts(round_id: str, evidence_dir: Path = EVIDENCE_DIR) -> dict[str, bool]:
    """Every cohort candidate's preflight verdict; refuses while one is missing."""
    settings = load_round(round_id)
    paths = round_paths(round_id, evidence_dir)
    verdicts: dict[str, bool] = {}
    missing = []
    for candidate in load_cohort(settings.cohort_path).candidates:
        path = paths.preflight(candidate.key)
        if not path.exists():
            missing.append(candidate.key)
            continue
        verdicts[candidate.key] = read_record(path, PreflightRecord).qualified
    if missing:
        raise OrderError(f"preflight missing for {', '.join(missing)}: run preflight first")
    return verdicts


def freeze_order(round_id: str, evidence_dir: Path = EVIDENCE_DIR) -> OrderRecord:
    """Write order.json once; later calls return it and refuse if the qualified set changed."""
    settings = load_round(round_id)
    paths = round_paths(round_id, evidence_dir)
    verdicts = preflight_verdicts(round_id, evidence_dir)
    qualified = [k for k, ok in verdicts.items() if ok]
    if paths.order.exists():
        frozen = read_record(paths.order, OrderRecord)
        if sorted(frozen.qualified) != sorted(qualified):
            raise OrderError(
                f"{paths.order} is frozen with qualified {frozen.qualified}; preflight now says "
                f"{qualified}. The order is never redrawn: start a new round."
            )
        return frozen
    scored = sorted(p.parent.name for p in paths.units_dir.glob("*/session.json"))
    if scored:
        raise OrderError(f"units already ran without a frozen order ({scored[:3]}): new round")
    record = OrderRecord(
        round_id=round_id,
        seed=settings.seed,
        drawn_at=now_iso(),
        qualified=qualified,
        not_testable=[k for k, ok in verdicts.items() if not ok],
        order=draw(qualified, settings.seed, settings.repetitions),
    )
    write_record(paths.order, record)
    return record


def read_order(round_id: str, evidence_dir: Path = EVIDENCE_DIR) -> OrderRecord:
    path = round_paths(round_id, evidence_dir).order
    if not path.exists():
        raise OrderError(f"{path} missing: freeze the run order (after preflight) first")
    return read_record(path, OrderRecord)
