"""The scripted-model file format (one JSON file per simulated model).

A script has a `catalogue` entry (what `/models` and `/endpoints` say), a `session` behaviour and
an optional `probe` behaviour. A behaviour is a list of turns; the turn served for a request is
chosen statelessly from the conversation: turn index = number of assistant messages already in
`messages` (so a retried request gets the same turn again). Past the last turn, `after_last`
decides: `final_text` answers `final_text`, `repeat_last` serves the last turn forever.

Strings in turns may use placeholders, replaced with plain text substitution (never str.format,
file contents are not touched): `{workdir}` (the `Working directory:` of the system prompt),
`{turn}` (1-based turn number), `{probe}`, `{probe_file}`, `{probe_text}` (probes only).
A tool-call argument may be `{"content_from": "<repo-relative path>"}`: the file's text.
`tree_calls` expands to one tool call per file of a repo folder (e.g. the reference overlay).

Reading instructions: `reads_instructions` makes a model that works otherwise once it has read a
text (e.g. a method's AGENTS.md, which the script itself `cat`s in a turn of its session): when
any message of the request (the system prompt, a tool's output) contains a reaction's `contains`,
its `session` is served instead of `session` (the turn index counted the same way, so the turns
before the reading are the same in both). Stateless like every turn: the request alone decides.

Probes: a request is a probe when its first user message contains `PREFLIGHT PROBE <n>`; the
probe number is `n`. Optional lines `PROBE FILE: <relative path>` and `PROBE TEXT: <text>` in that
message set `{probe_file}` (default `probe.txt`) and `{probe_text}` (default `probe <n> ok`).
Probes numbered in `probe.fail_probes` are served `probe.failure` instead of `probe.behaviour`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError

from records.base import Frozen
from records.io import RecordError, describe_validation_error, read_json


class ReasoningSpec(Frozen):
    supported_efforts: list[str] = Field(default_factory=lambda: ["low", "medium", "high"])
    default_effort: str | None = "medium"
    mandatory: bool = False


class CatalogueEntry(Frozen):
    id: str
    canonical_slug: str
    name: str
    listed: bool = Field(default=True, description="false: absent from /models and /endpoints")
    created: int = 1790000000
    context_length: int = 200000
    max_completion_tokens: int = 64000
    pricing: dict[str, str] = Field(description="USD per token as strings: prompt, completion, ...")
    supported_parameters: list[str]
    reasoning: ReasoningSpec | None = None
    provider_name: str = "Demo Cloud"


class UsageSpec(Frozen):
    """Token counts of a turn; None = estimated from the request/response size (chars / 4)."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    reasoning_tokens: int = 0
    cached_tokens: int | None = None
    report_cost: bool = Field(
        default=True, description="false: usage has no `cost` (a gateway that does not say)"
    )
    billed_factor: float = Field(
        default=1.0,
        gt=0,
        description="the key's usage and the generation record charge the usage chunk's cost "
        "times this (a stream that under-reports the bill, for cost reconciliation)",
    )


class ToolCallSpec(Frozen):
    name: str
    arguments: dict[str, Any]


class TreeCalls(Frozen):
    """One `write` (file content) or `read` call per file under `source` (repo-relative)."""

    source: str
    tool: Literal["write", "read"] = "write"
    include: list[str] = Field(default_factory=lambda: ["*"], description="fnmatch globs")
    exclude: list[str] = Field(default_factory=list)
    only_existing_in: str | None = Field(
        default=None, description="repo-relative folder: keep files that also exist there"
    )


