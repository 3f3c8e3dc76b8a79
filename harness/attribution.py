"""Who caused a unit's end and what follows from it: one table, one function.

`attribute(facts)` walks `TABLE` top to bottom and returns the first row whose stop statuses and
condition match; the row says who caused the end, the validity, the failure class, whether a
replacement unit is allowed and whether the work is scored. `docs/scoring.md` shows the same
table, rendered by `table_markdown()` (a test compares the two, so they cannot disagree).

Seed ("Calibration and invalidation"): a hard step/time/budget stop keeps the work and is scored
with its stop status disclosed; provider outages and harness failures are reported apart from
model failures and may get one documented replacement. So a ceiling stop is scored whatever
transient provider errors the agent survived; a provider outage is one that *ended* the session
(the runner's outage stop, a stall past the outage window, or no healthy completion at all).
Errors the model's own conversation causes (context length, refusal, moderation) are the model's,
except a context-length or moderation rejection before any answer was delivered: then the only
input was our task prompt, so it is the harness's (the route cannot take the task);
a provider's malformed stream is the provider's; our key, credits or request are the harness's.
A truncated stream (a 200 stream that ended without a finish_reason) ends the session as the
provider's failure whatever the stop: the agent takes the cut turn as whole, so the work after
it is no longer the model's own.
A sandbox limit kill (`resource_limit`) after a delivered answer is the model's own doing: scored,
disclosed; with no request at all, or none answered, it goes by the same rows as every other stop
(the model delivered nothing that could have reached the limit). An agent
that logged its final step and did not exit (the runner ended it) completed: nobody's failure,
disclosed, and scoring withholds the clean-exit point.

Validity reasons outside this table (`harness.invalidation.assess`) make a unit invalid whatever
its row: a contradicted identity, a harness retry, human intervention, missing evidence. A harness
retry is the whole request (model, tools, tool_choice, sampling and policy fields, messages) sent
again by the same client after it was answered; the agent sending a request again after an error
it saw is its own behaviour (a transport retry: recorded, never an invalidation).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from records.evidence.gateway import PROVIDER_ERRORS, ErrorClass, GatewaySummary
from records.evidence.session import FailureClass, Identity, StopStatus, Validity

# Gateway error classes by who causes them.
MODEL_ERRORS = frozenset({ErrorClass.CONTEXT_LENGTH, ErrorClass.REFUSAL, ErrorClass.MODERATION})
# Model errors that, before any answer was delivered, can only concern our own prompt.
INPUT_ERRORS = frozenset({ErrorClass.CONTEXT_LENGTH, ErrorClass.MODERATION})
HARNESS_ERRORS = frozenset(
    {ErrorClass.AUTH, ErrorClass.CREDITS, ErrorClass.BAD_REQUEST, ErrorClass.NOT_FOUND}
)
CEILINGS: frozenset[StopStatus] = frozenset({"step_ceiling", "time_ceiling", "budget_ceiling"})
ANY_STOP: frozenset[StopStatus] = frozenset({
    "completed", "step_ceiling", "time_ceiling", "budget_ceiling", "resource_limit",
    "provider_outage", "crashed", "not_started",
})  # fmt: skip
REPLACEABLE_CLASSES: tuple[FailureClass, ...] = ("provider_outage", "harness")


@dataclass
class UnitFacts:
    """Everything the verdict depends on, gathered by the runner."""

    stop_status: StopStatus
    exit_code: int | None
    hash_problems: list[str]
    identity: Identity
    gateway: GatewaySummary
    evidence_present: list[str]
    agent_errors: list[str] = field(default_factory=list)
    finished_normally: bool = False
    human_intervention: bool = False
    harness_error: str = ""
    limit_message: str = ""  # the sandbox limit that ended the session (resource_limit)
    lingered_seconds: float | None = None  # the agent's run was over; the runner ended it

    def errors(self, group: frozenset[ErrorClass]) -> list[str]:
        """The gateway's recorded error classes that belong to `group`."""
        return sorted(c for c in self.gateway.error_classes if c in group)

    @property
    def healthy(self) -> int:
        """Chat requests answered without an error or a refusal."""
        gw = self.gateway
        return gw.chat_requests - gw.refused - gw.upstream_errors


