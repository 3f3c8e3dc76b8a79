"""`siteos <command> [arguments]`: every operator command of a round in one place.

Each command is the stage's own command line, reached by name (the `python -m ...` entry points
stay as aliases); `siteos <command> --help` shows its arguments. The round's stages themselves run
with `doit` (README, "Running a real round").
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field

Main = Callable[[list[str] | None], int]


def _catalogue() -> Main:
    from harness.catalogue.cli import main

    return main


def _replace() -> Main:
    from harness.__main__ import main

    return main


def _repair_marker() -> Main:
    from harness.marker_repair import main

    return main


def _advance() -> Main:
    from harness.advance import main

    return main


def _retrace() -> Main:
    from harness.agents.__main__ import main

    return main


def _evaluator() -> Main:
    from evaluator.cli import main

    return main


def _scoring() -> Main:
    from scoring.__main__ import main

    return main


def _packets() -> Main:
    from scoring.packets import main

    return main


def _tag() -> Main:
    from publish.tag import main

    return main


def _site() -> Main:
    from publish.render import main

    return main


@dataclass(frozen=True)
class Command:
    """A subcommand: what it does, the stage's own main, and the words put before the rest."""

    help: str
    load: Callable[[], Main]
    prefix: list[str] = field(default_factory=list)


COMMANDS = {
    "catalogue": Command("the cohort against the gateway's catalogue: check [--live]", _catalogue),
    "replace": Command(
        "the one documented replacement of a failed unit: UNIT --reason TEXT --round R",
        _replace,
        ["replace"],
    ),
    "repair-marker": Command(
        "an unreadable .running marker, runner checked dead: UNIT --round R --reason TEXT "
        "--runner-dead",
        _repair_marker,
    ),
    "advance": Command("the next round's cohort from a final one: ROUND --to NEXT", _advance),
    "retrace": Command(
        "rebuild trace.json from native events: ROUND [--force]", _retrace, ["retrace"]
    ),
    "evaluate": Command("evaluate one app folder: APP_DIR --out OUT_DIR", _evaluator, ["evaluate"]),
    "calibrate": Command(
        "evaluate the starter, which must score exactly its task's calibration score: --round R",
        _evaluator,
        ["calibrate"],
    ),
    "controls": Command(
        "the reference, legal variants and mutants: [--only a,b]", _evaluator, ["controls"]
    ),
    "packets": Command("write the blind review packets: --round R", _scoring, ["packets"]),
    "score": Command("score the round into leaderboard.json: --round R", _scoring, ["score"]),
    "unseal": Command(
        "reveal the code map before every review is in: R --reason TEXT", _scoring, ["unseal"]
    ),
    "bundle": Command(
        "one reviewer's shuffled zip of packets: --reviewer X --round R", _packets, ["bundle"]
    ),
    "decide": Command(
        "a packet whose media show a name: --round R --code C --decision D --reason TEXT",
        _packets,
        ["decide"],
    ),
    "tag": Command("tag a frozen round, or --check a checkout against it: ROUND", _tag),
    "site": Command("build the results site of a round: [ROUND] [--evidence-dir D]", _site),
}


def usage() -> str:
    width = max(len(name) for name in COMMANDS)
    lines = [f"  {name:<{width}}  {command.help}" for name, command in COMMANDS.items()]
    return "usage: siteos <command> [arguments]  (siteos <command> --help)\n\n" + "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        print(usage())
        return 0
    command = COMMANDS.get(args[0])
    if command is None:
        print(f"siteos: no command {args[0]!r}\n\n{usage()}", file=sys.stderr)
        return 2
    return command.load()([*command.prefix, *args[1:]])
