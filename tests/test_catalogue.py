"""Catalogue check: the round-0 cohort against the committed OpenRouter snapshot, offline.

Broken cohorts are copies of `benchmark/models.json` with one field edited, loaded through the real
cohort model, so the check sees exactly what a mistaken cohort file would give it.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import records.inputs as inputs
from harness.catalogue import (
    DEFAULT_SNAPSHOT,
    Catalogue,
    CatalogueReport,
    catalogue_from_models,
    check_cohort,
    load_snapshot,
    render_table,
)
from harness.catalogue.cli import main
from harness.catalogue.live import LiveCatalogueUnavailable, fetch_live_catalogue
from records.hashing import file_sha256
from records.inputs import Cohort, load_cohort, load_round
from records.io import RecordError, read_record
from records.layout import BENCHMARK_DIR
from records.round import Round

COHORT_FILE = BENCHMARK_DIR / "models.json"
# sha256 of ../shared/reference/openrouter/models-snapshot.json, the capture the copy must equal.
REFERENCE_SHA256 = "38275db9f0a16719521cb981d37076b5805f603ec1d2dc712e10d17c482862bb"
DELISTED = ("devstral", "mistralai/devstral-2512")  # newest record: the 2026-07-31 capture only


@pytest.fixture(scope="module")
def snapshot() -> Catalogue:
    return load_snapshot()


def edited_cohort(tmp_path: Path, key: str, change: Callable[[dict[str, Any]], None]) -> Path:
    """A copy of models.json with candidate `key` edited by `change`, written to tmp_path."""
    data = json.loads(COHORT_FILE.read_text())
    data = copy.deepcopy(data)
    (candidate,) = [c for c in data["candidates"] if c["key"] == key]
    change(candidate)
    path = tmp_path / "models.json"
    path.write_text(json.dumps(data, indent=2))
    return path


def mismatches(cohort: Cohort, catalogue: Any) -> list[tuple[str, str, str]]:
    report = check_cohort(cohort, catalogue)
    return [(m.key, m.route, m.field) for m in report.mismatches]


def test_snapshot_is_the_reference_capture_with_supplementary_kept_apart(snapshot: Any) -> None:
    assert file_sha256(DEFAULT_SNAPSHOT) == REFERENCE_SHA256
    assert snapshot.source.kind == "snapshot"
    assert snapshot.source.sha256 == file_sha256(DEFAULT_SNAPSHOT)
    assert snapshot.source.captured_at == "2026-08-22T06:58:50Z"
    assert (snapshot.source.routes, snapshot.source.listed) == (431, 421)
    partial = {r["id"] for r in snapshot.supplementary_partial}
    assert len(partial) == 16 and "openai/gpt-6-astra" in partial
    assert not partial & set(snapshot.routes), "supplementary_partial leaked into the catalogue"
    assert "never catalogue truth" in snapshot.supplementary_label
    assert len(snapshot.listed_records()) == 421


def test_round0_cohort_passes_the_snapshot_with_devstral_disclosed(snapshot: Any) -> None:
    """Thirteen routes match every frozen expectation; Devstral 2 is a gap the cohort discloses:
    reported, the catalogue gate failed, but no mistake in the cohort file."""
    cohort = load_cohort(COHORT_FILE)
    report = check_cohort(cohort, snapshot, round_id="round-0", cohort_path=COHORT_FILE)
    assert len(report.routes) == 14
    assert [(m.key, m.route, m.field, m.kind, m.found) for m in report.mismatches] == [
        (*DELISTED, "present", "disclosed", "delisted")
    ]
    assert report.passed
    for route in report.routes:
        if route.key == DELISTED[0]:
            assert route.record_found and not route.present and route.last_seen == "2026-07-31"
            assert route.passed and not route.gate_passed  # preflight: not testable (catalogue)
            continue
        assert route.present and route.slug_matches and route.tools and route.tool_choice
        assert route.gate_passed and route.passed
        assert route.reasoning is not None
        assert route.reasoning.policy == route.reasoning.expected_policy
        assert route.prompt_usd_per_mtok is not None and route.created is not None
    assert report.cohort_sha256 == file_sha256(COHORT_FILE)
    table = render_table(report)
    assert "mistralai/devstral-2512" in table and "DELISTED" in table
    assert "no mismatches" in table and "1 disclosed gap(s)" in table


def test_an_undisclosed_delisted_route_is_a_mismatch(tmp_path: Path, snapshot: Any) -> None:
    def change(c: dict[str, Any]) -> None:
        del c["unlisted"]

    report = check_cohort(load_cohort(edited_cohort(tmp_path, DELISTED[0], change)), snapshot)
    assert [(m.key, m.field, m.kind, m.found) for m in report.mismatches] == [
        (DELISTED[0], "present", "route", "delisted")
    ]
    assert not report.passed
    assert "1 mismatch(es)" in render_table(report)


def test_a_disclosure_cannot_excuse_a_typo_or_a_stale_date(tmp_path: Path, snapshot: Any) -> None:
    """Only a route some capture listed, on the date the cohort gives, can be disclosed; a route
    the catalogue lists again makes the disclosure itself the mismatch."""
    gap = {"last_listed": "2026-07-31", "reason": "named by the methodology"}

    def typo(c: dict[str, Any]) -> None:
        c["route"] = c["expected_canonical_slug"] = "x-ai/grok-4.1-fast"
        c["unlisted"] = gap

    def relisted(c: dict[str, Any]) -> None:
        c["unlisted"] = gap

    def stale(c: dict[str, Any]) -> None:
        c["unlisted"] = {**c["unlisted"], "last_listed": "2026-07-30"}

    cases = [("grok", typo, "route", "absent"), ("grok", relisted, "input", "listed"),
             (DELISTED[0], stale, "input", "last listed 2026-07-31")]  # fmt: skip
    for key, change, kind, found in cases:
        report = check_cohort(load_cohort(edited_cohort(tmp_path, key, change)), snapshot)
        (miss,) = [m for m in report.mismatches if m.key == key]
        assert (miss.field, miss.kind, miss.found) == ("present", kind, found), key
        assert not report.passed
        assert miss.route in str(miss)


def test_a_disclosure_needs_cohort_schema_4(tmp_path: Path) -> None:
    data = json.loads(COHORT_FILE.read_text())
    data["schema_version"] = 3
    path = tmp_path / "models.json"
    path.write_text(json.dumps(data))
    with pytest.raises(RecordError, match="unlisted needs schema_version 4"):
        load_cohort(path)


def test_round0_cohort_keeps_fourteen_companies_and_the_methodology_names(snapshot: Any) -> None:
    cohort = load_cohort(COHORT_FILE)
    assert len({c.company for c in cohort.candidates}) == 14
    unnamed = {"claude-opus", "gpt-sol", "grok", "kimi", "glm", "minimax", "nova-lite"}
    for candidate in cohort.candidates:
        if candidate.key in unnamed:
            record = snapshot.get(candidate.route)
            assert record is not None and record.listed
            assert record.created and record.created[:10] in candidate.notes
            assert "advertises tools and tool_choice" in candidate.notes
    (maverick,) = [c for c in cohort.candidates if c.substitution]
    assert maverick.substitution is not None
    assert maverick.substitution.replaces == "Muse Spark 1.1"
    assert snapshot.get("meta/muse-spark-1.1") is not None  # listed later; disclosed in the notes
    assert "meta/muse-spark-1.1" in maverick.notes


def test_wrong_canonical_slug_is_named(tmp_path: Path, snapshot: Any) -> None:
    def change(c: dict[str, Any]) -> None:
        c["expected_canonical_slug"] = "deepseek/deepseek-v4-pro"

    cohort = load_cohort(edited_cohort(tmp_path, "deepseek-pro", change))
    found = mismatches(cohort, snapshot)
    assert ("deepseek-pro", "deepseek/deepseek-v4-pro", "canonical_slug") in found
    report = check_cohort(cohort, snapshot)
    (slug,) = [m for m in report.mismatches if m.field == "canonical_slug"]
    assert slug.expected == "deepseek/deepseek-v4-pro"
    assert slug.found == "deepseek/deepseek-v4-pro-20260423"
    assert slug.kind == "route"


def test_absent_route_is_named(tmp_path: Path, snapshot: Any) -> None:
    def change(c: dict[str, Any]) -> None:
        c["route"] = c["expected_canonical_slug"] = "x-ai/grok-4.1-fast"

    cohort = load_cohort(edited_cohort(tmp_path, "grok", change))
    report = check_cohort(cohort, snapshot)
    grok = [m for m in report.mismatches if m.key == "grok"]
    assert [(m.route, m.field, m.found) for m in grok] == [
        ("x-ai/grok-4.1-fast", "present", "absent")
    ]
    assert "grok (x-ai/grok-4.1-fast): present:" in render_table(report)


def test_route_only_in_supplementary_partial_is_absent(tmp_path: Path, snapshot: Any) -> None:
    def change(c: dict[str, Any]) -> None:
        c["route"] = "x-ai/grok-4.7"
        c["expected_canonical_slug"] = "x-ai/grok-4.7"

    cohort = load_cohort(edited_cohort(tmp_path, "grok", change))
    assert ("grok", "x-ai/grok-4.7", "present") in mismatches(cohort, snapshot)


def test_route_without_tool_choice_is_named(tmp_path: Path, snapshot: Any) -> None:
    def change(c: dict[str, Any]) -> None:
        c["route"] = c["expected_canonical_slug"] = "amazon/nova-premier-v1"

    cohort = load_cohort(edited_cohort(tmp_path, "nova-lite", change))
    nova = [m for m in mismatches(cohort, snapshot) if m[0] == "nova-lite"]
    assert nova == [("nova-lite", "amazon/nova-premier-v1", "tool_choice")]


def test_reasoning_policy_against_the_documented_efforts(tmp_path: Path, snapshot: Any) -> None:
    def default(c: dict[str, Any]) -> None:
        c["reasoning"] = "default"

    def high(c: dict[str, Any]) -> None:
        c["reasoning"] = "high"

    step = check_cohort(load_cohort(edited_cohort(tmp_path, "step-flash", default)), snapshot)
    (miss,) = [m for m in step.mismatches if m.key == "step-flash"]
    assert (miss.field, miss.kind, miss.expected, miss.found) == (
        "reasoning", "input", "high", "default"
    )  # fmt: skip
    maverick = check_cohort(load_cohort(edited_cohort(tmp_path, "llama-maverick", high)), snapshot)
    assert [(m.field, m.expected) for m in maverick.mismatches if m.key == "llama-maverick"] == [
        ("reasoning", "default")
    ]
    (route,) = [r for r in maverick.routes if r.key == "llama-maverick"]
    assert route.reasoning is not None and route.reasoning.documented == "none"
    assert route.gate_passed and not route.passed  # an input error, not a catalogue failure


def test_live_models_payload_builds_the_same_catalogue_shape(snapshot: Any) -> None:
    record = dict(snapshot.raw["anthropic/claude-opus-5"])
    record.pop("_provenance")
    record["created"] = record.pop("created_unix")  # live /models has unix seconds
    live = catalogue_from_models([record], base_url="http://127.0.0.1:9/api/v1")
    route = live.get("anthropic/claude-opus-5")
    assert route is not None and route.listed
    assert route.created == snapshot.get("anthropic/claude-opus-5").created
    assert live.source.kind == "live" and live.source.sha256 is None
    with pytest.raises(RecordError, match=r"data\[0\]"):
        catalogue_from_models([{"name": "no id"}], base_url="http://127.0.0.1:9/api/v1")


def test_cli_exit_status_table_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "report.json"
    assert main(["check", "--round", "round-0", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "devstral (mistralai/devstral-2512): present:" in printed
    report = read_record(out, CatalogueReport)
    assert report.schema_version == 3 and report.round_id == "round-0"
    assert report.catalogue.location == "benchmark/catalogue/openrouter-2026-08-22.json"


def test_cli_exits_one_on_a_mismatch_and_two_on_unreadable_inputs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(COHORT_FILE.read_text())
    for c in data["candidates"]:
        if c["key"] == "deepseek-pro":
            c["expected_canonical_slug"] = "deepseek/deepseek-v4-pro"
    cohort = tmp_path / "cohort.json"
    cohort.write_text(json.dumps(data))
    rounds = tmp_path / "rounds"
    rounds.mkdir()
    settings = json.loads((BENCHMARK_DIR / "rounds" / "round-0.json").read_text())
    settings.update(round_id="catalogue-test", cohort=str(cohort))
    (rounds / "catalogue-test.json").write_text(json.dumps(settings))
    monkeypatch.setattr(inputs, "rounds_dir", lambda: rounds)
    assert main(["check", "--round", "catalogue-test"]) == 1
    printed = capsys.readouterr().out
    assert "1 mismatch(es)" in printed
    assert "deepseek-pro (deepseek/deepseek-v4-pro): canonical_slug:" in printed
    assert main(["check", "--round", "catalogue-test", "--catalogue", str(tmp_path / "no")]) == 2


def test_cohort_records_the_snapshot_it_was_checked_against(tmp_path: Path, snapshot: Any) -> None:
    cohort = load_cohort(COHORT_FILE)
    assert cohort.schema_version == 4 and cohort.catalogue is not None
    assert cohort.catalogue.path == DEFAULT_SNAPSHOT
    assert cohort.catalogue.sha256 == file_sha256(DEFAULT_SNAPSHOT)
    report = check_cohort(cohort, snapshot, cohort_path=COHORT_FILE)
    assert not [m for m in report.mismatches if m.field == "catalogue"] and not report.notes
    data = json.loads(COHORT_FILE.read_text())
    data["catalogue"]["sha256"] = "0" * 64
    (tmp_path / "models.json").write_text(json.dumps(data))
    stale = check_cohort(load_cohort(tmp_path / "models.json"), snapshot)
    (miss,) = [m for m in stale.mismatches if m.field == "catalogue"]
    assert (miss.kind, miss.expected, miss.found) == ("input", "0" * 64, snapshot.source.sha256)


def test_live_check_asks_the_rounds_simulator_on_loopback() -> None:
    """`--live` on a simulated round: the same check, /models fetched through the client."""
    from gateway_support import loopback_only

    settings = load_round("showcase")
    with loopback_only() as seen:
        live = fetch_live_catalogue(settings)
    assert seen and all(a[0] == "127.0.0.1" for a in seen if isinstance(a, tuple))
    assert live.source.kind == "live" and "simulator" in live.source.location
    report = check_cohort(load_cohort(settings.cohort_path), live)
    found = {(m.key, m.field) for m in report.mismatches if m.kind == "route"}
    assert {("missing-route", "present"), ("no-tool-choice", "tool_choice")} <= found
    assert report.route("strong-builder").canonical_slug == "demo-northwind/builder-1-20261001"


def test_a_provider_pin_is_checked_against_the_routes_endpoints() -> None:
    """Live (here the showcase's simulator): each pinned provider needs an endpoint tagged with
    its slug that takes tools and tool_choice, under the cohort's name for it."""
    from dataclasses import replace

    from gateway_support import loopback_only

    from harness.catalogue.check import check_candidate
    from records.inputs import PinnedProvider, ProviderPin

    settings = load_round("showcase")
    cohort = load_cohort(settings.cohort_path)
    with loopback_only():
        live = fetch_live_catalogue(settings)
    assert live.endpoints is not None and "demo-drift/roam-1" in live.endpoints
    report = check_cohort(cohort, live)
    assert not [m for m in report.mismatches if m.field == "provider"]  # the showcase's pins hold
    pinned = cohort.by_key("strong-builder")

    def pin(slug: str, name: str) -> list[tuple[str, str]]:
        candidate = pinned.model_copy(
            update={"provider": ProviderPin(only=[PinnedProvider(slug=slug, name=name)])}
        )
        return [(m.kind, m.detail) for m in check_candidate(candidate, live).mismatches]

    assert pin("demo-cloud", "Demo Cloud") == []
    [(kind, why)] = pin("elsewhere", "Elsewhere")
    assert kind == "route" and "has no endpoint for the route" in why
    [(kind, why)] = pin("demo-cloud", "Demo Cloud Inc")
    assert kind == "input" and "fix the cohort's name" in why
    offline = check_candidate(pinned, replace(live, endpoints=None))  # as from a snapshot
    assert "provider pin not verified here" in " ".join(offline.warnings)


def test_live_check_of_a_paid_round_needs_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)
    with pytest.raises(LiveCatalogueUnavailable, match="OPENROUTER_API_KEY"):
        fetch_live_catalogue(load_round("round-0"))
    assert main(["check", "--round", "round-0", "--live"]) == 2


