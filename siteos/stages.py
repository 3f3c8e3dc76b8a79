"""The round's stages as dodo calls them: typed, each imported only when its task runs (so `doit`
and `doit list` load fast), each handed the one `Round` dodo built. A stage returns a record
(success), a bool (False is failure) or an exit code (0 is success); `succeeded` reads that for
doit.
"""

from __future__ import annotations

from pathlib import Path

from records.round import Round


def succeeded(result: object) -> bool:
    """doit's verdict on a stage's return value."""
    if isinstance(result, bool):
        return result
    return result == 0 if isinstance(result, int) else True


def freeze(rnd: Round) -> object:
    from harness.freeze import freeze

    return freeze(rnd)


def calibrate(rnd: Round) -> object:
    from evaluator.calibration import calibrate

    return calibrate(rnd)


def controls(rnd: Round) -> object:
    from evaluator.controls.run import run_controls

    return run_controls(task=rnd.task)


def catalogue(rnd: Round) -> object:
    from harness.catalogue.stage import catalogue_stage

    return catalogue_stage(rnd)


def spend(rnd: Round) -> object:
    from harness.spend import spend_stage

    return spend_stage(rnd)


def preflight(rnd: Round, model_key: str) -> object:
    from harness.preflight import run_preflight

    return run_preflight(rnd, model_key)


def order(rnd: Round) -> object:
    from harness.order import freeze_order

    return freeze_order(rnd)


def sessions_in_parallel(rnd: Round) -> object:
    from harness.parallel import run_round

    return run_round(rnd)


def unit(rnd: Round, model_key: str, repetition: int, replacement: int) -> object:
    from harness.unit import run_unit

    return run_unit(rnd, model_key, repetition, replacement=replacement)


def evaluate_unit(rnd: Round, unit: str) -> object:
    """Evaluate in a slot of the round's own (a pinned round: CPUs no session holds meanwhile)."""
    from evaluator.unit_evaluation import evaluate_unit
    from harness.slot_plan import evaluation_slot

    with evaluation_slot(rnd.settings):
        return evaluate_unit(rnd, unit)


def packets(rnd: Round) -> object:
    from scoring import build_packets

    return build_packets(rnd)


def demo_reviews(rnd: Round) -> object:
    from scoring.demo_reviews import write_demo_reviews

    return write_demo_reviews(rnd)


def score(rnd: Round) -> object:
    from scoring import score_round

    return score_round(rnd)


def site(rnd: Round, build_dir: Path) -> object:
    from publish.render import render_site

    return render_site(rnd, build_dir)
