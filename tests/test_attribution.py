"""Attribution: one table (harness.attribution.TABLE, shown in docs/scoring.md) decides who caused
a unit's end, its validity, failure class, whether it may be replaced and whether it is scored.

The gateway cases go through the real recording proxy and simulator (gateway.jsonl → summarize),
the row walk through `UnitFacts` as the runner builds them."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest
from gateway_support import drive, loopback_only, script
from scoring_support import demo_cohort, make_unit, result, session

from gateway.errors import classify_status, classify_stream_error, error_for
from gateway.proxy import RecordingProxy
from gateway.simulator import Simulator
from harness.attribution import REPLACEABLE_CLASSES, TABLE, UnitFacts, row_for, table_markdown
from harness.invalidation import REQUIRED_EVIDENCE, assess, check_identity
from harness.replacement import REPLACEABLE
from harness.session.process import ProcessOutcome
from harness.session.run import stop_status
from publish.render import render_docs
from publish.sources import load_round_evidence
from records.evidence.gateway import (
    ErrorClass,
    GatewayPolicy,
    GatewaySummary,
    read_exchanges,
    summarize,
)
from records.layout import round_paths
from records.round import Round
from scoring.evidence import RoundContext
from scoring.pipeline import score_context

DOC = Path(__file__).resolve().parent.parent / "docs" / "scoring.md"
KEY = "sk-or-v1-FAKEKEY-attribution"
BASH = {"name": "bash", "arguments": {"command": "echo {turn}", "description": "work"}}
CONTEXT = (
    "This endpoint's maximum context length is 200000 tokens. However, you requested about "
    "231000 tokens (199000 of text input, 32000 in the output). Please reduce the length."
)
FLAGGED = "Your chosen model requires moderation and your input was flagged"


def gw(chat: int = 5, errors: dict[str, int] | None = None, **extra: Any) -> GatewaySummary:
    errors = errors or {}
    return GatewaySummary(chat_requests=chat, steps=chat, upstream_errors=sum(errors.values()),
                          error_classes=errors, **extra)  # fmt: skip


def facts(
    stop: str = "completed", gateway: GatewaySummary | None = None, **extra: Any
) -> UnitFacts:
    base: dict[str, Any] = dict(
        stop_status=stop, exit_code=0, hash_problems=[],
        identity=check_identity("x/m", "x/m", ["x/m"], [], []),
        gateway=gateway or gw(), evidence_present=list(REQUIRED_EVIDENCE),
    )  # fmt: skip
    base.update(extra)
    return UnitFacts(**base)


# Every row of the table with the situations it must decide (first matching row wins).
EXAMPLES: dict[str, list[UnitFacts]] = {
    "inputs-changed": [facts("not_started", GatewaySummary(), exit_code=None,
                             hash_problems=["prompt sha256 x != frozen y"])],
    "runner-failed": [facts("crashed", exit_code=None, harness_error="runner killed"),
                      facts("not_started", GatewaySummary(), harness_error="worktree failed")],
    "crashed": [facts("crashed", exit_code=None)],
    "harness-error": [facts(gateway=gw(errors={"auth": 1})),
                      facts("time_ceiling", gw(errors={"credits": 1})),
                      facts("resource_limit", gw(errors={"bad_request": 1}))],
    "provider-truncated": [facts("provider_outage", gw(errors={"truncated_stream": 1},
                                                       truncated=1)),
                           facts(gateway=gw(errors={"truncated_stream": 1}, truncated=1)),
                           facts("step_ceiling", gw(41, {"truncated_stream": 1}, truncated=1))],
    "provider-stop": [facts("provider_outage", gw(errors={"upstream_5xx": 6})),
                      facts("provider_outage", gw(errors={"provider_stall": 1}, stalls=1))],
    "provider-stall": [facts("time_ceiling", gw(errors={"provider_stall": 1}, stalls=1))],
    "no-healthy-completion": [facts(gateway=gw(3, {"upstream_5xx": 3})),
                              facts("time_ceiling", gw(2, {"connection": 2})),
                              facts("resource_limit", gw(2, {"upstream_5xx": 2}), exit_code=-9,
                                    limit_message="nproc: stopped")],
    "input-rejected": [facts(gateway=gw(1, {"moderation": 1}), exit_code=1),
                       facts("time_ceiling", gw(2, {"context_length": 2})),
                       facts("resource_limit", gw(1, {"context_length": 1}), exit_code=-9)],
    "no-model-request": [facts(gateway=GatewaySummary()),
                         facts("resource_limit", GatewaySummary(), exit_code=-9,
                               limit_message="memory: stopped")],
    "ceiling": [facts("step_ceiling", gw(41, {"rate_limit": 1}), exit_code=-15),
                facts("time_ceiling", gw(errors={"midstream_error": 1, "upstream_5xx": 2})),
                facts("budget_ceiling", gw(errors={"connection": 1})),
                facts("time_ceiling", gw(errors={"context_length": 1})),
                facts("step_ceiling")],
    "resource-limit": [facts("resource_limit", exit_code=-9, limit_message="nproc: stopped"),
                       facts("resource_limit", gw(errors={"upstream_5xx": 1}), exit_code=137)],
    "model-error": [facts(gateway=gw(errors={"context_length": 1}), exit_code=1),
                    facts(gateway=gw(1, {"refusal": 1}), exit_code=1),  # it refused the task
                    facts(gateway=gw(errors={"refusal": 1})),
                    facts(gateway=gw(errors={"moderation": 1, "rate_limit": 1}))],
    "agent-lingered": [facts(exit_code=-15, lingered_seconds=31.2),
                       facts(gateway=gw(errors={"upstream_5xx": 1}), exit_code=-9,
                             lingered_seconds=30.0)],
    "agent-failed": [facts(exit_code=1), facts(agent_errors=["tool failed"])],
    "completed": [facts(), facts(gateway=gw(errors={"malformed_response": 1})),
                  facts(gateway=gw(errors={"upstream_5xx": 1}))],
}  # fmt: skip


def test_the_doc_shows_the_table_the_code_uses() -> None:
    text = DOC.read_text(encoding="utf-8")
    found = re.search(r"<!-- attribution:start -->\n(.*?)\n<!-- attribution:end -->", text, re.S)
    assert found, f"{DOC} has no attribution table between its markers"
    assert found.group(1).strip() == table_markdown()


def test_every_row_has_a_case_and_nothing_else_is_decided_elsewhere() -> None:
    assert [row.name for row in TABLE] == list(EXAMPLES)
    assert set(REPLACEABLE) == set(REPLACEABLE_CLASSES)  # the replacement rule reads the same
    for row in TABLE:  # replaceable and scored follow from the failure class and validity
        o = row.outcome
        assert o.scored == (o.validity == "valid")
        assert o.replaceable == (o.failure_class in REPLACEABLE_CLASSES)


@pytest.mark.parametrize(
    ("name", "case"), [(name, case) for name, cases in EXAMPLES.items() for case in cases]
)
def test_each_row_decides_its_cases(name: str, case: UnitFacts) -> None:
    row = row_for(case)
    assert row.name == name
    verdict = assess(case)
    assert (verdict.validity, verdict.failure_class, verdict.attribution) == (
        row.outcome.validity, row.outcome.failure_class, name)  # fmt: skip


def test_a_ceiling_stop_is_scored_whatever_transient_errors_it_survived() -> None:
    """Issue 29 (1): one recovered 429/5xx/midstream error made a ceiling stop a provider
    outage, so the model that burned its steps got a replacement."""
    for stop in ("step_ceiling", "time_ceiling", "budget_ceiling"):
        for error in ("rate_limit", "upstream_5xx", "midstream_error", "connection"):
            verdict = assess(facts(stop, gw(40, {error: 1}, transport_retries=1)))
            assert (verdict.validity, verdict.failure_class) == ("valid", "model"), (stop, error)
            assert f"stopped at the {stop.replace('_', ' ')}" in verdict.detail
            assert error in verdict.detail  # disclosed


def test_model_caused_4xx_are_model_failures_and_a_bad_stream_is_the_providers() -> None:
    """Issue 29 (3): any 400/403/404 made a completed unit a harness failure, and a provider's
    malformed stream was labelled harness."""
    for error in ("context_length", "refusal", "moderation"):
        verdict = assess(facts(gateway=gw(errors={error: 1}), exit_code=1))
        assert (verdict.validity, verdict.failure_class) == ("valid", "model"), error
    survived = assess(facts(gateway=gw(errors={"malformed_response": 1})))
    assert (survived.validity, survived.failure_class) == ("valid", "none")
    assert survived.detail == (
        "no failure; survived gateway errors ['malformed_response'] (disclosed)"
    )
    assert assess(facts()).detail == ""
    ended = assess(facts(gateway=gw(2, {"malformed_response": 2})))
    assert (ended.validity, ended.failure_class) == ("invalid", "provider_outage")
    for error in ("auth", "credits", "bad_request", "not_found"):  # ours stay harness
        assert assess(facts(gateway=gw(errors={error: 1}))).failure_class == "harness"


def test_a_sandbox_limit_is_scored_and_disclosed() -> None:
    verdict = assess(facts("resource_limit", exit_code=-9, limit_message="nproc: 461 tasks"))
    assert (verdict.validity, verdict.failure_class) == ("valid", "model")
    assert verdict.detail.startswith("stopped at a sandbox limit: nproc: 461 tasks")


@pytest.mark.parametrize(
    ("status", "body", "expected"),
    [
        (400, {"error": {"code": 400, "message": CONTEXT,
                         "metadata": {"error_type": "context_length_exceeded"}}},
         ErrorClass.CONTEXT_LENGTH),
        (400, {"error": {"code": 400, "message": CONTEXT, "metadata": {"provider_name": "X"}}},
         ErrorClass.CONTEXT_LENGTH),  # the provider's own wording, no error_type
        (400, {"error": {"code": 400, "message": "prompt is too long: 210000 tokens > 200000"}},
         ErrorClass.CONTEXT_LENGTH),
        (403, {"error": {"code": 403, "message": FLAGGED, "metadata": {
            "reasons": ["violence"], "flagged_input": "...", "provider_name": "OpenAI",
            "model_slug": "openai/gpt-5"}}}, ErrorClass.MODERATION),
        (403, {"error": {"code": 403, "message": "blocked",
                         "metadata": {"error_type": "content_policy_violation"}}},
         ErrorClass.MODERATION),
        (400, {"error": {"code": 400, "message": "declined",
                         "metadata": {"error_type": "refusal"}}}, ErrorClass.REFUSAL),
        # ours: key, credits, request parameters (max_tokens is the harness's)
        (401, {"error": {"code": 401, "message": "No auth credentials found"}}, ErrorClass.AUTH),
        (403, {"error": {"code": 403, "message": "Only management keys can perform this"}},
         ErrorClass.AUTH),
        (402, {"error": {"code": 402, "message": "requires more credits"}}, ErrorClass.CREDITS),
        (400, {"error": {"code": 400, "message": "max_tokens too large",
                         "metadata": {"error_type": "max_tokens_exceeded"}}},
         ErrorClass.BAD_REQUEST),
        (400, {"error": {"code": 400, "message": "Reasoning is mandatory for this endpoint"}},
         ErrorClass.BAD_REQUEST),
    ],
)  # fmt: skip
def test_openrouter_error_bodies_are_classed_by_cause(
    status: int, body: dict[str, Any], expected: ErrorClass
) -> None:
    error = body["error"]
    assert classify_status(status, error["message"], error.get("metadata"), error["code"]) == (
        expected
    )
    assert error_for(status, body).error_class == expected
    assert classify_stream_error(error) == expected  # the same error arriving inside a stream


@pytest.fixture()
def sim() -> Iterator[Simulator]:
    context = {
        "error": {
            "kind": "http",
            "status": 400,
            "message": CONTEXT,
            "metadata": {"error_type": "context_length_exceeded"},
        }
    }
    flagged = {
        "error": {
            "kind": "http",
            "status": 403,
            "message": FLAGGED,
            "metadata": {"reasons": ["harassment"], "flagged_input": "..."},
        }
    }
    refusal = {
        "error": {
            "kind": "midstream",
            "status": 400,
            "message": "I can't help with that",
            "metadata": {"error_type": "refusal"},
        }
    }
    scripts = [
        script("lab/long-1", [{"tool_calls": [BASH]}, context]),
        script("lab/flagged-1", [{"tool_calls": [BASH]}, flagged]),
        script("lab/refuses-1", [{"tool_calls": [BASH]}, refusal]),
    ]  # fmt: skip
    with loopback_only(), Simulator(scripts, api_key=KEY, generation_lag_seconds=0.05) as s:
        yield s


def run_through_proxy(sim: Simulator, tmp_path: Path, route: str) -> GatewaySummary:
    """The toy agent against `route` through the recording proxy; the unit's gateway summary.
    The proxy's live state, which the runner's outage watch reads, counts no provider error."""
    log = tmp_path / "unit" / "gateway.jsonl"
    proxy = RecordingProxy(upstream=sim.base_url, api_key=KEY, log_path=log,
                           policy=GatewayPolicy(), step_ceiling=40)  # fmt: skip
    with proxy:
        _, error = drive(proxy.base_url, route, "go", max_requests=10)
        deadline = time.monotonic() + 10  # an in-stream error is settled after the client saw it
        while time.monotonic() < deadline and not (
            proxy.state.upstream_errors and len(read_exchanges(log)) == 2
        ):
            time.sleep(0.05)
        state = proxy.state
    assert isinstance(error, openai.APIError)  # the second answer was the error
    assert (state.upstream_errors, state.provider_errors) == (1, 0)
    return summarize(log)


@pytest.mark.parametrize(
    ("route", "error_class"),
    [("lab/long-1", "context_length"), ("lab/flagged-1", "moderation"),
     ("lab/refuses-1", "refusal")],
)  # fmt: skip
def test_model_caused_errors_through_the_proxy_are_scored_model_failures(
    sim: Simulator, tmp_path: Path, route: str, error_class: str
) -> None:
    summary = run_through_proxy(sim, tmp_path, route)
    assert summary.error_classes == {error_class: 1}
    verdict = assess(facts(gateway=summary, exit_code=1))
    assert (verdict.validity, verdict.failure_class, verdict.attribution) == (
        "valid", "model", "model-error")  # fmt: skip


@pytest.fixture()
def outage_sim() -> Iterator[Simulator]:
    """A route whose every answer is a 503 (OpenRouter's provider-unavailable error)."""
    down = {"error": {"kind": "http", "status": 503, "message": "Provider returned error"}}
    with (
        loopback_only(),
        Simulator([script("lab/down-1", [down, down, down])], api_key=KEY) as s,
    ):
        yield s


def test_a_sandbox_limit_with_no_answer_delivered_is_never_the_models(
    outage_sim: Simulator, tmp_path: Path
) -> None:
    """Issue 49 (4): a `resource_limit` stop whose every request was a 503 (recorded by the real
    proxy from the simulator), or that made no request at all (an empty gateway log), goes by
    the rows every other stop goes by: the provider's or the harness's, replaceable, unscored."""
    log = tmp_path / "unit" / "gateway.jsonl"
    proxy = RecordingProxy(upstream=outage_sim.base_url, api_key=KEY, log_path=log,
                           policy=GatewayPolicy(), step_ceiling=40)  # fmt: skip
    with proxy:
        for _ in range(2):  # the agent asks twice, then the sandbox stops it
            _, error = drive(proxy.base_url, "lab/down-1", "go", max_requests=1)
            assert isinstance(error, openai.APIError)
    summary = summarize(log)
    assert summary.chat_requests == 2 and set(summary.error_classes) == {"upstream_5xx"}
    limit = "nproc: the agent exceeded the process limit"
    outage = assess(facts("resource_limit", summary, exit_code=-9, limit_message=limit))
    assert (outage.validity, outage.failure_class, outage.attribution) == (
        "invalid", "provider_outage", "no-healthy-completion")  # fmt: skip
    log.write_text("")
    silent = assess(facts("resource_limit", summarize(log), exit_code=-9, limit_message=limit))
    assert (silent.validity, silent.failure_class, silent.attribution) == (
        "invalid", "harness", "no-model-request")  # fmt: skip


def test_the_runner_names_a_sandbox_limit_its_own_stop_status() -> None:
    """`harness.session.run.stop_status`: a limit that ended the agent is `resource_limit`; the
    runner's own ceiling (it ended the process first) still wins."""
    limited = ProcessOutcome(-9, None, 12.0, 1, limit_hit="nproc", limit_message="too many")
    assert stop_status(limited, GatewaySummary()) == "resource_limit"
    assert stop_status(ProcessOutcome(-15, "time", 1800.2, 1), GatewaySummary()) == "time_ceiling"
    timed = ProcessOutcome(-15, "time", 1800.2, 1, limit_hit="memory")
    assert stop_status(timed, GatewaySummary()) == "time_ceiling"
    assert stop_status(ProcessOutcome(0, None, 60.0, 1), GatewaySummary()) == "completed"


def test_the_site_discloses_a_resource_limit_stop(tmp_path: Path) -> None:
    """A round scored by the real stages and rendered by the real renderer: the leaderboard row
    carries the sandbox-limit badge and the unit page names the limit (issue 29 (4))."""
    evidence = tmp_path / "evidence"
    ctx = RoundContext("showcase", 7, demo_cohort(), round_paths("showcase", evidence))
    limit = "nproc: `opencode run` exceeded the process limit (1024 processes and threads)"
    plain = {"screenshots": [], "video": None}
    record = session("process-storm", round_id="showcase", stop_status="resource_limit",
                     exit_code=-9, failure_class="model", resource_limit=limit,
                     attribution="resource-limit",
                     failure_detail=f"stopped at a sandbox limit: {limit}")  # fmt: skip
    make_unit(ctx, "process-storm", record, result(**plain))
    make_unit(
        ctx, "strong-builder", session("strong-builder", round_id="showcase"), result(**plain)
    )
    score_context(ctx)
    docs = tmp_path / "docs"
    docs.mkdir()
    render_docs(load_round_evidence(Round.load("showcase", evidence)), docs)
    board = (docs / "leaderboard.md").read_text()
    assert "stopped at a sandbox limit" in board and "the work at the limit was scored" in board
    page = (docs / "units" / "process-storm-r1.md").read_text()
    assert "resource limit (agent exit code -9): nproc: <code>opencode run</code> exceeded" in page