# -- the rehearsal: round-0's cohort served by the simulator with the snapshot catalogue ---------


def test_rehearsal_round_is_round0_with_a_simulated_gateway() -> None:
    real, rehearsal = load_round("round-0"), load_round("round-0-rehearsal")
    assert (real.kind, rehearsal.kind) == ("real", "rehearsal")
    assert rehearsal.cohort_path == real.cohort_path  # the exact cohort file, same hash
    for field in ("ceilings", "seed", "probes", "repetitions", "node_version"):
        assert getattr(rehearsal, field) == getattr(real, field), field
    assert rehearsal.simulation is not None and not rehearsal.requires_api_key
    assert rehearsal.simulation.catalogue_path == DEFAULT_SNAPSHOT
    cohort = load_cohort(rehearsal.cohort_path)
    assert list(rehearsal.simulation.scripts) == [c.key for c in cohort.candidates]
    for script in rehearsal.simulation.scripts.values():
        assert (BENCHMARK_DIR / script).is_file(), script


def test_simulator_serves_the_snapshot_with_canonical_slugs(snapshot: Catalogue) -> None:
    import httpx
    from gateway_support import loopback_only

    from gateway.simulator import Simulator
    from gateway.simulator.catalogue import live_shape

    settings = load_round("round-0-rehearsal")
    key = {"Authorization": "Bearer sk-test"}
    with loopback_only(), Simulator.from_rehearsal(settings) as sim:
        models = httpx.get(f"{sim.base_url}/models").json()["data"]
        assert len(models) == snapshot.source.listed
        by_id = {m["id"]: m for m in models}
        assert by_id["anthropic/claude-opus-5"] == live_shape(
            snapshot.raw["anthropic/claude-opus-5"]
        )
        assert isinstance(by_id["anthropic/claude-opus-5"]["created"], int)
        assert "mistralai/devstral-2512" not in by_id and "openai/gpt-6-astra" not in by_id
        endpoint = httpx.get(f"{sim.base_url}/models/x-ai/grok-4.6/endpoints").json()["data"]
        assert endpoint["endpoints"][0]["pricing"]["completion"] == "0.000006"
        body = {"model": "x-ai/grok-4.6", "messages": [{"role": "user", "content": "hi"}]}
        reply = httpx.post(f"{sim.base_url}/chat/completions", json=body, headers=key).json()
        assert reply["model"] == "x-ai/grok-4.6-20260810"  # the canonical slug, as live
        gone = {"model": "mistralai/devstral-2512", "messages": body["messages"]}
        assert (
            httpx.post(f"{sim.base_url}/chat/completions", json=gone, headers=key).status_code
            == 400
        )


