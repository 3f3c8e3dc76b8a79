"""`python -m harness.agents retrace ROUND [--force]`: rebuild trace.json from native events."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness.agents import AgentRefused
from harness.agents.retrace import retrace
from records.io import RecordError
from records.layout import EVIDENCE_DIR


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.agents", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("retrace", help="write missing trace.json files of a round")
    run.add_argument("round", help="round id, e.g. demo")
    run.add_argument("--evidence", type=Path, default=EVIDENCE_DIR)
    run.add_argument("--force", action="store_true", help="rebuild existing traces too")
    args = parser.parse_args(argv)
    try:
        written = retrace(args.round, args.evidence, force=args.force)
    except (AgentRefused, RecordError) as exc:
        print(f"refused: {exc}", file=sys.stderr)
        return 2
    for path in written:
        print(path)
    print(f"{len(written)} trace.json written", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
