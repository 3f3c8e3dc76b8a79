"""The frozen run order: drawn once from the round seed before the first scored unit.

Qualified routes (3/3 preflight probes) are shuffled with `random.Random(seed)` into a base order;
repetition r of R runs the base order rotated left by round((r-1)·n/R) positions (n routes), so
the R repetitions start at evenly spaced points of the base order. With R = 3 every model runs
once in the early, once in the middle and once in the late third of its repetition's run
(`position_classes`; a position that straddles a third's boundary belongs to both thirds, which
is unavoidable when 3 does not divide n). The rule is written beside the order in `order.json`,
which is never rewritten.
"""

from __future__ import annotations

import random

from harness.session.evidence import now_iso
from records.evidence.round import OrderRecord, PreflightRecord
from records.io import read_record, write_record
from records.round import Round
from records.unit_ids import unit_id


class OrderError(RuntimeError):
    """The order cannot be drawn (preflight missing) or would change a frozen order."""


ROTATION_RULE = (
    "base order: the qualified routes shuffled with random.Random(seed); repetition r of R runs "
    "the base order rotated left by round((r-1)*n/R) positions (n routes, halves rounded up), "
    "so with R = 3 each model runs once early, once in the middle and once late"
)


def base_order(qualified: list[str], seed: int) -> list[str]:
    """The seeded shuffle of the qualified model keys (repetition 1's order)."""
    keys = list(qualified)
    random.Random(seed).shuffle(keys)
    return keys


def shift(repetition: int, n: int, repetitions: int) -> int:
    """How far repetition r's order is rotated: round((r-1)·n/R), halves up, modulo n."""
    if n == 0:
        return 0
    return ((2 * (repetition - 1) * n + repetitions) // (2 * repetitions)) % n


def rotated(keys: list[str], by: int) -> list[str]:
    return keys[by:] + keys[:by]


def draw(qualified: list[str], seed: int, repetitions: int = 1) -> list[str]:
    """Unit ids in run order: the seeded base order of the qualified entrants' keys, rotated
    per repetition (`shift`)."""
    keys = base_order(qualified, seed)
    units: list[str] = []
    for rep in range(1, repetitions + 1):
        units += [unit_id(k, rep) for k in rotated(keys, shift(rep, len(keys), repetitions))]
    return units


def position_classes(position: int, n: int) -> set[int]:
    """The thirds (0 early, 1 middle, 2 late) that run position `position` (0-based) of n covers:
    slot [p, p+1) of the run overlaps third c = [c·n/3, (c+1)·n/3)."""
    first = 3 * position // n
    last = -(-3 * (position + 1) // n) - 1
    return set(range(first, last + 1))


def preflight_verdicts(rnd: Round) -> dict[str, bool]:
    """Every entrant's preflight verdict (each route, or each route with each agent of an
    intervention round); refuses while one is missing."""
    verdicts: dict[str, bool] = {}
    missing = []
    for entrant in rnd.entrants():
        path = rnd.paths.preflight(entrant.key)
        if not path.exists():
            missing.append(entrant.key)
            continue
        verdicts[entrant.key] = read_record(path, PreflightRecord).qualified
    if missing:
        raise OrderError(f"preflight missing for {', '.join(missing)}: run preflight first")
    return verdicts


def freeze_order(rnd: Round) -> OrderRecord:
    """Write order.json once; later calls return it and refuse if the qualified set changed."""
    settings, paths = rnd.settings, rnd.paths
    verdicts = preflight_verdicts(rnd)
    qualified = [k for k, ok in verdicts.items() if ok]
    if paths.order.exists():
        frozen = read_record(paths.order, OrderRecord)
        if sorted(frozen.qualified) != sorted(qualified):
            raise OrderError(
                f"{paths.order} is frozen with qualified {frozen.qualified}; preflight now says "
                f"{qualified}. The order is never redrawn: start a new round."
            )
        return frozen
    scored = paths.units_with("session")
    if scored:
        raise OrderError(f"units already ran without a frozen order ({scored[:3]}): new round")
    reps = settings.repetitions
    record = OrderRecord(
        round_id=rnd.id,
        seed=settings.seed,
        drawn_at=now_iso(),
        qualified=qualified,
        not_testable=[k for k, ok in verdicts.items() if not ok],
        order=draw(qualified, settings.seed, settings.repetitions),
        base_order=base_order(qualified, settings.seed),
        shifts=[shift(r, len(qualified), settings.repetitions) for r in range(1, reps + 1)],
        rule=ROTATION_RULE,
    )
    write_record(paths.order, record)
    return record
