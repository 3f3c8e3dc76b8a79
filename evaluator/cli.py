"""Command line: `python -m evaluator evaluate APP_DIR --out OUT_DIR`, `calibrate --round R`,
`controls`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from records.rubric import CALIBRATION_SCORE, MAX_AUTOMATED


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluator", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    ev = sub.add_parser("evaluate", help="evaluate one app folder and write OUT/result.json")
    ev.add_argument("app_dir", type=Path)
    ev.add_argument("--out", type=Path, required=True)
    ev.add_argument("--no-video", action="store_true")
    ev.add_argument("--no-trace", action="store_true")
    ev.add_argument("--no-screenshots", action="store_true")
    ev.add_argument(
        "--no-evidence",
        action="store_true",
        help="no video, trace or screenshots (the same checks and verdicts; for iteration)",
    )
    ev.add_argument("--keep-workspace", action="store_true", help="keep the temp build folder")

    cal = sub.add_parser(
        "calibrate",
        help=f"evaluate the starter; must score exactly {CALIBRATION_SCORE}/{MAX_AUTOMATED}",
    )
    cal.add_argument("--round", dest="round_id", required=True)

    con = sub.add_parser("controls", help="evaluate the reference and every mutant")
    con.add_argument("--only", default="", help="comma-separated control names")

    args = parser.parse_args(argv)
    if args.command == "evaluate":
        from evaluator.evaluate import evaluate, summary

        if not (args.app_dir / "package.json").is_file():
            print(f"{args.app_dir}: no package.json (not an app folder)", file=sys.stderr)
            return 2
        result = evaluate(
            args.app_dir,
            args.out,
            video=not (args.no_video or args.no_evidence),
            trace=not (args.no_trace or args.no_evidence),
            screenshots=not (args.no_screenshots or args.no_evidence),
            keep_workspace=args.keep_workspace,
        )
        print(summary(result))
        print(f"wrote {args.out / 'result.json'}")
        return 3 if result.evaluator_error else 0
    if args.command == "calibrate":
        from evaluator.calibration import calibrate

        return calibrate(args.round_id)
    if args.command == "controls":
        from evaluator.controls.run import run_controls

        return run_controls([x for x in args.only.split(",") if x] or None)
    return 2
