"""`python -m scoring packets|score --round R [--evidence-dir D]`;
`python -m scoring unseal R --reason "..." [--by NAME]` reveals the code map before reviews are in.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from records.io import RecordError
from records.layout import EVIDENCE_DIR
from records.round import Round
from scoring.anonymise import LeakError
from scoring.pipeline import build_packets, score_round, unseal_round


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scoring", description=__doc__)
    parser.add_argument("stage", choices=("packets", "score", "unseal"))
    parser.add_argument("round", nargs="?", help="the round (or --round)")
    parser.add_argument("--round", dest="round_id")
    parser.add_argument("--evidence-dir", type=Path, default=None)
    parser.add_argument("--reason", default="", help="unseal: why, recorded in unsealing.json")
    parser.add_argument("--by", default="operator", help="unseal: who")
    args = parser.parse_args(argv)
    round_id = args.round_id or args.round
    if not round_id:
        parser.error("name the round: ROUND or --round ROUND")
    if args.stage == "unseal" and not args.reason.strip():
        parser.error("unseal needs --reason (it is recorded)")
    try:
        rnd = Round.load(round_id, args.evidence_dir or EVIDENCE_DIR)
        if args.stage == "unseal":
            board = unseal_round(rnd, args.reason, args.by)
            print(f"code map revealed: {board.code_map.reason if board.code_map else ''}")
        elif args.stage == "packets":
            for path in build_packets(rnd):
                print(path)
        else:
            board = score_round(rnd)
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
