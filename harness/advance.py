"""Carry a round's advancers into the next round: `python -m harness.advance SOURCE --to TARGET`.

Reads the source round's `leaderboard.json` with the record class and writes the target round's
cohort file (the target round file's `cohort`, e.g. `benchmark/round-1-cohort.json`): exactly the
models whose candidate codes are in the leaderboard's final `advancing` list, each candidate copied
unchanged from the source cohort (route, frozen slug, reasoning policy, notes, substitution), plus
an `advanced_from` provenance block (source round, its `round/<source>` git tag if any, the
leaderboard's SHA-256, the standing).

A repeated source round (Round 1: three repetitions) advances by model: its
`model-leaderboard.json` (`advancing`, model keys), the champion cohort a later intervention round
runs on. It refuses while the source standing is provisional (reviews missing, replacement
pending): the final list is empty until then. `--allow-provisional` uses the projected list
instead and records that in the provenance. It never rewrites a cohort file: the same advancers
leave it byte for byte as it is (the round froze its hash), different ones are refused.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from records.evidence.scoring import Leaderboard, LeaderboardRow, ModelLeaderboard
from records.hashing import file_sha256
from records.inputs import AdvancedFrom, Candidate, Cohort, load_cohort, load_round
from records.io import RecordError, read_record, write_record
from records.layout import BENCHMARK_DIR, EVIDENCE_DIR, REPO_ROOT, round_paths


class AdvanceRefused(RuntimeError):
    """The next round's cohort cannot be written; the message says why."""


def tag_name(round_id: str) -> str:
    """The frozen-round tag publish/tag.py creates (`round/<round>`)."""
    return f"round/{round_id}"


def tag_commit(round_id: str, repo: Path = REPO_ROOT) -> str | None:
    """The commit the round's tag points at, or None when the round is not tagged."""
    found = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "--verify", "--quiet",
         f"refs/tags/{tag_name(round_id)}^{{commit}}"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if found.returncode != 0:
        return None
    return found.stdout.strip() or None


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def advancing_models(board: Leaderboard, codes: list[str]) -> list[str]:
    """Model keys of the advancing codes, in leaderboard order (a code matches a row's candidate
    code, or its unit when the board is sealed and codes are masked); each model once."""
    rows: dict[str, LeaderboardRow] = {}
    for row in board.units:
        for name in (row.candidate_code, row.unit):
            if name is not None:
                rows.setdefault(name, row)
    unknown = [c for c in codes if c not in rows]
    if unknown:
        raise AdvanceRefused(f"advancing codes with no leaderboard row: {', '.join(unknown)}")
    models: list[str] = []
    for code in codes:
        key = rows[code].model_key
        if key not in models:
            models.append(key)
    return models


def advance(
    source: str,
    target: str,
    allow_provisional: bool = False,
    evidence_dir: Path = EVIDENCE_DIR,
    out: Path | None = None,
) -> Cohort:
    """Write the target round's cohort (to `out`, default the target round file's `cohort`) from
    the source round's leaderboard; return it."""
    source_settings = load_round(source)
    target_settings = load_round(target, require_cohort=False)
    if target_settings.advances_from != source:
        raise AdvanceRefused(
            f"benchmark/rounds/{target}.json: field advances_from: "
            f"{target_settings.advances_from!r}, not {source!r}"
        )
    path = round_paths(source, evidence_dir).leaderboard
    if not path.exists():
        raise AdvanceRefused(f"{path} missing: score round {source!r} first")
    board = read_record(path, Leaderboard)
    if board.round_id != source:
        raise AdvanceRefused(f"{path}: field round_id: {board.round_id!r}, not {source!r}")
    if board.standing != "final" and not allow_provisional:
        raise AdvanceRefused(
            f"{path}: round {source!r} is provisional ({board.standing_reason or 'not final'}); "
            "its advancement is only projected. Finish the reviews and replacements and "
            "re-score, or pass --allow-provisional to advance the projected list (recorded)"
        )
    final = board.standing == "final"
    codes = board.advancing if final else board.advancing_projected
    keys = advancing_models(board, codes) if codes else []
    if source_settings.repetitions > 1:  # ranked by model: the model leaderboard decides
        path = round_paths(source, evidence_dir).model_leaderboard
        if not path.exists():
            raise AdvanceRefused(f"{path} missing: score repeated round {source!r} first")
        models = read_record(path, ModelLeaderboard)
        codes = keys = models.advancing if final else models.advancing_projected
    if not codes:
        raise AdvanceRefused(f"{path}: no model advances from round {source!r}")
    source_cohort = load_cohort(source_settings.cohort_path)
    by_key = {c.key: c for c in source_cohort.candidates}
    candidates: list[Candidate] = []
    for key in keys:
        if key not in by_key:
            raise AdvanceRefused(
                f"{path}: advancing model {key!r} is not in {source_settings.cohort_path}"
            )
        candidates.append(by_key[key])
    commit = tag_commit(source)
    cohort = Cohort(
        schema_version=3,
        cohort_id=f"{target}-cohort",
        description=(
            f"{target_settings.title}: the {len(candidates)} models advancing from {source} "
            f"({'final' if final else 'PROVISIONAL, projected'} standing), copied unchanged "
            f"from {source_settings.cohort}"
        ),
        candidates=candidates,
        catalogue=source_cohort.catalogue,
        advanced_from=AdvancedFrom(
            round_id=source,
            leaderboard=_relative(path, REPO_ROOT),
            leaderboard_sha256=file_sha256(path),
            standing=board.standing,
            allow_provisional=not final,
            advancing=list(codes),
            source_cohort=source_settings.cohort,
            source_cohort_sha256=file_sha256(source_settings.cohort_path),
            tag=tag_name(source) if commit else None,
            tag_commit=commit,
            advanced_at=datetime.now(UTC).isoformat(timespec="seconds"),
        ),
    )
    out = out or target_settings.cohort_path
    if out.exists():
        existing = load_cohort(out)
        if existing.candidates != cohort.candidates:
            raise AdvanceRefused(
                f"{out} already names {[c.key for c in existing.candidates]}; the leaderboard "
                f"now advances {[c.key for c in candidates]}. A written cohort is never changed"
            )
        return existing  # its bytes are frozen with the round; its provenance stays the first
    write_record(out, cohort)
    return cohort


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.advance", description=__doc__)
    parser.add_argument("source", help="the round whose leaderboard decides, e.g. round-0")
    parser.add_argument("--to", dest="target", required=True, help="the next round, e.g. round-1")
    parser.add_argument(
        "--allow-provisional",
        action="store_true",
        help="advance the projected list of a provisional standing (recorded in the cohort)",
    )
    parser.add_argument("--evidence", type=Path, default=EVIDENCE_DIR, help="evidence folder")
    args = parser.parse_args(argv)
    try:
        cohort = advance(args.source, args.target, args.allow_provisional, args.evidence)
    except (AdvanceRefused, RecordError) as exc:
        print(f"advance refused: {exc}", file=sys.stderr)
        return 2
    settings = load_round(args.target)
    note = (
        ""
        if cohort.advanced_from is None or not cohort.advanced_from.allow_provisional
        else (" (PROVISIONAL: projected advancement, recorded in advanced_from)")
    )
    print(
        f"{_relative(settings.cohort_path, BENCHMARK_DIR.parent)}: {len(cohort.candidates)} models "
        f"from {args.source}{note}: {', '.join(c.key for c in cohort.candidates)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