def test_catalogue_stage_writes_the_report_and_refuses_input_mismatches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from harness.catalogue import stage

    assert stage.catalogue_stage(Round.load("round-0-rehearsal", tmp_path))
    report = stage.read_report(Round.load("round-0-rehearsal", tmp_path))
    assert report is not None and report.catalogue.kind == "live"
    assert [(m.key, m.field, m.kind) for m in report.mismatches] == [
        ("devstral", "present", "disclosed")
    ]
    assert report.passed
    lines = stage.price_lines(Round.load("round-0-rehearsal", tmp_path))
    assert any("claude-opus" in line and "$5.00 in, $25.00 out" in line for line in lines)
    assert any("devstral" in line and "not listed" in line for line in lines)
    data = json.loads(COHORT_FILE.read_text())
    for c in data["candidates"]:
        if c["key"] == "step-flash":
            c["reasoning"] = "default"
    cohort = tmp_path / "models.json"
    cohort.write_text(json.dumps(data))
    rounds = tmp_path / "rounds"
    rounds.mkdir()
    settings = json.loads((BENCHMARK_DIR / "rounds" / "round-0-rehearsal.json").read_text())
    settings.update(round_id="stage-test", cohort=str(cohort))
    (rounds / "stage-test.json").write_text(json.dumps(settings))
    monkeypatch.setattr(inputs, "rounds_dir", lambda: rounds)
    assert not stage.catalogue_stage(Round.load("stage-test", tmp_path))
    assert "refused: 1 input mismatch" in capsys.readouterr().out


