"""Gemini CLI 0.61.0 as an agent: its recorded stream-json logs read into the trajectory (exit
codes from the proxy's records), the launch it gets (no setting that reaches past the proxy, with
the recorded isolation runs as evidence), and a real run in the session sandbox against a
scripted recorder (`agent_recorder.py`) that sees only Gemini API requests."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from agent_recorder import PROMPT, REFUSAL, ROUTE, AgentRun, run_agent, spec
from gateway_support import script

from gateway import gemini
from gateway.errors import ErrorClass
from gateway.proxy import RecordingProxy
from gateway.simulator import Simulator
from harness.agents import AGENTS
from harness.agents.gemini_cli import (
    EXCLUDED_TOOLS,
    NODE_INSIDE,
    PACKAGE_INSIDE,
    SCRIPT,
    TOOLS,
    GeminiCliAgent,
)
from harness.session.process import run_process
from harness.session.sandbox import SandboxSpec, bwrap_available
from harness.session.worktree import git_init
from publish.render import environment
from publish.trajectory import tool_view
from records.evidence.agent import ErrorPart, TextPart, ToolPart
from records.evidence.gateway import ExchangeRecord, GatewayPolicy, TokenUsage, read_exchanges
from records.io import append_jsonl
from records.tools import GEMINI_CLI_DIR, NODE
from scoring.anonymise import anonymise_diff, identity_pattern
from scoring.claims import agent_label

DATA = Path(__file__).parent / "data/agents/gemini-cli-0.61.0"
INSTALLED = (GEMINI_CLI_DIR / SCRIPT).exists()


def cited(path: Path, source: str) -> dict:
    name, number = source.rsplit(":", 1)
    assert name == path.name
    return json.loads(path.read_text().split("\n")[int(number) - 1])


def with_gateway(tmp_path: Path, run: str) -> Path:
    """The recorded run's log beside the `gateway.jsonl` the proxy would have written for its
    requests (each translated by the Gemini front end, as forwarded)."""
    events = tmp_path / "events.jsonl"
    shutil.copy(DATA / run / "events.jsonl", events)
    first = json.loads((DATA / "session/requests.json").read_text())[0]["body"]
    for n, request in enumerate(json.loads((DATA / run / "requests.json").read_text()), 1):
        body = {k: first[k] if isinstance(v, str) else v for k, v in request["body"].items()}
        route = request["path"].split("?")[0].removeprefix("/api/v1/gemini/v1beta")
        model, stream = gemini.parse_path(route)
        chat, _ = gemini.to_chat(model, stream, body)
        usage = TokenUsage(prompt=1000 * n, completion=10 * n, cached=7, cost_usd=0.001)
        record = ExchangeRecord(time="2026-12-07T13:05:00.000+00:00", index=n, kind="chat",
                                method="POST", path=request["path"], step=n, protocol="gemini",
                                request=chat, status=200, latency_ms=1.0, usage=usage)  # fmt: skip
        append_jsonl(tmp_path / "gateway.jsonl", json.loads(record.model_dump_json()))
    return events


def test_a_recorded_session_reads_into_four_turns(tmp_path: Path) -> None:
    events = with_gateway(tmp_path, "session")
    trace = GeminiCliAgent().read_trace(events)
    assert trace.agent.name == "gemini-cli" and trace.malformed_lines == 0
    assert [s.source for s in trace.steps] == ["agent"] * 4
    assert trace.finish_reasons == ["tool-calls", "tool-calls", "tool-calls", "stop"]
    assert trace.finished_normally and not trace.errors
    first = trace.steps[0]
    assert isinstance(first.parts[0], TextPart) and first.parts[0].text == "Creating notes.txt."
    write = first.parts[1]
    assert isinstance(write, ToolPart) and (write.tool, write.status) == ("write_file", "completed")
    notes = "/workspace/notes.txt"
    assert write.input == {"file_path": notes, "content": "Hello from the recorder\n"}
    assert trace.edits == [notes, notes]  # write_file, then replace
    assert [p.tool for p in trace.steps[1].parts] == ["replace", "run_shell_command"]
    # exit codes from what the CLI told the model (the proxy's records): 0, then 1
    assert [(c.command, c.exit_code, c.status) for c in trace.commands] == [
        ("cat notes.txt && ls", 0, "completed"), ("cat missing.txt", 1, "completed")]  # fmt: skip
    assert trace.commands[0].output == "Hello again from the recorder\nhello.txt\nnotes.txt"
    assert trace.steps[3].parts[0].text == "Done: notes.txt written and checked."  # type: ignore[union-attr]
    stamps = [s.started_at for s in trace.steps]
    assert all(stamps) and stamps == sorted(stamps)
    assert "reports no tokens or cost per turn" in trace.notes
    tokens = [(s.metrics.input_tokens, s.metrics.output_tokens, s.metrics.cache_read_tokens)
              for s in trace.steps if s.metrics]  # fmt: skip
    assert tokens == [(1000, 10, 7), (2000, 20, 7), (3000, 30, 7), (4000, 40, 7)]  # the proxy's
    assert "input_tokens 410, output_tokens 70, cached 28, tool_calls 4" in trace.notes
    for part in trace.parts():  # every part cites the native line it came from
        line = cited(events, part.source)
        if isinstance(part, ToolPart):
            assert line["type"] == "tool_result" and line["tool_id"] == part.call_id


def test_without_the_proxys_records_exit_codes_and_tokens_are_unknown() -> None:
    """The CLI's log says `success` for a command that exited 1 and has no per-turn tokens:
    without the gateway's records no exit code or count is claimed."""
    trace = GeminiCliAgent().read_trace(DATA / "session/events.jsonl")
    assert [c.exit_code for c in trace.commands] == [None, None]
    assert all(s.metrics is None for s in trace.steps)
    assert trace.finished_normally and len(trace.tool_calls) == 4


