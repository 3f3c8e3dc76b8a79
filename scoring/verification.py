"""Verification discipline (5 points), from observed evidence only.

Commands come from the agent's neutral trace (`trace.json`), each citing its native event line.

- 2 points: a type-check command was observed: a shell command (status `completed`, any exit
  code) with a simple command that is `npm run check` (or `npm run-script check`) or runs `tsc`
  (`tsc`, `node_modules/.bin/tsc`, `npx tsc`, `npm exec tsc`), except `tsc --version/--help/--init`.
  `npm run build` alone does not count even though the starter's build script type-checks first:
  the methodology asks for both visible commands.
- 2 points: a build command was observed: `npm run build` or `vite build` (directly or via npx).

Both count in any simple command of the line (`cd app && npm run build`, `npm run build | tail`),
with npm's flags anywhere (`npm run -s build`, `npm run build --silent`), after env assignments
(`CI=1 npm run build`), behind the wrappers `env`, `time`, `timeout [opts] DURATION`, `nice`,
`nohup`, `exec`, `command`, `stdbuf`, and inside a shell's `-c` script (`bash -c '…'`,
`sh -lc "…"`): `scoring.shell.segments` unwraps them. A line that only mentions the command
(`echo npm run build`, `# npm run build`, `cat npm run build.txt`, `bash build.sh`) earns nothing.
- 1 point: PROGRESS.md is truthful (`progress_truthful` defines the matching rule).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from records.evidence.agent import CommandRun
from records.evidence.evaluation import EvaluationResult
from records.evidence.scoring import Component, DimensionScore
from scoring.model import add
from scoring.shell import contains_tokens, segments

CHECKED_ITEM = re.compile(r"^\s*[-*+]\s+\[[xX]\]\s+(?P<text>.+?)\s*$")
CODE_SPAN = re.compile(r"`([^`\n]+)`")
PLAIN_COMMAND = re.compile(
    r"\b(?:npm\s+(?:run(?:-script)?\s+[\w:.-]+|ci|test|install)|npx\s+[\w@/.:-]+(?:\s+[\w:.-]+)?"
    r"|tsc(?:\s+--?[\w-]+)*|vite\s+build)\b"
)
TSC_NON_CHECK_FLAGS = frozenset(
    {"--version", "-v", "--help", "-h", "--init", "--showConfig", "--all"}
)


def _positional(args: list[str]) -> list[str]:
    return [a for a in args if not a.startswith("-")]


def _unwrap_launcher(segment: list[str]) -> list[str]:
    """`npx [flags] tool …` and `npm exec [--] tool …` → `tool …`."""
    if not segment:
        return segment
    head = os.path.basename(segment[0])
    if head == "npx":
        rest = segment[1:]
        while rest and rest[0].startswith("-"):
            rest = rest[1:]
        return rest
    if head == "npm" and len(segment) > 1 and segment[1] in ("exec", "x"):
        rest = segment[2:]
        while rest and rest[0].startswith("-"):
            rest = rest[1:]
        return rest
    return segment


def _npm_script(segment: list[str], script: str) -> bool:
    if not segment or os.path.basename(segment[0]) != "npm":
        return False
    args = _positional(segment[1:])
    return contains_tokens(args, ["run", script]) or contains_tokens(args, ["run-script", script])


def is_type_check(segment: list[str]) -> bool:
    """`npm run check` or a `tsc` run that type-checks."""
    if _npm_script(segment, "check"):
        return True
    tool = _unwrap_launcher(segment)
    if not tool or os.path.basename(tool[0]) != "tsc":
        return False
    return not any(flag in TSC_NON_CHECK_FLAGS for flag in tool[1:])


def is_build(segment: list[str]) -> bool:
    """`npm run build` or `vite build`."""
    if _npm_script(segment, "build"):
        return True
    tool = _unwrap_launcher(segment)
    return (
        bool(tool)
        and os.path.basename(tool[0]) == "vite"
        and _positional(tool[1:])[:1] == ["build"]
    )


def kinds(command: str) -> set[str]:
    """Which verification kinds (`check`, `build`) a command line runs."""
    found: set[str] = set()
    for segment in segments(command):
        if is_type_check(segment):
            found.add("check")
        if is_build(segment):
            found.add("build")
    return found


def runs(call: CommandRun, named: str) -> bool:
    """Whether the observed call ran the named command: every simple command of `named` occurs as
    a contiguous run of whole tokens inside one simple command of the call."""
    wanted = segments(named)
    observed = segments(call.command)
    return bool(wanted) and all(any(contains_tokens(o, w) for o in observed) for w in wanted)


def named_commands(item: str) -> list[str]:
    """Commands a checked item names: its backtick code spans, else plain `npm …`/`npx …`/`tsc`/
    `vite build` phrases."""
    spans = CODE_SPAN.findall(item)
    return spans or [m.group(0) for m in PLAIN_COMMAND.finditer(item)]


@dataclass(frozen=True)
class ItemVerdict:
    line: int
    text: str
    ok: bool
    reason: str


def judge_item(
    line: int, text: str, calls: list[CommandRun], result: EvaluationResult | None
) -> ItemVerdict:
    """One checked item is matched when (a) it names at least one command, (b) at least one named
    command was run (`runs`), and (c) every named type-check/build command (`kinds`) was run, its
    latest run exited 0, and the evaluator does not contradict it (`check_ok`/`build_ok`, and
    `install_ok`, which both need)."""
    names = named_commands(text)
    if not names:
        return ItemVerdict(line, text, False, "names no command")
    ran = {name: [c for c in calls if c.status == "completed" and runs(c, name)] for name in names}
    if not any(ran.values()):
        return ItemVerdict(line, text, False, f"names {', '.join(names)}: never run")
    for name, hits in ran.items():
        claim = kinds(name)
        if not claim:
            continue
        if not hits:
            return ItemVerdict(line, text, False, f"claims `{name}` but it was never run")
        last = hits[-1]
        if last.exit_code != 0:
            return ItemVerdict(
                line,
                text,
                False,
                f"`{name}` last ran at events line {last.line}, exit {last.exit_code}",
            )
        if result is not None:
            if "build" in claim and not (result.install_ok and result.build_ok):
                return ItemVerdict(
                    line, text, False, f"claims `{name}` but the evaluator's build failed"
                )
            if "check" in claim and not (result.install_ok and result.check_ok):
                return ItemVerdict(
                    line, text, False, f"claims `{name}` but the evaluator's check failed"
                )
    return ItemVerdict(line, text, True, f"{', '.join(n for n in names if ran[n])} observed")


def progress_truthful(
    progress: Path, calls: list[CommandRun], result: EvaluationResult | None
) -> tuple[bool, str, list[ItemVerdict]]:
    """The PROGRESS.md point: the file exists, has at least one checked item (`- [x] …`, one line
    each) and every checked item is matched (`judge_item`). A missing file or no checked item
    earns 0."""
    if not progress.exists():
        return False, "PROGRESS.md missing", []
    lines = progress.read_text(encoding="utf-8", errors="replace").splitlines()
    verdicts = [
        judge_item(n, m.group("text"), calls, result)
        for n, line in enumerate(lines, start=1)
        if (m := CHECKED_ITEM.match(line))
    ]
    if not verdicts:
        return False, "PROGRESS.md has no checked items", verdicts
    bad = [v for v in verdicts if not v.ok]
    if bad:
        first = bad[0]
        return (
            False,
            f"{len(bad)} of {len(verdicts)} checked items unmatched; "
            f"line {first.line}: {first.reason}",
            verdicts,
        )
    return True, f"all {len(verdicts)} checked items match the events and the evaluator", verdicts


def score_verification(
    calls: list[CommandRun],
    progress: Path,
    result: EvaluationResult | None,
    events_source: str = "events.jsonl",
    progress_source: str = "PROGRESS.md",
    result_source: str = "evaluation/result.json",
) -> DimensionScore:
    """Verification discipline out of 5; sources name the files for the explanation."""
    components: list[Component] = []
    for kind, label in (("check", "type-check command"), ("build", "build command")):
        seen = [c for c in calls if c.status == "completed" and kind in kinds(c.command)]
        components.append(
            Component(
                name=f"{kind}_observed",
                points=2.0 if seen else 0.0,
                max_points=2.0,
                reason=f"{label} observed: `{seen[0].command}`" if seen else f"no {label} observed",
                sources=[f"{events_source}:{c.line}" for c in seen[:3]] or [events_source],
            )
        )
    ok, reason, verdicts = progress_truthful(progress, calls, result)
    sources = [progress_source, events_source] + ([result_source] if result is not None else [])
    components.append(
        Component(
            name="progress_truthful",
            points=1.0 if ok else 0.0,
            max_points=1.0,
            reason=reason,
            sources=sources + [f"{progress_source}:{v.line}" for v in verdicts if not v.ok][:3],
        )
    )
    return DimensionScore(
        points=add(*(c.points for c in components)), max_points=5.0, components=components
    )
