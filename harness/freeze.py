"""The freeze stage: record the content hashes of a round's inputs in `evidence/<round>/round.json`.

Inputs (prompt bytes, starter tree, cohort file, round settings, an intervention round's arm
folders) are protected from the frozen run order on (`order.json`, drawn before the first scored
unit) and whenever the round holds a scored unit: a changed input is then refused and a new
round is needed. The evaluator hash and the tool versions are recorded too; they may change
(evaluation re-runs, sessions never do). The round's `node_version` and agent version must equal
the installed tools (`.tools/versions.json`): a mismatch is refused before anything is frozen or
run.
"""

from __future__ import annotations

from datetime import UTC, datetime

from records.evidence.round import FrozenInputs, RoundRecord
from records.hashing import file_sha256, files_sha256, tree_sha256
from records.io import read_record, write_record
from records.layout import (
    REPO_ROOT,
    evaluator_sha256,  # the judge's code; also doit's dependency
    scoring_source_files,
)
from records.round import Round
from records.tools import tool_versions, version_mismatches


class FrozenInputsChanged(RuntimeError):
    """A protected input differs from a frozen round whose order is drawn or that holds units."""


class ToolVersionMismatch(RuntimeError):
    """The round names a Node or agent version other than the installed one."""


def require_round_tools(rnd: Round) -> None:
    """Refuse when the round's node_version or agent version differs from the installed tools."""
    settings = rnd.settings
    required = {"node": settings.node_version, **{a.name: a.version for a in settings.agents_run}}
    problems = version_mismatches(required)
    if problems:
        raise ToolVersionMismatch(
            f"{rnd.settings_path}: the round's tool versions differ from the installed "
            f"tools: {'; '.join(problems)}. Install the round's versions (scripts/setup) or create "
            "a new round (benchmark/rounds/<new-round>.json) naming the installed ones."
        )


def scoring_sha256() -> str:
    return files_sha256(scoring_source_files(), REPO_ROOT)


def current_inputs(rnd: Round) -> FrozenInputs:
    """The protected inputs' hashes as they are now (the cohort read, so a broken one is never
    frozen)."""
    rnd.cohort.candidates  # noqa: B018 - reading it validates the cohort file
    return FrozenInputs(
        prompt_sha256=file_sha256(rnd.task.prompt),
        starter_tree_sha256=tree_sha256(rnd.task.starter),
        cohort_sha256=file_sha256(rnd.settings.cohort_path),
        settings_sha256=file_sha256(rnd.settings_path),
        arms_sha256={arm.id: arm.sha256() for arm in rnd.arms},
    )


def changed_fields(old: FrozenInputs, new: FrozenInputs) -> list[str]:
    return [name for name in FrozenInputs.model_fields if getattr(old, name) != getattr(new, name)]


def freeze(rnd: Round) -> RoundRecord:
    """Write (or confirm) round.json; refuse changed inputs once the order is drawn or units ran."""
    require_round_tools(rnd)
    settings, paths, round_id = rnd.settings, rnd.paths, rnd.id
    inputs = current_inputs(rnd)
    previous = read_record(paths.round_json, RoundRecord) if paths.round_json.exists() else None
    if previous is not None:
        changed = changed_fields(previous.inputs, inputs)
        units = paths.units_with("session")
        if changed and (units or paths.order.exists()):
            held = (
                f"already holds {len(units)} scored unit(s) "
                f"({', '.join(units[:3])}{', …' if len(units) > 3 else ''})"
                if units
                else f"has its run order drawn ({paths.order.name})"
            )
            raise FrozenInputsChanged(
                f"round {round_id!r} is frozen and {held}; changed since the freeze: "
                f"{', '.join(changed)}. Paid work is never redone or mixed: create a new round "
                f"(benchmark/rounds/<new-round>.json) for the new inputs."
            )
    record = RoundRecord(
        round_id=round_id,
        frozen_at=datetime.now(UTC).isoformat(timespec="seconds"),
        seed=settings.seed,
        cohort_file=settings.cohort,
        inputs=inputs,
        task=rnd.task.ref,
        factor=settings.factor,
        evaluator_sha256=evaluator_sha256(),
        scoring_sha256=scoring_sha256(),
        tool_versions=tool_versions(),
    )
    if (
        previous is not None
        and previous.model_copy(update={"frozen_at": record.frozen_at}) == record
    ):
        return previous  # unchanged: keep the file's bytes so nothing downstream goes stale
    write_record(paths.round_json, record)
    return record


def verify_frozen_inputs(rnd: Round) -> list[str]:
    """The protected inputs that differ from round.json (empty when everything matches)."""
    if not rnd.paths.round_json.exists():
        return ["round.json missing: run the freeze stage first"]
    frozen = read_record(rnd.paths.round_json, RoundRecord)
    return changed_fields(frozen.inputs, current_inputs(rnd))
