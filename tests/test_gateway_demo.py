"""The demo cohort: every scripted model's designed behaviour is observable in `gateway.jsonl`.

A toy agent (answers every tool call with "ok") drives each model through the proxy with the demo
round's ceilings. The builders' `tree_calls` are served from a small stand-in for the reference
overlay, so these tests do not depend on the real one; `test_tree_sources_exist` checks that.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest
from gateway_support import drive, loopback_only

from gateway.errors import ErrorClass
from gateway.proxy import RecordingProxy
from gateway.simulator import Simulator, load_script
from harness.session.upstream import Upstream, catalogue_prices, list_catalogue
from records.evidence.gateway import GatewayPolicy, GatewaySummary, read_exchanges, summarize
from records.inputs import load_cohort, load_round
from records.layout import BENCHMARK_DIR, REPO_ROOT

SETTINGS = load_round("showcase")
COHORT = load_cohort(SETTINGS.cohort_path)
PROMPT = "Build the venue site described in the task."
TASK_DIR = "benchmark/tasks/atlas-rooms"


@pytest.fixture(scope="module")
def sim(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Simulator]:
    root = tmp_path_factory.mktemp("repo")
    for rel in ("src/App.tsx", "src/pages/CataloguePage.tsx", "src/lib/filters.ts", "PROGRESS.md"):
        for base in (
            "benchmark/tasks/atlas-rooms/reference",
            "app-starter",
        ):
            path = root / base / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"// {base}/{rel}\n")
    (root / "benchmark/tasks/atlas-rooms/reference/src/pages/VenuePage.tsx").write_text("// new\n")
    with loopback_only(), Simulator.from_cohort(SETTINGS.cohort_path, repo_root=root) as simulator:
        yield simulator


def run(
    sim: Simulator, tmp_path: Path, key: str, **kwargs: Any
) -> tuple[list[dict[str, Any]], Exception | None, GatewaySummary]:
    candidate = COHORT.by_key(key)
    log = tmp_path / key / "gateway.jsonl"
    with RecordingProxy(
        upstream=sim.base_url,
        api_key="sk-demo",
        log_path=log,
        policy=GatewayPolicy(reasoning=candidate.reasoning),
        step_ceiling=SETTINGS.ceilings.steps,
        budget_usd=kwargs.pop("budget_usd", SETTINGS.ceilings.budget_usd),
        prices=catalogue_prices(
            candidate.route, list_catalogue(Upstream("simulator", sim.base_url, "sk-demo"))
        ),
        stall_seconds=kwargs.pop("stall_seconds", SETTINGS.ceilings.outage_seconds),
    ) as proxy:
        # max_tokens as OpenCode 1.17.18 sends it
        messages, error = drive(proxy.base_url, candidate.route, PROMPT, workdir="/wt",
                                max_tokens=32000, **kwargs)  # fmt: skip
        assert proxy.drain()
    return messages, error, summarize(log)


def calls(messages: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    return [
        (c["function"]["name"], json.loads(c["function"]["arguments"]))
        for m in messages
        for c in m.get("tool_calls", [])
    ]


def commands(messages: list[dict[str, Any]]) -> list[str]:
    return [args["command"] for name, args in calls(messages) if name == "bash"]


def written(messages: list[dict[str, Any]]) -> dict[str, str]:
    return {a["filePath"]: a["content"] for n, a in calls(messages) if n == "write"}


def test_cohort_matches_its_scripts() -> None:
    assert SETTINGS.gateway.kind == "simulator" and not SETTINGS.requires_api_key
    assert len(COHORT.candidates) >= 10
    for candidate in COHORT.candidates:
        assert candidate.scripted_model is not None
        script = load_script(BENCHMARK_DIR / candidate.scripted_model)
        assert script.catalogue.id == candidate.route
        if candidate.key == "slug-mismatch":  # its catalogue slug differs on purpose
            assert script.catalogue.canonical_slug != candidate.expected_canonical_slug
        else:
            assert script.catalogue.canonical_slug == candidate.expected_canonical_slug
        if candidate.reasoning == "high":
            assert "reasoning" in script.catalogue.supported_parameters


def test_strong_builder(sim: Simulator, tmp_path: Path) -> None:
    messages, error, summary = run(sim, tmp_path, "strong-builder")
    assert error is None and summary.steps == 6 and summary.upstream_errors == 0
    assert commands(messages) == ["npm run check", "npm run build"]
    files = written(messages)
    assert "/wt/src/pages/VenuePage.tsx" in files and "/wt/src/App.tsx" in files
    assert "exit 0" in files["/wt/PROGRESS.md"]
    reads = [a["filePath"] for n, a in calls(messages) if n == "read"]
    assert "/wt/src/App.tsx" in reads and "/wt/src/pages/VenuePage.tsx" not in reads
    assert summary.observed_models == [COHORT.by_key("strong-builder").expected_canonical_slug]
    assert summary.cost_usd is not None and 0 < summary.cost_usd < SETTINGS.ceilings.budget_usd


def test_partial_builder_writes_only_the_filter_journey(sim: Simulator, tmp_path: Path) -> None:
    messages, error, _ = run(sim, tmp_path, "partial-builder")
    assert error is None and commands(messages) == ["npm run check", "npm run build"]
    files = set(written(messages))
    assert files == {"/wt/src/pages/CataloguePage.tsx", "/wt/src/lib/filters.ts", "/wt/PROGRESS.md"}


def test_idle_answers_at_once(sim: Simulator, tmp_path: Path) -> None:
    messages, error, summary = run(sim, tmp_path, "idle")
    assert error is None and calls(messages) == [] and summary.steps == 1


def test_type_breaker_and_progress_liar(sim: Simulator, tmp_path: Path) -> None:
    messages, _, _ = run(sim, tmp_path, "type-breaker")
    assert written(messages)["/wt/src/data/priceLabel.ts"].startswith(
        "export const priceLabel: number"
    )
    assert commands(messages) == ["npm run check", "npm run build"]
    assert "fails" in written(messages)["/wt/PROGRESS.md"]
    messages, _, _ = run(sim, tmp_path, "progress-liar")
    assert commands(messages) == []
    assert "passes" in written(messages)["/wt/PROGRESS.md"]


def test_step_burner_is_refused_at_41(sim: Simulator, tmp_path: Path) -> None:
    messages, error, summary = run(sim, tmp_path, "step-burner", max_requests=60)
    assert isinstance(error, openai.BadRequestError) and "step ceiling of 40" in str(error)
    assert (summary.steps, summary.refused, summary.step_ceiling_hit) == (40, 1, True)
    assert len(commands(messages)) == 40 and (summary.cost_usd or 0) < 1


def test_big_spender_ends_within_the_budget(sim: Simulator, tmp_path: Path) -> None:
    _, _, summary = run(sim, tmp_path, "big-spender")
    assert summary.cost_usd is not None and summary.cost_usd <= SETTINGS.ceilings.budget_usd
    assert summary.max_tokens_changes and summary.max_tokens_changes[0].requested == 32000
    assert summary.budget_ceiling_hit or summary.ended_on_budget_cut
    _, error, unlimited = run(sim, tmp_path / "free", "big-spender", budget_usd=None)
    assert error is None and unlimited.cost_usd is not None and 5 < unlimited.cost_usd < 10


def test_identity_swap_is_visible(sim: Simulator, tmp_path: Path) -> None:
    _, _, summary = run(sim, tmp_path, "identity-swap")
    assert summary.observed_models == ["demo-mirror/swap-1-20260601", "demo-mirror/cheaper-0"]


def test_provider_outage_from_turn_3(sim: Simulator, tmp_path: Path) -> None:
    _, error, summary = run(sim, tmp_path, "provider-outage")
    assert isinstance(error, openai.InternalServerError)
    assert summary.error_classes == {"upstream_5xx": 1} and summary.steps == 3
    last = read_exchanges(tmp_path / "provider-outage" / "gateway.jsonl")[-1]
    assert (last.step, last.status, last.error_class) == (3, 503, ErrorClass.UPSTREAM_5XX)


def test_live_gateway_paths(sim: Simulator, tmp_path: Path) -> None:
    """The demo's transient 503, keep-alive stall and in-stream 429, with a toy agent."""
    messages, error, summary = run(sim, tmp_path, "transient-503")
    assert isinstance(error, openai.InternalServerError) and summary.error_classes == {
        "upstream_5xx": 1
    }
    candidate = COHORT.by_key("transient-503")
    client = openai.OpenAI(base_url=sim.base_url, api_key="k", max_retries=0)
    resent = client.chat.completions.create(model=candidate.route, messages=messages)  # type: ignore[arg-type]
    assert resent.choices[0].finish_reason == "tool_calls"  # the same request now succeeds
    _, error, summary = run(sim, tmp_path, "keepalive-stall", stall_seconds=1.5)
    assert error is not None and summary.error_classes == {"provider_stall": 1}
    assert (summary.longest_keepalive_wait_ms or 0) >= 1500
    _, error, summary = run(sim, tmp_path, "rate-limited")
    assert isinstance(error, openai.APIError) and summary.error_classes == {"rate_limit": 1}


def test_catalogue_failures(sim: Simulator, tmp_path: Path) -> None:
    _, error, summary = run(sim, tmp_path, "no-tool-choice")
    assert isinstance(error, openai.NotFoundError) and summary.error_classes == {"no_endpoint": 1}
    _, error, summary = run(sim, tmp_path, "missing-route")
    assert isinstance(error, openai.BadRequestError) and summary.error_classes == {"bad_request": 1}


def test_tree_sources_exist() -> None:
    """Every builder's tree_calls find files (in the task's starter and reference)."""
    assert (REPO_ROOT / TASK_DIR / "reference").is_dir()
    from gateway.simulator.turns import tree_files

    for candidate in COHORT.candidates:
        script = load_script(BENCHMARK_DIR / (candidate.scripted_model or ""))
        for turn in script.session.turns:
            for tree in turn.tree_calls:
                if tree.tool == "write":
                    assert tree_files(tree, REPO_ROOT), (candidate.key, tree)
