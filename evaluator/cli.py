"""Command line: `python -m evaluator evaluate APP_DIR --out OUT_DIR [--task ID]`,
`calibrate --round R`, `controls [--task ID]`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from records.rubric import MAX_AUTOMATED
from records.task import DEFAULT_TASK, load_task


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
    ev.add_argument(
        "--task", default=DEFAULT_TASK, help=f"the task judged (default {DEFAULT_TASK})"
    )

    cal = sub.add_parser(
        "calibrate",
        help=f"evaluate the round's task's starter; must score exactly its task.json"
        f" calibration_score out of {MAX_AUTOMATED}",
    )
    cal.add_argument("--round", dest="round_id", required=True)

    con = sub.add_parser("controls", help="evaluate the reference and every mutant")
    con.add_argument("--only", default="", help="comma-separated control names")
    con.add_argument(
        "--task", default=DEFAULT_TASK, help=f"whose controls (default {DEFAULT_TASK})"
    )

    args = parser.parse_args(argv)
    if args.command == "evaluate":
        from evaluator.evaluate import evaluate, summary

        if not (args.app_dir / "package.json").is_file():
            print(f"{args.app_dir}: no package.json (not an app folder)", file=sys.stderr)
            return 2
        result = evaluate(
            args.app_dir,
            args.out,
            task=load_task(args.task),
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
        from records.round import Round

        return calibrate(Round.load(args.round_id))
    if args.command == "controls":
        from evaluator.controls.run import run_controls

        only = [x for x in args.only.split(",") if x] or None
        return run_controls(only, task=load_task(args.task))
    return 2
