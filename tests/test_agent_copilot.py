"""GitHub Copilot CLI 1.0.102 as an agent: its recorded JSONL logs read into the trajectory (tokens
from the proxy's records), the launch it gets (no setting that reaches past the proxy, with the
recorded isolation runs as evidence), and a real run in the session sandbox against a scripted
recorder (`agent_recorder.py`) that sees only OpenAI Responses requests."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from agent_recorder import PROMPT, REFUSAL, ROUTE, run_agent, spec

from harness.agents import AGENTS
from harness.agents.copilot import (
    MAX_OUTPUT_TOKENS,
    PACKAGE_INSIDE,
    TOOLS,
    CopilotAgent,
)
from harness.session.sandbox import bwrap_available
from publish.render import environment
from publish.trajectory import tool_view
from records.evidence.agent import ErrorPart, TextPart, ToolPart
from records.evidence.gateway import ExchangeRecord, TokenUsage
from records.io import append_jsonl
from records.tools import COPILOT, COPILOT_DIR
from scoring.anonymise import anonymise_diff, identity_pattern
from scoring.claims import agent_label

DATA = Path(__file__).parent / "data/agents/copilot-1.0.102"
INSTALLED = COPILOT.exists()
RESPONSES = "/api/v1/responses"


def cited(path: Path, source: str) -> dict:
    name, number = source.rsplit(":", 1)
    assert name == path.name
    return json.loads(path.read_text().split("\n")[int(number) - 1])


def with_gateway(tmp_path: Path, run: str) -> Path:
    """The recorded run's log beside the `gateway.jsonl` the proxy would have written for its
    served requests (one step each, as the proxy counts them)."""
    events = tmp_path / "events.jsonl"
    shutil.copy(DATA / run / "events.jsonl", events)
    served = [r for r in json.loads((DATA / run / "requests.json").read_text())][:4]
    if run == "refused":
        served = served[:2]  # the third was refused before reaching upstream
    for n, request in enumerate(served, 1):
        usage = TokenUsage(prompt=1000 * n, completion=10 * n, cached=7, cost_usd=0.001)
        record = ExchangeRecord(time="2026-12-07T14:30:00.000+00:00", index=n, kind="chat",
                                method="POST", path=request["path"], step=n,
                                protocol="responses", request={"model": ROUTE},
                                status=200, latency_ms=1.0, usage=usage)  # fmt: skip
        append_jsonl(tmp_path / "gateway.jsonl", json.loads(record.model_dump_json()))
    return events


def test_a_recorded_session_reads_into_four_turns(tmp_path: Path) -> None:
    events = with_gateway(tmp_path, "session")
    trace = CopilotAgent().read_trace(events)
    assert trace.agent.name == "copilot" and trace.malformed_lines == 0
    assert [s.source for s in trace.steps] == ["agent"] * 4
    assert trace.finish_reasons == ["tool-calls", "tool-calls", "tool-calls", "stop"]
    assert trace.finished_normally and not trace.errors
    first = trace.steps[0]
    texts = [p for p in first.parts if isinstance(p, TextPart)]
    assert [(t.kind, t.text) for t in texts] == [
        ("reasoning", "Create the file first."), ("text", "Creating notes.txt.")]  # fmt: skip
    (create,) = [p for p in first.parts if isinstance(p, ToolPart)]
    assert (create.tool, create.status) == ("create", "completed")
    notes = "/workspace/notes.txt"
    assert create.input == {"path": notes, "file_text": "Hello from the recorder\n"}
    assert trace.edits == [notes, notes]  # create, then edit
    assert [p.tool for p in trace.steps[1].parts if isinstance(p, ToolPart)] == ["edit", "bash"]
    # exit codes from the CLI's own log (`shellExecution.exitCode`): 0, then 1
    assert [(c.command, c.exit_code, c.status) for c in trace.commands] == [
        ("cat notes.txt && ls", 0, "completed"), ("cat missing.txt", 1, "completed")]  # fmt: skip
    assert trace.commands[0].output.startswith(
        "Hello again from the recorder\nhello.txt\nnotes.txt"
    )
    assert trace.steps[3].parts[-1].text == "Done: notes.txt written and checked."  # type: ignore[union-attr]
    stamps = [s.started_at for s in trace.steps]
    assert all(stamps) and stamps == sorted(stamps)
    assert "reports no tokens or cost" in trace.notes
    tokens = [(s.metrics.input_tokens, s.metrics.output_tokens, s.metrics.cache_read_tokens)
              for s in trace.steps if s.metrics]  # fmt: skip
    assert tokens == [(1000, 10, 7), (2000, 20, 7), (3000, 30, 7), (4000, 40, 7)]  # the proxy's
    for part in trace.parts():  # every part cites the native line it came from
        line = cited(events, part.source)
        if isinstance(part, ToolPart):
            assert line["type"] == "tool.execution_complete"
            assert line["data"]["toolCallId"] == part.call_id


def test_without_the_proxys_records_tokens_are_unknown() -> None:
    trace = CopilotAgent().read_trace(DATA / "session/events.jsonl")
    assert all(s.metrics is None for s in trace.steps)
    assert trace.finished_normally and len(trace.tool_calls) == 4


def test_a_refused_step_is_an_error_after_the_turns_that_ran(tmp_path: Path) -> None:
    trace = CopilotAgent().read_trace(with_gateway(tmp_path, "refused"))
    agent_steps = [s for s in trace.steps if s.source == "agent"]
    assert len(agent_steps) >= 2 and trace.steps[-1].source == "system"
    assert trace.finish_reasons[:2] == ["tool-calls", "tool-calls"]
    assert not trace.finished_normally
    errors = [p for p in trace.steps[-1].parts if isinstance(p, ErrorPart)]
    assert errors and any(REFUSAL in e.text for e in errors)


def test_the_site_shows_its_writes_and_edits() -> None:
    trace = CopilotAgent().read_trace(DATA / "session/events.jsonl")
    create, edit, shell = (tool_view(p) for p in trace.tool_calls[:3])
    assert create.path == "/workspace/notes.txt" and edit.path == "/workspace/notes.txt"
    assert shell.kind == "shell" and shell.text == "cat notes.txt && ls"


def test_prepare_points_the_cli_at_the_proxy_and_turns_off_the_rest(tmp_path: Path) -> None:
    sandbox = spec(tmp_path)
    launch = CopilotAgent().prepare(
        sandbox, route=ROUTE, reasoning="high", title="unit-1", prompt=PROMPT.encode()
    )
    assert launch.stdin == PROMPT.encode()  # piped stdin is its prompt
    env = sandbox.env
    assert env["COPILOT_PROVIDER_BASE_URL"] == "http://127.0.0.1:18080/api/v1"
    assert (env["COPILOT_PROVIDER_TYPE"], env["COPILOT_PROVIDER_WIRE_API"]) == (
        "openai", "responses")  # fmt: skip
    assert env["COPILOT_MODEL"] == ROUTE and env["COPILOT_PROVIDER_API_KEY"] == "sk-siteos-proxy"
    assert env["COPILOT_OFFLINE"] == "true" and env["COPILOT_AUTO_UPDATE"] == "false"
    assert env["COPILOT_PROVIDER_MAX_OUTPUT_TOKENS"] == str(MAX_OUTPUT_TOKENS)
    assert env["COPILOT_PKG_CACHE_HOME"] == f"{PACKAGE_INSIDE}/cache"
    assert sandbox.ro_binds[PACKAGE_INSIDE] == COPILOT_DIR.resolve()
    command = launch.command
    assert command[0] == f"{PACKAGE_INSIDE}/node_modules/@github/copilot-linux-x64/copilot"
    assert command[1:3] == ["--model", ROUTE]
    for flag in ("--allow-all", "--no-ask-user", "--no-auto-update", "--disable-builtin-mcps",
                 "--disable-client-telemetry"):  # fmt: skip
        assert flag in command
    at = command.index("--output-format")
    assert command[at + 1] == "json"
    at = command.index("--available-tools")
    assert command[at + 1 :] == list(TOOLS)
    assert AGENTS["copilot"] is CopilotAgent and agent_label("copilot") == "GitHub Copilot CLI"


def test_its_prompt_limit_follows_the_routes_context_window(tmp_path: Path) -> None:
    """The CLI compacts its prompt to the limit it is told: the catalogue's window less the
    output it asks for; its own guess only when the catalogue names no window."""
    limits = {}
    for window in (None, 200_000, 24_000):
        sandbox = spec(tmp_path / str(window))
        CopilotAgent().prepare(sandbox, route=ROUTE, reasoning="high", title="u", prompt=b"",
                               context_length=window)  # fmt: skip
        limits[window] = int(sandbox.env["COPILOT_PROVIDER_MAX_PROMPT_TOKENS"])
    assert limits == {None: 128_000, 200_000: 200_000 - MAX_OUTPUT_TOKENS, 24_000: 12_000}


def test_the_recorded_launch_is_the_one_prepare_makes(tmp_path: Path) -> None:
    """The evidence in tests/data was recorded with this adapter's launch: re-record it (README
    there) when the launch changes."""
    sandbox = spec(tmp_path)
    launch = CopilotAgent().prepare(
        sandbox, route=ROUTE, reasoning="high", title="capture-unit", prompt=b""
    )
    for run in ("session", "refused"):
        recorded = json.loads((DATA / run / "launch.json").read_text())
        assert recorded["command"] == launch.command and recorded["env"] == sandbox.env


def test_the_recorded_session_asked_only_the_proxy_with_the_tools_it_offers() -> None:
    requests = json.loads((DATA / "session/requests.json").read_text())
    assert {(r["method"], r["path"]) for r in requests} == {("POST", RESPONSES)}
    first = requests[0]["body"]
    assert sorted(t["name"] for t in first["tools"]) == sorted(TOOLS)
    assert first["model"] == ROUTE and first["max_output_tokens"] == MAX_OUTPUT_TOKENS
    # no sampling settings of its own (its chat/completions wire sends temperature 0, top_p and
    # both penalties, which a route without them under `require_parameters` cannot serve)
    assert not {"temperature", "top_p", "frequency_penalty", "presence_penalty"} & set(first)
    # after its <current_datetime>, the prompt's bytes with the final newline trimmed (the CLI's)
    (text,) = first["input"][-1]["content"]
    assert text["text"].endswith("\n\n" + PROMPT.rstrip("\n"))


def test_the_recorded_isolation_runs_show_what_each_setting_stops() -> None:
    """`isolation.json`: the CLI in a loopback-only namespace with a DNS logger answering every
    name with 127.0.0.1 and listeners on :443 and :80 (README; `isolation_probe.py`)."""
    runs = json.loads((DATA / "isolation.json").read_text())
    adapter = runs["adapter"]
    assert (adapter["exit"], adapter["outside"], adapter["output_limit"]) == (
        0, [], MAX_OUTPUT_TOKENS)  # fmt: skip
    assert adapter["proxy_requests"] == [f"POST {RESPONSES}"] * 3
    assert adapter["tools_offered"] == sorted(TOOLS)
    github = ["dns api.github.com type=1", "dns api.github.com type=28", "tcp 443 api.github.com"]
    assert runs["no-offline"]["outside"] == []  # the flags alone stop the same requests
    assert runs["no-offline-auto-update-on"]["outside"] == github  # the update check
    assert runs["no-offline-telemetry-on"]["outside"] == github  # telemetry
    assert runs["no-offline-no-flags"]["outside"] == github * 2
    assert {"task", "skill", "sql"} <= set(runs["no-available-tools"]["tools_offered"])
    assert "web_fetch" not in runs["no-available-tools"]["tools_offered"]  # offline: no web
    assert "web_fetch" in runs["no-offline-no-available-tools"]["tools_offered"]
    assert runs["no-max-tokens"]["output_limit"] is None
    assert all(run["exit"] == 0 for run in runs.values())


def test_the_anonymiser_knows_copilot_cli_through_its_adapter() -> None:
    identity = CopilotAgent.identity
    diff = (
        "diff --git a/.github/copilot-instructions.md b/.github/copilot-instructions.md\n+x\n"
        "diff --git a/src/a.ts b/src/a.ts\n+// written by GitHub Copilot CLI\n"
    )
    told = anonymise_diff(diff, identity_pattern(identity.names, identity.ids), identity.files)
    assert "copilot-instructions" not in told and "src/a.ts" in told
    assert "Copilot CLI" not in told


@pytest.mark.agent_cli
@pytest.mark.slow
@pytest.mark.skipif(not INSTALLED, reason="Copilot CLI not installed (scripts/setup)")
@pytest.mark.skipif(not bwrap_available(), reason="bubblewrap missing: run scripts/setup")
def test_real_copilot_cli_in_the_sandbox_asks_only_the_proxy(tmp_path: Path) -> None:
    turns = [
        {"reasoning": "Write it.", "calls": [{"name": "create", "input": {
            "path": "/workspace/notes.txt", "file_text": "hi\n"}}]},
        {"calls": [{"name": "bash", "input": {"command": "cat notes.txt hello.txt",
                                              "description": "Show"}}]},
        {"text": "Done."},
    ]  # fmt: skip
    run = run_agent(CopilotAgent(), tmp_path, turns, PROMPT.encode())
    assert run.exit_code == 0, run.stderr[-2000:]
    assert (run.worktree / "notes.txt").read_text() == "hi\n"
    assert [f"{r['method']} {r['path']}" for r in run.requests] == [f"POST {RESPONSES}"] * 3
    first = run.requests[0]
    assert first["headers"]["authorization"] == "Bearer sk-siteos-proxy"
    assert {t["name"] for t in first["body"]["tools"]} == set(TOOLS)
    trace = CopilotAgent().read_trace(run.events)
    assert trace.finished_normally and trace.edits == ["/workspace/notes.txt"]
    assert trace.commands[0].output.startswith("hi\nhello world")


@pytest.mark.parametrize("arms", [["opencode", "copilot"], ["opencode", "codex"]])
def test_the_agents_page_says_how_copilot_cli_is_served(arms: list[str]) -> None:
    """The arm is disclosed as bring-your-own-key on the same route, never GitHub's routing."""
    page = environment().get_template("agents.md.j2").render(
        facts={"kind_label": "intervention round", "round_id": "r", "kind": "live"},
        settings={"title": "R"},
        arms=[(a, agent_label(a)) for a in arms], agents_view=None,
    )  # fmt: skip
    assert ('id="copilot-byok"' in page) == ("copilot" in arms)
    assert ("GitHub Copilot CLI" in page) == ("copilot" in arms)