def test_rehearsal_smoke_subset_is_verbatim_round0() -> None:
    """The CI subset (tests/test_rehearsal.py) copies its candidates from models.json unchanged."""
    smoke, full = load_round("round-0-rehearsal-smoke"), load_round("round-0-rehearsal")
    real = {c.key: c for c in load_cohort(COHORT_FILE).candidates}
    subset = load_cohort(smoke.cohort_path)
    assert subset.candidates and all(c == real[c.key] for c in subset.candidates)
    assert subset.catalogue == load_cohort(COHORT_FILE).catalogue
    assert smoke.simulation is not None and full.simulation is not None
    assert smoke.simulation.scripts == {
        c.key: full.simulation.scripts[c.key] for c in subset.candidates
    }
    assert smoke.model_dump(exclude={"round_id", "title", "cohort", "simulation", "notes"}) == (
        full.model_dump(exclude={"round_id", "title", "cohort", "simulation", "notes"})
    )


def test_evidence_viewer_pages_carry_the_round_label() -> None:
    """The site's evidence viewers sit outside the MkDocs theme; they say what round it is too."""
    from publish.published import viewer_html

    label = "Rehearsal round round-0-rehearsal: every model is a script <simulated>."
    page = viewer_html(
        "round-0-rehearsal/order.json", "{}", 2, "order.json", "evidence/x.html", label
    )
    assert '<p class="kind">Rehearsal round round-0-rehearsal: every model is a script &lt;' in page
    assert '<p class="kind">' not in viewer_html("r/o.json", "{}", 2, None, "evidence/x.html")


