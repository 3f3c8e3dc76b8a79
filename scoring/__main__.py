"""`python -m scoring packets|score --round R [--evidence-dir D]`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from records.io import RecordError
from scoring.anonymise import LeakError
from scoring.pipeline import build_packets, score_round


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scoring", description=__doc__)
    parser.add_argument("stage", choices=("packets", "score"))
    parser.add_argument("--round", required=True, dest="round_id")
    parser.add_argument("--evidence-dir", type=Path, default=None)
    args = parser.parse_args(argv)
    try:
        if args.stage == "packets":
            for path in build_packets(args.round_id, args.evidence_dir):
                print(path)
        else:
            board = score_round(args.round_id, args.evidence_dir)
            for row in board.units:
                total = "-" if row.total is None else f"{row.total:g}"
                flags = ("capped " if row.capped else "") + (
                    "provisional" if row.provisional else ""
                )
                print(
                    f"{row.rank or '-':>3} {row.candidate_code or '-':8} {row.unit:24} "
                    f"{row.status:18} {total:>6} {flags}"
                )
    except (RecordError, LeakError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