@dataclass(frozen=True)
class Attribution:
    validity: Validity
    failure_class: FailureClass
    replaceable: bool
    scored: bool


@dataclass(frozen=True)
class Row:
    """One line of the table: when it applies (`stops` and `when`) and what follows."""

    name: str
    stops: frozenset[StopStatus]
    errors: str  # the gateway-error condition, as the doc states it
    cause: str
    outcome: Attribution
    when: Callable[[UnitFacts], bool]
    detail: Callable[[UnitFacts], str]


INPUTS_CHANGED = (
    "refused to start: the prompt or starter differs from the frozen round, so no session ran. "
    "Invalid and not replaceable (our inputs changed, not the model or the provider): restore "
    "the frozen inputs or create a new round"
)
SCORED = Attribution("valid", "model", replaceable=False, scored=True)
CLEAN = Attribution("valid", "none", replaceable=False, scored=True)
OUTAGE = Attribution("invalid", "provider_outage", replaceable=True, scored=False)
HARNESS = Attribution("invalid", "harness", replaceable=True, scored=False)


def _stop_words(stop: StopStatus) -> str:
    return stop.replace("_", " ")


def _stall(f: UnitFacts) -> str:
    wait = (f.gateway.longest_keepalive_wait_ms or 0) / 1000
    return (
        f"provider stall: a request got no data for {wait:.0f} s, past the round's outage "
        f"window; gateway errors {f.gateway.error_classes}"
    )


def _truncated(f: UnitFacts) -> str:
    n = f.gateway.truncated
    return (
        f"truncated stream: {n} response{'s' if n != 1 else ''} ended without a finish_reason "
        f"(the agent would take a cut turn as whole); gateway errors {f.gateway.error_classes}"
    )


def _survived(f: UnitFacts) -> str:
    errors = f.errors(PROVIDER_ERRORS | MODEL_ERRORS)
    return f"; survived gateway errors {errors} (disclosed)" if errors else ""


