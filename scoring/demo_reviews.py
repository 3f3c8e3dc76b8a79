"""Demo only: turn the scripted, unit-keyed demo review sheets into code-keyed reviewer sheets.

Real rounds get sheets from people, keyed by the blind codes they saw. The demo's codes are drawn
from a private secret when packets are built, so its shipped sheets (`benchmark/demo/reviews/
<reviewer>.json`, each marked `scripted`) name units instead; this step reads the private map and
writes `evidence/<round>/reviews/<reviewer>.csv`, every note prefixed "scripted demo review". It
refuses any round that is not a demo round (settings kind `demo`) or that a sheet does not name.
Units without a code (not reviewable) are skipped.

    python -m scoring.demo_reviews --round demo
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from pathlib import Path

from records.evidence.blind import DemoReviewSheet
from records.io import RecordError, atomic_write_text, read_record
from records.layout import BENCHMARK_DIR, EVIDENCE_DIR
from records.round import Round
from scoring.codes import load_codes
from scoring.reviews import SHEET_HEADER

DEMO_REVIEWS_DIR = BENCHMARK_DIR / "demo" / "reviews"
PREFIX = "scripted demo review"


def demo_sheets(round_id: str, source: Path = DEMO_REVIEWS_DIR) -> list[Path]:
    """The shipped sheets that apply to `round_id`."""
    return [
        path
        for path in sorted(source.glob("*.json"))
        if round_id in read_record(path, DemoReviewSheet).rounds
    ]


def _cell(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


def write_demo_reviews(rnd: Round, source: Path = DEMO_REVIEWS_DIR) -> list[Path]:
    """Write one code-keyed sheet per scripted demo sheet; returns the sheets written."""
    kind, paths = rnd.settings.kind, rnd.paths
    if kind != "demo":
        raise RecordError(f"round {rnd.id!r} is {kind!r}: demo reviews are demo-only")
    codes = load_codes(paths)
    if codes is None:
        raise RecordError(f"{paths.codes}: no codes yet; build the packets first")
    by_unit = {e.unit: e.code for e in codes.codes}
    written = []
    for path in demo_sheets(rnd.id, source):
        sheet = read_record(path, DemoReviewSheet)
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(SHEET_HEADER)
        for row in sorted(sheet.rows, key=lambda r: by_unit.get(r.unit, "")):
            if row.unit in by_unit:
                notes = f"{PREFIX}: {row.notes}" if row.notes else PREFIX
                code = by_unit[row.unit]
                writer.writerow([code, _cell(row.visual), _cell(row.code_quality), notes])
        target = paths.reviews_dir / f"{path.stem}.csv"
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(target, buffer.getvalue())
        written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scoring.demo_reviews", description=__doc__)
    parser.add_argument("--round", required=True, dest="round_id")
    parser.add_argument("--evidence-dir", type=Path, default=None)
    args = parser.parse_args(argv)
    try:
        for path in write_demo_reviews(
            Round.load(args.round_id, args.evidence_dir or EVIDENCE_DIR)
        ):
            print(path)
    except RecordError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
