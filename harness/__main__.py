"""`python -m harness replace UNIT --reason TEXT [--round R]`: the one documented replacement unit.

Only a unit that failed as a provider outage, a harness failure or an evaluator failure (its
result.json missing, unreadable or not a valid measurement) may be replaced, once, with a written
reason; the next `doit` runs the replacement after the frozen order, and the replaced unit is
listed as superseded by it.
"""

from __future__ import annotations

import argparse
import os
import sys

from harness.replacement import ReplacementRefused, create_replacement, replacement_record
from records.evidence.round import ReplacementRecord
from records.io import RecordError
from records.layout import round_paths


def _existing(round_id: str, unit: str) -> ReplacementRecord | None:
    target = round_paths(round_id).unit(f"{unit}-x1")
    try:
        return replacement_record(target)
    except ReplacementRefused:
        return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    replace = commands.add_parser("replace", help="create the replacement of a failed unit")
    replace.add_argument("unit", help="the failed unit, e.g. claude-opus-r1")
    replace.add_argument("--reason", required=True, help="why (recorded in replacement.json)")
    replace.add_argument("--round", default=os.environ.get("SITEOS_ROUND", "demo"))
    replace.add_argument(
        "--if-absent",
        action="store_true",
        help="succeed without a change when the unit already has its one replacement "
        "(for a script that runs twice, like scripts/demo-round)",
    )
    args = parser.parse_args(argv)
    try:
        if args.if_absent and (existing := _existing(args.round, args.unit)) is not None:
            print(f"{existing.replacement_unit} already replaces {existing.replaced_unit}")
            return 0
        record = create_replacement(args.round, args.unit, args.reason)
    except (ReplacementRefused, RecordError) as exc:
        print(f"refused: {exc}", file=sys.stderr)
        return 2
    print(
        f"{record.replacement_unit} replaces {record.replaced_unit} "
        f"({record.failure_class}): {record.reason}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