TABLE: tuple[Row, ...] = (
    Row("inputs-changed", frozenset({"not_started"}), "any", "our inputs (prompt/starter)",
        Attribution("invalid", "none", replaceable=False, scored=False),
        lambda f: bool(f.hash_problems) and not f.harness_error, lambda f: INPUTS_CHANGED),
    Row("runner-failed", ANY_STOP, "any", "harness (the runner recorded its own failure)",
        HARNESS, lambda f: bool(f.harness_error), lambda f: f.harness_error),
    Row("crashed", frozenset({"crashed", "not_started"}), "any",
        "harness (runner or agent process)", HARNESS, lambda f: True,
        lambda f: "the runner or the agent process failed before the session could finish"),
    Row("harness-error", ANY_STOP, "any harness error",
        "harness (our key, credits, request or route)", HARNESS,
        lambda f: bool(f.errors(HARNESS_ERRORS)),
        lambda f: f"gateway errors caused by the harness: {f.errors(HARNESS_ERRORS)}"),
    Row("provider-truncated", ANY_STOP, "a truncated stream", "provider (it cut a turn short)",
        OUTAGE, lambda f: f.gateway.truncated > 0, _truncated),
    Row("provider-stop", frozenset({"provider_outage"}), "any",
        "provider (the runner's outage watch ended the session)", OUTAGE, lambda f: True,
        lambda f: _stall(f) if f.gateway.stalls
        else f"the gateway kept failing: {f.gateway.error_classes}"),
    Row("provider-stall", CEILINGS, "a provider stall", "provider (a stall ate the clock)",
        OUTAGE, lambda f: f.gateway.stalls > 0, _stall),
    Row("no-healthy-completion", ANY_STOP, "provider errors, and no "
        "request answered", "provider (nothing was ever delivered)", OUTAGE,
        lambda f: bool(f.errors(PROVIDER_ERRORS)) and f.healthy <= 0,
        lambda f: f"upstream errors and no healthy completion: {f.gateway.error_classes}"),
    Row("input-rejected", ANY_STOP, "context_length or moderation, and no "
        "request answered", "harness (only our prompt was in the conversation)", HARNESS,
        lambda f: bool(f.errors(INPUT_ERRORS)) and f.healthy <= 0,
        lambda f: f"the route rejected the task prompt itself before any answer: "
        f"{f.errors(INPUT_ERRORS)}"),
    Row("no-model-request", ANY_STOP, "no chat request at all", "harness "
        "(the agent never reached the model)", HARNESS, lambda f: f.gateway.chat_requests == 0,
        lambda f: "the agent made no model request"),
    Row("ceiling", CEILINGS, "none, or survived provider or model errors", "model",
        SCORED, lambda f: True,
        lambda f: f"stopped at the {_stop_words(f.stop_status)}{_survived(f)}"),
    Row("resource-limit", frozenset({"resource_limit"}), "any but harness", "model (its own "
        "commands reached a sandbox limit)", SCORED, lambda f: True,
        lambda f: f"stopped at a sandbox limit: {f.limit_message or 'limit reached'}"
        f"{_survived(f)}"),
    Row("model-error", frozenset({"completed"}), "a model error",
        "model (its own conversation)", SCORED, lambda f: bool(f.errors(MODEL_ERRORS)),
        lambda f: f"model-caused gateway errors: {f.errors(MODEL_ERRORS)}{_survived(f)}"),
    Row("agent-lingered", frozenset({"completed"}), "none, or survived provider errors",
        "nobody (the agent's run was over; the runner ended the process)", CLEAN,
        lambda f: f.lingered_seconds is not None,
        lambda f: f"the agent did not exit after its final step: the runner ended it "
        f"{f.lingered_seconds:.0f} s later (disclosed; no clean-exit point){_survived(f)}"),
    Row("agent-failed", frozenset({"completed"}), "none, or survived provider errors",
        "model (the agent exited with an error)", SCORED,
        lambda f: f.exit_code not in (0, None) or bool(f.agent_errors),
        lambda f: f"agent exit {f.exit_code}; errors: {f.agent_errors[:2]}{_survived(f)}"),
    Row("completed", frozenset({"completed"}), "none, or survived provider errors", "nobody",
        CLEAN, lambda f: True, lambda f: f"no failure{_survived(f)}" if _survived(f) else ""),
)  # fmt: skip


def row_for(facts: UnitFacts) -> Row:
    """The first row of `TABLE` that applies to `facts` (the last rows catch every stop)."""
    for row in TABLE:
        if facts.stop_status in row.stops and row.when(facts):
            return row
    raise AssertionError(f"no attribution row for stop status {facts.stop_status!r}")


def attribute(facts: UnitFacts) -> tuple[Row, str]:
    """The row that applies and its detail sentence (who caused what, for session.json)."""
    row = row_for(facts)
    return row, row.detail(facts)


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def _stops(stops: frozenset[StopStatus]) -> str:
    if stops == ANY_STOP:
        return "any"
    missing = ANY_STOP - stops
    if len(missing) == 1:
        return f"any but `{next(iter(missing))}`"
    return ", ".join(f"`{s}`" for s in sorted(stops))


def table_markdown() -> str:
    """`TABLE` as the markdown table in docs/scoring.md (first matching row wins)."""
    lines = [
        "| # | Row | Stop status | Gateway errors | Caused by | Validity | Failure class "
        "| Replaceable | Scored |",
        "|---:|---|---|---|---|---|---|---|---|",
    ]
    for n, row in enumerate(TABLE, start=1):
        o = row.outcome
        lines.append(
            f"| {n} | `{row.name}` | {_stops(row.stops)} | {row.errors} | {row.cause} "
            f"| {o.validity} | `{o.failure_class}` | {_yes(o.replaceable)} | {_yes(o.scored)} |"
        )
    return "\n".join(lines)