def test_a_refused_step_is_an_error_after_the_turns_that_ran(tmp_path: Path) -> None:
    trace = GeminiCliAgent().read_trace(with_gateway(tmp_path, "refused"))
    assert [s.source for s in trace.steps] == ["agent", "agent", "system"]
    assert trace.turns == 2 and not trace.finished_normally
    assert trace.finish_reasons[:2] == ["tool-calls", "tool-calls"]
    (error,) = trace.steps[-1].parts
    assert isinstance(error, ErrorPart) and REFUSAL in error.text
    assert error.text.startswith("unknown: [API Error: ")
    assert [(c.command, c.exit_code) for c in trace.commands] == [("cat notes.txt && ls", 0)]


def test_the_site_shows_its_writes_and_edits() -> None:
    trace = GeminiCliAgent().read_trace(DATA / "session/events.jsonl")
    write, edit, shell = (tool_view(p) for p in trace.tool_calls[:3])
    assert (write.kind, write.path) == ("write", "/workspace/notes.txt")
    assert shell.kind == "shell" and shell.text == "cat notes.txt && ls"
    assert edit.path == "/workspace/notes.txt"


def test_prepare_points_the_cli_at_the_proxy_and_turns_off_the_rest(tmp_path: Path) -> None:
    sandbox = spec(tmp_path)
    launch = GeminiCliAgent().prepare(
        sandbox, route=ROUTE, reasoning="high", title="unit-1", prompt=PROMPT.encode()
    )
    assert launch.stdin == PROMPT.encode()  # on stdin: `-p ""` adds nothing to it
    env = sandbox.env
    assert env["GOOGLE_GEMINI_BASE_URL"] == "http://127.0.0.1:18080/api/v1/gemini"
    assert env["GEMINI_API_KEY"] == "siteos-proxy" and env["GEMINI_CLI_TRUST_WORKSPACE"] == "true"
    command = launch.command
    assert command[:2] == [NODE_INSIDE, f"{PACKAGE_INSIDE}/{SCRIPT}"]
    assert sandbox.ro_binds[PACKAGE_INSIDE] == GEMINI_CLI_DIR.resolve()
    assert command[2:8] == ["-p", "", "--output-format", "stream-json", "--yolo", "--model"]
    assert command[8] == ROUTE and command[-4:] == [
        "--extensions", "none", "--allowed-mcp-server-names", "none"]  # fmt: skip
    settings = json.loads((tmp_path / "home/.gemini/settings.json").read_text())
    assert settings["security"]["auth"]["selectedType"] == "gemini-api-key"
    assert settings["privacy"]["usageStatisticsEnabled"] is False
    assert settings["telemetry"]["enabled"] is False
    assert settings["general"]["enableAutoUpdate"] is False
    assert settings["tools"]["core"] == list(TOOLS) and set(EXCLUDED_TOOLS) >= {
        "web_fetch", "google_web_search"}  # fmt: skip
    assert settings["admin"]["mcp"]["enabled"] is False and settings["model"]["name"] == ROUTE
    assert AGENTS["gemini-cli"] is GeminiCliAgent


