"""Fast checks of the session pieces that need no agent run: config, events, verdicts, refusals."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from session_support import freeze_demo

from harness.agents.opencode import OpenCodeAgent, edited_paths, opencode_config
from harness.invalidation import REQUIRED_EVIDENCE, UnitFacts, assess, check_identity
from harness.marker_repair import RepairRefused, repair_marker
from harness.preflight import run_preflight
from harness.session.evidence import new_marker, read_marker, write_marker
from harness.session.sandbox import FORWARDER, SandboxSpec
from harness.session.upstream import MissingApiKey
from harness.unit import UnitRefused, run_unit
from records.evidence.gateway import GatewaySummary
from records.io import append_jsonl
from records.layout import REPO_ROOT, TOOLS_DIR, UnitPaths, round_paths
from records.round import Round

# Real `opencode run --format json` output: a copy of ../shared/reference/opencode-1.17.18/.
REFERENCE = Path(__file__).parent / "data/reference/opencode-1.17.18/run-format-json-events.jsonl"


def test_config_points_at_the_proxy_and_denies_the_web() -> None:
    config = opencode_config("a/b", "high", "http://127.0.0.1:18080/api/v1")
    assert config["permission"]["webfetch"] == config["permission"]["websearch"] == "deny"
    assert config["permission"]["external_directory"] == "deny"
    assert config["tools"] == {"todowrite": False, "task": False, "skill": False}
    router = config["provider"]["openrouter"]
    assert router["options"]["baseURL"] == "http://127.0.0.1:18080/api/v1"
    assert router["options"]["apiKey"] == "{env:OPENROUTER_API_KEY}"
    options = router["models"]["a/b"]["options"]
    assert options["reasoning"] == {"effort": "high"}
    assert options["provider"] == {"allow_fallbacks": False, "require_parameters": True}
    assert "reasoning" not in opencode_config("a/b", "default", "u")["provider"]["openrouter"][
        "models"]["a/b"]["options"]  # fmt: skip


def test_prepare_isolates_home_and_reads_prompt_from_stdin(tmp_path: Path) -> None:
    spec = SandboxSpec(worktree=tmp_path / "wt", home=tmp_path / "home",
                       gateway_socket=tmp_path / "gw" / "proxy.sock")  # fmt: skip
    launch = OpenCodeAgent().prepare(spec, route="a/b", reasoning="high", title="u-r1",
                                     prompt=b"exact bytes\n")  # fmt: skip
    assert launch.stdin == b"exact bytes\n"
    assert launch.command[1:6] == ["run", "--pure", "--format", "json", "-m"]
    assert launch.command[6:] == ["openrouter/a/b", "--dir", "/workspace", "--title", "u-r1"]
    assert spec.env["OPENCODE_CONFIG"].startswith("/") and spec.env["XDG_CONFIG_HOME"]
    assert all(spec.env[k] == "1" for k in spec.env if k.startswith("OPENCODE_DISABLE_"))
    assert spec.env["OPENROUTER_API_KEY"] == "sk-siteos-proxy"
    assert (tmp_path / "home/.config/opencode/package-lock.json").exists()
    argv = spec.argv(launch.command)
    assert "--unshare-all" in argv and "--remount-ro" in argv
    sources = [argv[i + 1] for i, a in enumerate(argv) if a in ("--bind", "--ro-bind")]
    for source in sources:  # of the repository only the tools and the forwarder are visible
        if source.startswith(str(REPO_ROOT)):
            assert source.startswith((str(TOOLS_DIR), str(FORWARDER))), source


def test_trace_reads_the_recorded_events(tmp_path: Path) -> None:
    assert REFERENCE.is_file(), f"{REFERENCE}: the recorded reference events are missing"
    events = tmp_path / "events.jsonl"
    shutil.copy(REFERENCE, events)
    trace = OpenCodeAgent().read_trace(events)
    assert trace.turns == 3 and trace.finished_normally
    assert [s.finish_reason for s in trace.steps] == ["tool-calls", "tool-calls", "stop"]
    assert [[p.source for p in s.parts] for s in trace.steps] == [
        ["events.jsonl:2"], ["events.jsonl:5"], ["events.jsonl:8"]]  # fmt: skip
    first = trace.steps[0].metrics
    assert first is not None and (first.input_tokens, first.output_tokens) == (95, 17)
    assert (first.reasoning_tokens, first.cache_read_tokens, first.cost_usd) == (3, 7, None)
    assert [c.exit_code for c in trace.commands] == [0]
    assert [c.source for c in trace.commands] == ["events.jsonl:5"]
    assert [(t.tool, t.source) for t in trace.tool_calls] == [
        ("write", "events.jsonl:2"), ("bash", "events.jsonl:5")]  # fmt: skip
    assert [(m.text, m.source) for m in trace.messages] == [
        ("All done: wrote hello.txt and probe.txt.", "events.jsonl:8")]  # fmt: skip
    assert trace.edits == ["/worktree/hello.txt"]
    assert all(e.timestamp for e in [*trace.tool_calls, *trace.messages, *trace.commands])
    assert trace.agent.name == "opencode" and "OpenCode" in trace.identity.names


def test_apply_patch_edits_name_their_files() -> None:
    """OpenCode offers gpt- routes apply_patch instead of write/edit: the trace records the files
    the patch names, so a probe edit through apply_patch counts as an edit of the probe file."""
    patch = (
        "*** Begin Patch\n*** Update File: probe.txt\n@@\n-probe 1 pending\n+probe 1 ok\n"
        "*** Add File: src/new.ts\n+export {}\n*** End Patch"
    )
    assert edited_paths("apply_patch", {"patchText": patch}) == ["probe.txt", "src/new.ts"]
    assert edited_paths("write", {"filePath": "/wt/a.txt", "content": "x"}) == ["/wt/a.txt"]
    assert edited_paths("apply_patch", {"patchText": "not a patch"}) == ["apply_patch"]


def test_identity_family_and_verdicts() -> None:
    """Responses must name the frozen canonical slug (live answers with it); generation records
    may name the route or the slug."""
    ok = check_identity("x/m-1", "x/m-1-20260101", ["x/m-1-20260101"], [], ["x/m-1"])
    assert ok.verdict == "consistent"
    assert ok.observed_models == ["x/m-1-20260101", "x/m-1"]
    route_id = check_identity("x/m-1", "x/m-1-20260101", ["x/m-1-20260101", "x/m-1"], [], [])
    assert (route_id.verdict, route_id.contradictions) == ("contradicts", ["x/m-1"])
    bad = check_identity("x/m-1", "x/m-1-20260101", ["x/m-1-20260101", "y/other"], [], [])
    assert (bad.verdict, bad.contradictions) == ("contradicts", ["y/other"])
    swapped = check_identity("x/m-1", "x/m-1-20260101", ["x/m-1-20260101"], [], ["y/other"])
    assert swapped.contradictions == ["y/other"]
    assert check_identity("x/m", "x/m", [], [], []).verdict == "unobserved"
    pinned = check_identity("x/m", "x/m", ["x/m"], ["A Cloud"], [], pinned=["A Cloud"])
    assert (pinned.verdict, pinned.provider_contradictions) == ("consistent", [])
    drifted = check_identity("x/m", "x/m", ["x/m"], ["A Cloud", "B Cloud"], [], ["A Cloud"])
    assert (drifted.verdict, drifted.provider_contradictions) == ("contradicts", ["B Cloud"])
    assert drifted.contradictions == []  # the model was right: only the provider was not
    unpinned = check_identity("x/m", "x/m", ["x/m"], ["A Cloud", "B Cloud"], [])
    assert unpinned.verdict == "consistent"  # no pin: the gateway's routing, shown as a mix


def facts(**overrides: object) -> UnitFacts:
    base: dict[str, object] = dict(
        stop_status="completed", exit_code=0, hash_problems=[],
        identity=check_identity("x/m", "x/m", ["x/m"], [], []),
        gateway=GatewaySummary(chat_requests=3, steps=3),
        evidence_present=list(REQUIRED_EVIDENCE),
    )  # fmt: skip
    base.update(overrides)
    return UnitFacts(**base)  # type: ignore[arg-type]


def test_assessment_separates_model_provider_and_harness_failures() -> None:
    assert assess(facts()).validity == "valid"
    ceiling = assess(facts(stop_status="time_ceiling", exit_code=-15))
    assert (ceiling.validity, ceiling.failure_class) == ("valid", "model")
    outage = assess(
        facts(
            stop_status="provider_outage",
            gateway=GatewaySummary(
                chat_requests=9, upstream_errors=8, error_classes={"upstream_5xx": 8}, retries=7
            ),
        )
    )
    assert (outage.validity, outage.failure_class) == ("invalid", "provider_outage")
    # the same errors survived up to the time ceiling: the ceiling ended it, scored (issue 29)
    survived = assess(
        facts(
            stop_status="time_ceiling",
            gateway=GatewaySummary(chat_requests=9, upstream_errors=8,
                                   error_classes={"upstream_5xx": 8}),
        )
    )  # fmt: skip
    assert (survived.validity, survived.failure_class) == ("valid", "model")
    missing = assess(facts(evidence_present=["events.jsonl"]))
    assert any("required evidence missing" in r for r in missing.reasons)
    crashed = assess(facts(stop_status="crashed", harness_error="runner killed"))
    assert (crashed.validity, crashed.failure_class) == ("invalid", "harness")
    assert assess(facts(human_intervention=True)).reasons == ["human intervention"]


def test_paid_round_without_key_refuses(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)
    monkeypatch.setattr("harness.preflight.require_isolation", lambda paid: True)
    with pytest.raises(MissingApiKey, match="OPENROUTER_API_KEY"):
        run_preflight(Round.load("round-0", tmp_path), "claude-opus")
    assert not list(tmp_path.rglob("*.json"))


def _demo_unit_with_marker(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> tuple[Path, UnitPaths]:
    """A frozen demo round whose unit strong-builder-r1 holds a `.running` marker written by the
    runner's own writer, and a runner that fails the test if it ever starts a session."""
    evidence = tmp_path / "evidence"
    monkeypatch.setenv("SITEOS_SCRATCH", str(tmp_path / "scratch"))
    freeze_demo(evidence)

    def second_session(*args: object, **kwargs: object) -> None:
        raise AssertionError("a second session started")

    monkeypatch.setattr("harness.unit._execute", second_session)
    paths = round_paths("showcase", evidence).unit("strong-builder-r1")
    paths.root.mkdir(parents=True)
    scratch = tmp_path / "scratch" / "strong-builder-r1-x"
    write_marker(paths, new_marker("strong-builder-r1", scratch, scratch / "wt"))
    append_jsonl(paths.gateway, {"request": 1})  # the first session's first paid request
    return evidence, paths