def test_a_tools_round_s_image_route_is_checked_before_anything_is_spent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The demo tools round's simulator lists its image route; a gateway catalogue without it, or
    with it but no image output, refuses the catalogue stage and names the arm."""
    from harness.catalogue import check_image_routes, stage

    rnd = Round.load("demo-tools", tmp_path)
    assert stage.catalogue_stage(rnd)
    report = stage.read_report(rnd)
    assert report is not None and report.schema_version == 3
    assert not [m for m in report.mismatches if m.field == "image_route"]

    snapshot = load_snapshot(DEFAULT_SNAPSHOT)
    route = "google/gemini-2.5-flash-image"
    listed = snapshot.listed_records()
    assert check_image_routes(rnd.arms, catalogue_from_models(listed, base_url="x")) == []
    without = [r for r in listed if r["id"] != route]
    text_only = [
        {**r, "architecture": {**r["architecture"], "output_modalities": ["text"]}}
        if r["id"] == route
        else r
        for r in listed
    ]
    for records, found in ((without, "absent"), (text_only, "no image output")):
        catalogue = catalogue_from_models(records, base_url="http://gw")
        [miss] = check_image_routes(rnd.arms, catalogue)
        assert (miss.key, miss.route, miss.field, miss.found) == (
            "image-model",
            route,
            "image_route",
            found,
        )
        monkeypatch.setattr(stage, "fetch_live_catalogue", lambda _s, c=catalogue: c)
        again = Round.load("demo-tools", tmp_path / found.replace(" ", "-"))
        assert not stage.catalogue_stage(again)
        out = capsys.readouterr().out
        assert "refused: the image route of the tools arm(s) image-model" in out
        assert "image-model (google/gemini-2.5-flash-image): image_route:" in out
