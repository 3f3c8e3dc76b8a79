"""Is a result.json one the round's judge could have written for the round's task? One rule for
the leaderboard and the replacement command (an evaluator failure is replaceable).

    frozen_judge(paths) -> Judge          the task's checks and the evaluator digest the round froze
    result_problems(result, judge, manifest) -> [why]   empty: count it

A result is counted only when it has exactly the task's check ids, once each, each in its own
dimension with its own maximum, no check above its maximum, no dimension above the rubric's
maximum (functional 25, responsive 20, accessibility 15), and (when the evaluation's manifest
recorded one) the evaluator digest round.json froze. Anything else makes the unit "evaluation
failed" with the reason named: never a larger total.

The task's checks are those the round's calibration ran (`calibration/result.json`: the
untouched starter judged by the round's evaluator lists every check of the task, with its
dimension and maximum: a record, so neither scoring nor the harness imports the evaluator). A
round without a calibration result is checked against the rubric alone: ids once each, maxima,
and each dimension's maxima adding up to the rubric's.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from records.evidence.evaluation import EvaluationResult
from records.evidence.manifest import EvidenceManifest
from records.evidence.round import RoundRecord
from records.io import read_record, readable
from records.layout import EvaluationPaths, RoundPaths
from records.rubric import AUTOMATED_MAX


@dataclass(frozen=True)
class TaskCheck:
    dimension: str
    max_points: int


@dataclass(frozen=True)
class Judge:
    checks: dict[str, TaskCheck] = field(default_factory=dict)
    """The task's check ids (empty: not known, the rubric alone is checked)."""
    evaluator_sha256: str | None = None
    """round.json's frozen evaluator digest (None before the freeze)."""


def frozen_judge(paths: RoundPaths) -> Judge:
    """The round's task checks (its calibration result) and frozen evaluator digest."""
    calibration = EvaluationPaths(paths.calibration_dir).result
    checks: dict[str, TaskCheck] = {}
    if readable(calibration, EvaluationResult):
        result = read_record(calibration, EvaluationResult)
        checks = {c.id: TaskCheck(c.dimension, c.max_points) for c in result.checks}
    digest = None
    if paths.round_json.is_file():
        digest = read_record(paths.round_json, RoundRecord).evaluator_sha256
    return Judge(checks, digest)


def result_problems(
    result: EvaluationResult, judge: Judge, manifest: EvidenceManifest | None
) -> list[str]:
    """Why `result` cannot be counted for this round's task (empty when it can)."""
    problems: list[str] = []
    counts = Counter(c.id for c in result.checks)
    twice = sorted(i for i, n in counts.items() if n > 1)
    if twice:
        problems.append(f"check ids listed more than once: {', '.join(twice)}")
    if judge.checks:
        extra = sorted(set(counts) - set(judge.checks))
        absent = sorted(set(judge.checks) - set(counts))
        if extra:
            problems.append(f"checks the task does not have: {', '.join(extra)}")
        if absent:
            problems.append(f"task checks missing from the result: {', '.join(absent)}")
    for check in result.checks:
        task = judge.checks.get(check.id)
        if task is not None and (check.dimension, check.max_points) != (
            task.dimension,
            task.max_points,
        ):
            problems.append(
                f"check {check.id}: {check.dimension}, max {check.max_points}; the task's is "
                f"{task.dimension}, max {task.max_points}"
            )
        if check.points > check.max_points:
            problems.append(f"check {check.id}: {check.points} points above its maximum "
                            f"{check.max_points}")  # fmt: skip
    for dimension, maximum in AUTOMATED_MAX.items():
        mine = [c for c in result.checks if c.dimension == dimension]
        points = sum(c.points for c in mine)
        if points > maximum:
            problems.append(f"{dimension}: {points} points above the dimension's {maximum:g}")
        if not judge.checks and sum(c.max_points for c in mine) != maximum:
            problems.append(
                f"{dimension}: checks worth {sum(c.max_points for c in mine)}, the rubric's "
                f"{maximum:g}"
            )
    judged_by = manifest.evaluator_sha256 if manifest is not None else None
    if judged_by is not None and judge.evaluator_sha256 not in (None, judged_by):
        problems.append(
            f"judged by evaluator {judged_by[:12]}, the round froze {judge.evaluator_sha256[:12]}"
            ": evaluate it again with the round's evaluator"
        )
    return problems