def test_prepare_unsandboxed_uses_the_host_node_and_port(tmp_path: Path) -> None:
    sandbox = spec(tmp_path, isolated=False)
    launch = GeminiCliAgent().prepare(
        sandbox, route=ROUTE, reasoning="high", title="u", prompt=b"x"
    )
    assert launch.command[:2] == [str(NODE), str(GEMINI_CLI_DIR.resolve() / SCRIPT)]
    assert not sandbox.ro_binds and sandbox.env["TMPDIR"] == f"{tmp_path}/home/tmp"
    assert sandbox.env["GOOGLE_GEMINI_BASE_URL"] == "http://127.0.0.1:4321/api/v1/gemini"


def test_the_recorded_launch_is_the_one_prepare_makes(tmp_path: Path) -> None:
    """The evidence in tests/data was recorded with this adapter's launch: re-record it (README
    there) when the launch changes."""
    sandbox = spec(tmp_path)
    launch = GeminiCliAgent().prepare(
        sandbox, route=ROUTE, reasoning="high", title="capture-unit", prompt=b""
    )
    for run in ("session", "refused"):
        recorded = json.loads((DATA / run / "launch.json").read_text())
        assert recorded["command"] == launch.command and recorded["env"] == sandbox.env


def test_the_recorded_isolation_runs_show_what_each_setting_stops() -> None:
    """`isolation.json`: the CLI in a loopback-only namespace with a DNS logger answering every
    name with 127.0.0.1 and listeners on :443 and :80 (README)."""
    runs = json.loads((DATA / "isolation.json").read_text())
    path = "POST /api/v1/gemini/v1beta/models/lab-x/editor-1:streamGenerateContent?alt=sse"
    adapter = runs["adapter"]
    assert (adapter["exit"], adapter["outside"]) == (0, [])
    assert adapter["proxy_requests"] == [path] * 3 and adapter["tools_offered"] == sorted(TOOLS)
    for label in ("no-usage-statistics-off", "cli-defaults"):
        hosts = {
            line.split()[-1 if line.startswith("tcp") else 1] for line in runs[label]["outside"]
        }
        assert hosts == {"play.googleapis.com"}  # DNS queries, then an HTTPS connection
    offered = set(runs["cli-defaults"]["tools_offered"])
    assert {"web_fetch", "google_web_search", "invoke_agent", "activate_skill"} <= offered
    assert runs["no-auth-type"]["exit"] == 41 and runs["no-trust-workspace"]["exit"] == 55


@pytest.mark.agent_cli
@pytest.mark.slow
@pytest.mark.skipif(not INSTALLED, reason="Gemini CLI not installed (scripts/setup)")
@pytest.mark.skipif(not bwrap_available(), reason="bubblewrap missing: run scripts/setup")
def test_real_gemini_cli_in_the_sandbox_asks_only_the_proxy(tmp_path: Path) -> None:
    turns = [
        {"reasoning": "Write it.", "calls": [{"name": "write_file", "input": {
            "file_path": "/workspace/notes.txt", "content": "hi\n"}}]},
        {"calls": [{"name": "run_shell_command", "input": {"command": "cat notes.txt hello.txt"}}]},
        {"text": "Done."},
    ]  # fmt: skip
    run = run_agent(GeminiCliAgent(), tmp_path, turns, PROMPT.encode())
    assert run.exit_code == 0, run.stderr[-2000:]
    assert (run.worktree / "notes.txt").read_text() == "hi\n"
    path = "/api/v1/gemini/v1beta/models/lab-x/editor-1:streamGenerateContent?alt=sse"
    assert [f"{r['method']} {r['path']}" for r in run.requests] == [f"POST {path}"] * 3
    first = run.requests[0]
    assert first["headers"]["x-goog-api-key"] == "siteos-proxy"
    offered = {t["name"] for t in first["body"]["tools"][0]["functionDeclarations"]}
    assert offered == set(TOOLS)
    user = first["body"]["contents"][0]["parts"]
    assert user[-1]["text"] == PROMPT  # the prompt's bytes, unchanged
    trace = GeminiCliAgent().read_trace(run.events)
    assert trace.finished_normally and trace.edits == ["/workspace/notes.txt"]
    assert trace.commands[0].output == "hi\nhello world"


