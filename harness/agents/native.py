"""What the adapters share when they read a native event log into the trajectory."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from harness.agents.base import OUTPUT_LIMIT, truncate
from records.evidence.agent import AgentTrace, StepMetrics

FILE_TEXT_LIMIT = 20_000  # characters of a written file kept in the trajectory (others: 4,000)


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_int(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def iso_ms(value: Any) -> int | None:
    """An ISO 8601 time ('2026-12-05T23:50:51.771Z') as ms since the epoch."""
    if not isinstance(value, str):
        return None
    try:
        return int(datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        return None


def cut_inputs(value: Any, file_keys: tuple[str, ...], limit: int = OUTPUT_LIMIT) -> Any:
    """Tool inputs with long strings cut to the output limit; the text of a file being written
    or edited (`file_keys`) to the larger `FILE_TEXT_LIMIT`, so the transcript shows it."""
    if isinstance(value, str):
        return truncate(value, limit)[0]
    if isinstance(value, dict):
        return {
            k: cut_inputs(v, file_keys, FILE_TEXT_LIMIT if k in file_keys else limit)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [cut_inputs(v, file_keys, limit) for v in value]
    return value


def json_lines(trace: AgentTrace, events: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each JSON object of the log with the line it cites (`events.jsonl:12`; lines split at
    newlines only, as the file is numbered); a line that is not JSON counts as malformed."""
    if not events.exists():
        return
    text = events.read_text(encoding="utf-8", errors="replace")
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            trace.malformed_lines += 1
            continue
        if isinstance(event, dict):
            yield f"{events.name}:{number}", event


def gateway_usage(gateway: Path) -> dict[int, StepMetrics]:
    """Each step's tokens from the proxy's `gateway.jsonl` (the last served chat request of the
    step), for agents whose own log reports none."""
    usage: dict[int, StepMetrics] = {}
    for line in gateway.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            record = as_dict(json.loads(line))
        except json.JSONDecodeError:
            continue
        counts, step = as_dict(record.get("usage")), as_int(record.get("step"))
        if counts and step is not None and record.get("kind") == "chat":
            usage[step] = StepMetrics(
                input_tokens=as_int(counts.get("prompt")),
                output_tokens=as_int(counts.get("completion")),
                reasoning_tokens=as_int(counts.get("reasoning")),
                cache_read_tokens=as_int(counts.get("cached")),
            )
    return usage


def use_gateway_usage(trace: AgentTrace, usage: dict[int, StepMetrics]) -> None:
    """Give each agent step the gateway's tokens of the request with its number, when the proxy
    metered exactly one chat request per step (else the tokens stay unknown)."""
    turns = [step for step in trace.steps if step.source == "agent"]
    if usage and len(turns) == max(usage):
        for number, step in enumerate(turns, 1):
            known = usage.get(number)
            step.metrics = known.model_copy() if known is not None else None
