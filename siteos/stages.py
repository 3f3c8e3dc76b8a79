"""The round's stages as dodo calls them: typed, each imported only when its task runs (so `doit`
and `doit list` load fast). A stage returns a record (success), a bool (False is failure) or an
exit code (0 is success); `succeeded` reads that for doit.
"""

from __future__ import annotations

from pathlib import Path


def succeeded(result: object) -> bool:
    """doit's verdict on a stage's return value."""
    if isinstance(result, bool):
        return result
    return result == 0 if isinstance(result, int) else True


def freeze(round_id: str) -> object:
    from harness.freeze import freeze

    return freeze(round_id)


def calibrate(round_id: str) -> object:
    from evaluator.calibration import calibrate

    return calibrate(round_id)


def controls(task_id: str) -> object:
    from evaluator.controls.run import run_controls
    from records.task import load_task

    return run_controls(task=load_task(task_id))


def catalogue(round_id: str) -> object:
    from harness.catalogue.stage import catalogue_stage

    return catalogue_stage(round_id)


def spend(round_id: str) -> object:
    from harness.spend import spend_stage

    return spend_stage(round_id)


def preflight(round_id: str, model_key: str) -> object:
    from harness.preflight import run_preflight

    return run_preflight(round_id, model_key)


def order(round_id: str) -> object:
    from harness.order import freeze_order

    return freeze_order(round_id)


def sessions_in_parallel(round_id: str) -> object:
    from harness.parallel import run_round

    return run_round(round_id)


def unit(round_id: str, model_key: str, repetition: int, replacement: int) -> object:
    from harness.unit import run_unit

    return run_unit(round_id, model_key, repetition, replacement=replacement)


def evaluate_unit(round_id: str, unit: str, evidence_dir: Path | None = None) -> object:
    from evaluator.unit_evaluation import evaluate_unit
    from records.layout import EVIDENCE_DIR

    return evaluate_unit(round_id, unit, evidence_dir or EVIDENCE_DIR)


def packets(round_id: str) -> object:
    from scoring import build_packets

    return build_packets(round_id)


def demo_reviews(round_id: str) -> object:
    from scoring.demo_reviews import write_demo_reviews

    return write_demo_reviews(round_id)


def score(round_id: str) -> object:
    from scoring import score_round

    return score_round(round_id)


def site(round_id: str, evidence_dir: Path, build_dir: Path) -> object:
    from publish.render import render_site

    return render_site(round_id, evidence_dir, build_dir)