@pytest.mark.agent_cli
@pytest.mark.slow
@pytest.mark.skipif(not INSTALLED, reason="Gemini CLI not installed (scripts/setup)")
@pytest.mark.skipif(not bwrap_available(), reason="bubblewrap missing: run scripts/setup")
def test_real_gemini_cli_stops_at_a_refused_step_without_retrying(tmp_path: Path) -> None:
    turns = [{"calls": [{"name": "run_shell_command", "input": {"command": "echo hi"}}]}]
    run = run_agent(GeminiCliAgent(), tmp_path, turns, b"go", refuse_from=2)
    assert len(run.requests) == 2 and run.exit_code == 400 % 256  # the status, as its exit code
    trace = GeminiCliAgent().read_trace(run.events)
    assert trace.turns == 1 and REFUSAL in trace.errors[0] and not trace.finished_normally


def test_the_anonymiser_knows_gemini_cli_through_its_adapter() -> None:
    identity = GeminiCliAgent.identity
    diff = (
        "diff --git a/.gemini/settings.json b/.gemini/settings.json\n+{}\n"
        "diff --git a/GEMINI.md b/GEMINI.md\n+notes\n"
        "diff --git a/src/a.ts b/src/a.ts\n+// written by Gemini CLI\n"
    )
    told = anonymise_diff(diff, identity_pattern(identity.names, identity.ids), identity.files)
    assert ".gemini/" not in told and "GEMINI.md" not in told and "src/a.ts" in told
    assert "Gemini CLI" not in told


@pytest.mark.parametrize("arms", [["opencode", "gemini-cli"], ["opencode", "claude-code"]])
def test_the_agents_page_says_how_gemini_cli_is_served(arms: list[str]) -> None:
    """The arm is disclosed as a translation of the same route, never as Google's serving."""
    page = environment().get_template("agents.md.j2").render(
        facts={"kind_label": "intervention round", "round_id": "r", "kind": "live"},
        settings={"title": "R"},
        arms=[(a, agent_label(a)) for a in arms], agents_view=None,
    )  # fmt: skip
    disclosed = "Gemini CLI via a Gemini-API translation of the same route" in page
    assert disclosed == ("gemini-cli" in arms)
    assert ("Gemini CLI (" in page or "and Gemini CLI" in page) == ("gemini-cli" in arms)


BASH = {"name": "bash", "arguments": {"command": "echo {turn}", "description": "x"}}
PARAMS = ["max_tokens", "temperature", "top_p", "tools", "tool_choice", "reasoning"]


def through_the_proxy(
    tmp_path: Path, supported: list[str], turns: list[dict] | None = None
) -> tuple[int | None, list, AgentRun]:
    """The real CLI in the sandbox, through the real proxy (step ceiling 3) to the simulator
    serving `turns` (default: a step burner) as a model whose catalogue takes `supported`:
    (exit, the proxy's records, the run)."""
    for sub in ("wt", "home", "gw"):
        (tmp_path / sub).mkdir()
    (tmp_path / "wt" / "hello.txt").write_text("hello world\n")
    git_init(tmp_path / "wt")
    burner = script("lab-g/burner-1", turns or [{"tool_calls": [BASH]}],
                    session={"after_last": "final_text" if turns else "repeat_last"},
                    catalogue={"supported_parameters": supported})  # fmt: skip
    sandbox = SandboxSpec(worktree=tmp_path / "wt", home=tmp_path / "home",
                          gateway_socket=tmp_path / "gw" / "p.sock")  # fmt: skip
    log, events = tmp_path / "gateway.jsonl", tmp_path / "events.jsonl"
    key = "sk-or-v1-gemini-cli-test"
    with (
        Simulator([burner], api_key=key) as sim,
        RecordingProxy(upstream=sim.base_url, api_key=key, log_path=log, step_ceiling=3,
                       policy=GatewayPolicy(reasoning="high"),
                       socket_path=sandbox.gateway_socket) as proxy,
    ):  # fmt: skip
        launch = GeminiCliAgent().prepare(
            sandbox, route="lab-g/burner-1", reasoning="high", title="t", prompt=b"burn"
        )
        with sandbox.launch(launch.command) as argv:
            outcome = run_process(
                argv, env={"PATH": "/usr/bin:/bin"}, stdin=launch.stdin, stdout=events,
                stderr=tmp_path / "stderr.log", wall_clock_seconds=90, ceiling_hit=lambda: None,
                limits=sandbox.limits, tmp_size=sandbox.tmp_size, writable=sandbox.writable,
                label="agent",
            )  # fmt: skip
        proxy.drain()
    run = AgentRun(outcome.exit_code, events, "", [], sandbox.worktree, sandbox.home)
    return outcome.exit_code, read_exchanges(log), run