class ErrorSpec(Frozen):
    """A scripted failure.

    `http`: an HTTP error before any SSE. `midstream`: HTTP 200, then an in-stream `error` chunk
    (an integer `code` gets `metadata.error_type` and `[DONE]`, as in the spec; a string `code`
    such as `"server_error"` ends the stream without `[DONE]`, as in the docs' example); a
    non-streaming request gets the error in a 200 JSON body. `hang`: silence, then the connection
    closes. `stall`: HTTP 200 and `: OPENROUTER PROCESSING` every `keepalive_seconds` for
    `hang_seconds`, then the turn's normal reply (live OpenRouter's stalled provider); with
    `partial_text`, that text streams first (a stall after the last byte). `truncate`: HTTP 200,
    the turn's text (or `partial_text`) and `[DONE]`, with no finish_reason and no usage chunk (a
    cut upstream stream that OpenCode takes as a finished turn).
    """

    kind: Literal["http", "midstream", "hang", "stall", "truncate"]
    status: int = 502
    code: int | str | None = None
    message: str = "Provider returned error"
    metadata: dict[str, Any] = Field(default_factory=dict)
    partial_text: str = Field(
        default="", description="midstream, stall, truncate: text streamed before the failure"
    )
    hang_seconds: float = 3600.0
    retry_after_seconds: int = Field(
        default=1,
        ge=0,
        description="http 429: the pacing the gateway sends (`Retry-After` seconds, and the "
        "`X-RateLimit-*` headers whose reset is that far ahead)",
    )
    keepalive_seconds: float = Field(default=1.0, gt=0, description="stall: comment interval")
    times: int | None = Field(
        default=None,
        ge=1,
        description="fail only the first N requests for this turn, then serve it (a transient "
        "error); None = every request",
    )


class Turn(Frozen):
    text: str | None = None
    tool_calls: list[ToolCallSpec] = Field(default_factory=list)
    tree_calls: list[TreeCalls] = Field(default_factory=list)
    error: ErrorSpec | None = None
    model: str | None = Field(default=None, description="identity reported (default: the script's)")
    provider: str | None = None
    usage: UsageSpec | None = None
    delay_seconds: float = 0.0


class Behaviour(Frozen):
    turns: list[Turn]
    after_last: Literal["final_text", "repeat_last"] = "final_text"
    final_text: str = "Done."


def _default_probe() -> Behaviour:
    return Behaviour(
        turns=[
            Turn(
                tool_calls=[
                    ToolCallSpec(
                        name="write",
                        arguments={
                            "filePath": "{workdir}/{probe_file}",
                            "content": "{probe_text}\n",
                        },
                    )
                ]
            ),
            Turn(
                tool_calls=[
                    ToolCallSpec(
                        name="bash",
                        arguments={
                            "command": "cat {probe_file}",
                            "description": "Show the probe file",
                        },
                    )
                ]
            ),
        ],
        final_text="Probe {probe} done: wrote {probe_file} and ran a shell command.",
    )


def _default_probe_failure() -> Behaviour:
    return Behaviour(turns=[Turn(text="I will skip the tools for this one.")], final_text="Done.")


class ProbeSpec(Frozen):
    behaviour: Behaviour = Field(default_factory=_default_probe)
    fail_probes: list[int] = Field(default_factory=list)
    failure: Behaviour = Field(default_factory=_default_probe_failure)


class InstructionReaction(Frozen):
    """The session a model works by once it has read `contains` in its conversation."""

    contains: str = Field(
        min_length=8, description="text of the instructions that changes how the model works"
    )
    why: str = Field(description="what the model does differently, in words")
    session: Behaviour


class ScriptedModel(Frozen):
    schema_version: Literal[1] = 1
    description: str
    catalogue: CatalogueEntry
    reported_model: str | None = Field(
        default=None,
        description="the `model` every response reports; default catalogue.canonical_slug, as live "
        "OpenRouter answers with the route's canonical slug",
    )
    usage: UsageSpec = Field(default_factory=UsageSpec)
    session: Behaviour
    reads_instructions: list[InstructionReaction] = Field(
        default_factory=list,
        description="the sessions served instead of `session` once a text is read (the first "
        "reaction whose `contains` a message of the request holds)",
    )
    probe: ProbeSpec = Field(default_factory=ProbeSpec)

    @property
    def identity(self) -> str:
        return self.reported_model or self.catalogue.canonical_slug


def load_script(path: Path) -> ScriptedModel:
    """Read and validate one script; errors name the file and field."""
    data = read_json(path)
    try:
        return ScriptedModel.model_validate(data)
    except ValidationError as exc:
        raise RecordError(describe_validation_error(path, exc)) from exc


def vary(script: ScriptedModel, variation: ScriptedModel) -> ScriptedModel:
    """`script`'s route (catalogue entry, reported identity, usage) with `variation`'s session
    behaviour: the same model behaving differently in one repetition."""
    return script.model_copy(
        update={
            "description": f"{script.description} This repetition: {variation.description}",
            "session": variation.session,
            "reads_instructions": variation.reads_instructions,
        }
    )


def load_scripts(models_dir: Path) -> list[ScriptedModel]:
    return [load_script(p) for p in sorted(models_dir.glob("*.json"))]
