"""`python -m harness replace UNIT --reason TEXT [--round R]`: the one documented replacement unit.

Only a unit that failed as a provider outage or a harness failure may be replaced, once, with a
written reason; the next `doit` runs the replacement after the frozen order.
"""

from __future__ import annotations

import argparse
import os
import sys

from harness.replacement import ReplacementRefused, create_replacement
from records.io import RecordError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    replace = commands.add_parser("replace", help="create the replacement of a failed unit")
    replace.add_argument("unit", help="the failed unit, e.g. claude-opus-r1")
    replace.add_argument("--reason", required=True, help="why (recorded in replacement.json)")
    replace.add_argument("--round", default=os.environ.get("SITEOS_ROUND", "demo"))
    args = parser.parse_args(argv)
    try:
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
