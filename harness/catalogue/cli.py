"""`python -m harness.catalogue check`: print the table, optionally write the JSON report.

Exit status: 0 no mismatch, 1 at least one mismatch, 2 the inputs or the catalogue could not be
read.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from harness.catalogue.check import check_cohort, render_table
from harness.catalogue.live import LiveCatalogueUnavailable, fetch_live_catalogue
from records.catalogue import DEFAULT_SNAPSHOT, Catalogue, load_snapshot
from records.inputs import Cohort, RoundSettings, load_cohort, load_round
from records.io import RecordError, write_record

DEFAULT_ROUND = "round-0"


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python -m harness.catalogue")
    sub = top.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="check a round's cohort against an OpenRouter catalogue")
    check.add_argument(
        "--round",
        default=os.environ.get("SITEOS_ROUND") or DEFAULT_ROUND,
        help="round id (default: $SITEOS_ROUND, else round-0)",
    )
    where = check.add_mutually_exclusive_group()
    where.add_argument(
        "--catalogue",
        type=Path,
        help="catalogue snapshot file (default: the one the cohort records, else "
        f"{DEFAULT_SNAPSHOT.name})",
    )
    where.add_argument(
        "--live",
        action="store_true",
        help="fetch /models from the round's gateway: OpenRouter (needs OPENROUTER_API_KEY) or, "
        "for a demo or rehearsal round, the project's simulator on 127.0.0.1",
    )
    check.add_argument("--json", type=Path, metavar="OUT", help="write the typed report here")
    return top


def catalogue_for(
    settings: RoundSettings, cohort: Cohort, file: Path | None, live: bool
) -> Catalogue:
    """--live: the round's gateway; else the file given, the cohort's recorded one, the default."""
    if live:
        return fetch_live_catalogue(settings)
    if file is None:
        file = cohort.catalogue.path if cohort.catalogue else DEFAULT_SNAPSHOT
    return load_snapshot(file)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        settings = load_round(args.round)
        cohort = load_cohort(settings.cohort_path)
        catalogue = catalogue_for(settings, cohort, args.catalogue, args.live)
    except (RecordError, LiveCatalogueUnavailable) as exc:
        print(f"catalogue check: {exc}", file=sys.stderr)
        return 2
    report = check_cohort(
        cohort, catalogue, round_id=settings.round_id, cohort_path=settings.cohort_path
    )
    sys.stdout.write(render_table(report))
    if args.json:
        write_record(args.json, report)
    return 0 if report.passed else 1
