"""A scripted model may work otherwise once it has read a text (`reads_instructions`): the demo
method round's Quillstone Reader 2 `cat`s AGENTS.md first and follows the tracer-bullets arm's
method, never the placebo's neutral text. The request alone decides, like every scripted turn."""

from __future__ import annotations

from typing import Any

from gateway.simulator.turns import Conversation, choose
from records.interventions import INTERVENTIONS_DIR
from records.layout import BENCHMARK_DIR
from records.simulator_scripts import load_script

READER = load_script(BENCHMARK_DIR / "demo/models/method-reader.json")
SYSTEM = {"role": "system", "content": "You are OpenCode.\nWorking directory: /w"}
USER = {"role": "user", "content": "Finish the website."}


def _after_reading(agents_md: str, turns: int) -> dict[str, Any]:
    """A request after the model's first turn `cat`ed AGENTS.md (whose output is `agents_md`),
    with `turns` assistant messages in all."""
    call = {"id": "c0", "type": "function",
            "function": {"name": "bash", "arguments": '{"command": "cat AGENTS.md"}'}}  # fmt: skip
    messages: list[dict[str, Any]] = [SYSTEM, USER, {"role": "assistant", "tool_calls": [call]}]
    messages.append({"role": "tool", "tool_call_id": "c0", "content": agents_md})
    messages += [{"role": "assistant", "content": "..."}] * (turns - 1)
    return {"messages": messages}


def _turn(body: dict[str, Any]) -> str:
    turn, _, _ = choose(READER, Conversation.of(body))
    return turn.model_dump_json()


def test_the_reader_reads_agents_md_first_in_every_arm() -> None:
    first = _turn({"messages": [SYSTEM, USER]})
    assert "cat AGENTS.md" in first
    assert READER.reads_instructions[0].session.turns[0] == READER.session.turns[0]


def test_only_the_tracer_bullets_text_changes_its_work() -> None:
    method = (INTERVENTIONS_DIR / "method/tracer-bullets/AGENTS.md").read_text()
    placebo = (INTERVENTIONS_DIR / "method/placebo/AGENTS.md").read_text()
    none = "No AGENTS.md in this project."
    plain = [_turn(_after_reading(none, n)) for n in range(1, 8)]
    assert [_turn(_after_reading(placebo, n)) for n in range(1, 8)] == plain
    followed = [_turn(_after_reading(method, n)) for n in range(1, 10)]
    assert followed != plain[: len(followed)]
    # without the method: the type error is never fixed; with it: fixed, then checked and built
    assert not any("priceLabel: string" in t for t in plain)
    fix = next(i for i, t in enumerate(followed) if "priceLabel: string" in t)
    assert "npm run check" in followed[fix - 1] and "npm run check" in followed[fix + 1]
    assert "npm run build" in followed[fix + 2]