@pytest.mark.agent_cli
@pytest.mark.slow
@pytest.mark.skipif(not INSTALLED, reason="Gemini CLI not installed (scripts/setup)")
@pytest.mark.skipif(not bwrap_available(), reason="bubblewrap missing: run scripts/setup")
def test_real_gemini_cli_stops_at_the_proxys_own_refusal(tmp_path: Path) -> None:
    """The proxy's step-ceiling refusal, in Google's error shape, ends the CLI at once."""
    exit_code, records, run = through_the_proxy(tmp_path, PARAMS)
    assert [(r.step, r.status, r.refused) for r in records] == [
        (1, 200, None), (2, 200, None), (3, 200, None), (4, 400, "step_ceiling")]  # fmt: skip
    assert {r.protocol for r in records} == {"gemini"} and exit_code == 400 % 256
    assert all(r.request["messages"] and "top_k" not in r.request for r in records)
    trace = GeminiCliAgent().read_trace(run.events)  # exit codes from the proxy's records
    assert trace.turns == 3 and [c.exit_code for c in trace.commands] == [0, 0, 0]
    assert "step ceiling of 3 reached" in trace.errors[0]


@pytest.mark.agent_cli
@pytest.mark.slow
@pytest.mark.skipif(not INSTALLED, reason="Gemini CLI not installed (scripts/setup)")
@pytest.mark.skipif(not bwrap_available(), reason="bubblewrap missing: run scripts/setup")
def test_a_route_without_top_p_is_not_testable_with_gemini_cli(tmp_path: Path) -> None:
    """Gemini CLI always sends `temperature` and `topP`: under `require_parameters` a route that
    does not take `top_p` has no endpoint for it (its preflight fails, as Claude Code's does on
    a route without reasoning)."""
    exit_code, records, _ = through_the_proxy(tmp_path, ["max_tokens", "temperature", "tools"])
    (record,) = records
    assert (record.status, record.error_class) == (404, ErrorClass.NO_ENDPOINT)
    assert exit_code not in (0, None)


@pytest.mark.agent_cli
@pytest.mark.slow
@pytest.mark.skipif(not INSTALLED, reason="Gemini CLI not installed (scripts/setup)")
@pytest.mark.skipif(not bwrap_available(), reason="bubblewrap missing: run scripts/setup")
def test_real_gemini_cli_waits_through_keepalives(tmp_path: Path) -> None:
    """OpenRouter's keep-alive comments reach the CLI as empty chunks, which it skips: the
    answer after them completes the session."""
    stall = {"kind": "stall", "hang_seconds": 2, "keepalive_seconds": 0.2, "partial_text": "Al"}
    turns = [{"tool_calls": [BASH]}, {"text": "most done.", "error": stall}]
    exit_code, records, run = through_the_proxy(tmp_path, PARAMS, turns)
    assert exit_code == 0 and [r.error_class for r in records] == [None, None]
    assert records[1].keepalives >= 5
    trace = GeminiCliAgent().read_trace(run.events)
    assert trace.finished_normally and trace.steps[-1].parts[0].text == "Almost done."  # type: ignore[union-attr]