@pytest.mark.parametrize("damage", ["truncated", "other unit", "deleted"])
def test_an_unreadable_running_marker_stops_and_asks_never_a_second_session(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, damage: str
) -> None:
    evidence, paths = _demo_unit_with_marker(monkeypatch, tmp_path)
    text = paths.running_marker.read_text()
    if damage == "truncated":
        paths.running_marker.write_text(text[: len(text) // 2])
    elif damage == "other unit":
        paths.running_marker.write_text(text.replace('"strong-builder-r1"', '"idle-r1"', 1))
    else:
        paths.running_marker.unlink()
    before = {p.name: p.read_bytes() for p in paths.root.iterdir()}
    with pytest.raises(UnitRefused) as refused:
        run_unit(Round.load("showcase", evidence), "strong-builder", check_order=False)
    message = str(refused.value)
    assert str(paths.running_marker) in message and "none was started" in message
    assert "ps -ef | grep strong-builder-r1" in message and "Never delete it" in message
    assert {p.name: p.read_bytes() for p in paths.root.iterdir()} == before  # nothing touched
    assert not paths.session.exists()


def test_a_valid_marker_of_a_dead_runner_is_still_recovered_not_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _, paths = _demo_unit_with_marker(monkeypatch, tmp_path)
    marker = read_marker(paths, "strong-builder-r1")
    assert marker is not None and marker.unit == "strong-builder-r1"
    assert read_marker(round_paths("showcase", tmp_path / "evidence").unit("idle-r1")) is None


def test_a_real_round_runs_no_unit_under_another_wall_clock_ceiling(tmp_path: Path) -> None:
    with pytest.raises(UnitRefused, match="its wall-clock ceiling is 1800 s .* not 90 s"):
        run_unit(Round.load("round-0", tmp_path), "claude-opus", wall_clock_seconds=90)
    assert not list(tmp_path.rglob("*"))


def test_after_the_operator_writes_the_marker_back_the_unit_is_recorded_not_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    evidence, paths = _demo_unit_with_marker(monkeypatch, tmp_path)
    paths.gateway.unlink()
    shutil.copy(REFERENCE, paths.events)  # the first session's events (a real OpenCode log)
    paths.running_marker.write_text("{")  # unparsable
    with pytest.raises(UnitRefused):
        run_unit(Round.load("showcase", evidence), "strong-builder", check_order=False)
    with pytest.raises(RepairRefused, match="a reason is required"):
        repair_marker("showcase", "strong-builder-r1", " ", evidence_dir=evidence)
    repair = repair_marker(
        "showcase", "strong-builder-r1", "the host rebooted", evidence_dir=evidence
    )
    assert repair.kept_as and (paths.root / repair.kept_as).read_text() == "{"
    assert "unreadable running marker" in repair.problem and repair.scratch is None
    with pytest.raises(RepairRefused, match="written back once already"):
        repair_marker("showcase", "strong-builder-r1", "again", evidence_dir=evidence)
    record = run_unit(Round.load("showcase", evidence), "strong-builder", check_order=False)
    assert (record.stop_status, record.validity, record.failure_class) == (
        "crashed", "invalid", "harness")  # fmt: skip
    assert "marker-repair.json" in record.evidence_files and not paths.running_marker.exists()
    assert record.steps == 0 and record.started_at == repair.started_at_estimate


def test_a_cut_text_says_so_and_the_site_can_tell() -> None:
    """The adapter's cut and the site's test for it are one format (records.evidence.agent)."""
    from harness.agents.base import truncate
    from records.evidence.agent import was_cut

    kept, cut = truncate("x" * 5000)
    assert cut and was_cut(kept) and "1000 characters cut" in kept
    assert truncate("short") == ("short", False) and not was_cut("short")
