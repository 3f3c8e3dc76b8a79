"""Blind review packets: `evidence/<round>/packets/<code>/` per reviewable unit.

A packet holds only: `README.md` (instructions and rubric), `review-sheet.csv` (template row),
`screenshots/`, `video.webm`, `changes.diff` (the anonymised worktree diff without OpenCode's own
files) and `PROGRESS.md` (anonymised, dollar amounts removed). Never identity, transcript
(events/gateway logs), cost, timings or run order. Each packet is built in a temporary folder,
leak-scanned, and only then moved into place; a leak fails the stage. `packets/index.json` lists
codes sorted by code and `packets/review-sheet.csv` is the sheet a reviewer fills in.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from records.evidence.scoring import CodesRecord, PacketEntry, PacketIndex
from records.io import atomic_write_text, write_record
from scoring.anonymise import (
    LeakError,
    anonymise_diff,
    identity_pattern,
    identity_strings,
    leak_scan,
    scrub,
)
from scoring.codes import assign_codes
from scoring.evidence import RoundContext, UnitEvidence, load_unit, unit_ids
from scoring.reviews import SHEET_HEADER

README = """# Blind review packet {code}

Review only what is in this folder. Do not try to find out which system produced it.

- `screenshots/`: the settled pages at 360, 768 and 1440 px wide.
- `video.webm`: the interaction video of the filter, detail and enquiry journeys.
- `changes.diff`: every change made to the starter (identity strings read `[redacted]`).
- `PROGRESS.md`: the progress notes left in the worktree.

Score in your own sheet, `reviews/<your-id>.csv` with header `{header}`:

- `visual` (0-20): visual craft of the screenshots and the video: hierarchy, typography, spacing,
  colour, imagery/placeholders, responsive composition, motion and states.
- `code_quality` (0-10): the diff: structure, naming, types, accessibility in markup, state and
  URL handling, no dead code.
- `notes`: free text.
{missing}"""






def _screenshots(unit: UnitEvidence) -> list[tuple[Path, str]]:
    """(source, packet-relative name) for every screenshot the evaluator recorded."""
    evaluation = unit.paths.evaluation
    found: list[tuple[Path, str]] = []
    if unit.result is not None and unit.result.screenshots:
        for shot in unit.result.screenshots:
            name = re.sub(r"[^A-Za-z0-9._-]+", "-", f"{shot.page}-{shot.state}-{shot.viewport}")
            found.append((evaluation / shot.path, f"screenshots/{name}{Path(shot.path).suffix}"))
    else:
        for path in sorted((evaluation / "screenshots").rglob("*")):
            if path.is_file():
                rel = path.relative_to(evaluation / "screenshots").as_posix()
                found.append((path, f"screenshots/{rel}"))
    return found


def _video(unit: UnitEvidence) -> Path | None:
    evaluation = unit.paths.evaluation
    candidate = evaluation / unit.result.video if unit.result and unit.result.video else None
    if candidate is not None and candidate.is_file():
        return candidate
    default = evaluation / "video.webm"
    return default if default.is_file() else None


def write_packet(unit: UnitEvidence, code: str, target: Path, pattern: re.Pattern[str]) -> None:
    """Write one packet into `target` (an empty folder)."""
    missing: list[str] = []
    for source, name in _screenshots(unit):
        if source.is_file():
            dest = target / scrub(name, pattern)[0].replace("[redacted]", "x")
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, dest)  # copyfile: no source mtimes (they reveal run order)
        else:
            missing.append(f"screenshot {name}")
    video = _video(unit)
    if video is not None:
        shutil.copyfile(video, target / "video.webm")
    else:
        missing.append("video")
    if unit.paths.diff.is_file():
        diff = unit.paths.diff.read_text(encoding="utf-8", errors="replace")
        atomic_write_text(target / "changes.diff", anonymise_diff(diff, pattern))
    else:
        missing.append("changes.diff")
    if unit.paths.progress.is_file():
        progress = unit.paths.progress.read_text(encoding="utf-8", errors="replace")
        atomic_write_text(target / "PROGRESS.md", scrub(progress, pattern, money=True)[0])
    else:
        missing.append("PROGRESS.md (none was left in the worktree)")
    note = "".join(f"\nMissing from this packet: {m}." for m in missing)
    header = ",".join(SHEET_HEADER)
    atomic_write_text(target / "README.md", README.format(code=code, header=header, missing=note))
    atomic_write_text(target / "review-sheet.csv", f"{header}\n{code},,,\n")


def _replace_dir(tmp: Path, final: Path) -> None:
    if final.exists():
        old = final.with_name(f".old-{final.name}")
        shutil.rmtree(old, ignore_errors=True)
        final.rename(old)
        tmp.rename(final)
        shutil.rmtree(old)
    else:
        tmp.rename(final)


def packet_pattern(ctx: RoundContext, units: list[UnitEvidence]) -> re.Pattern[str]:
    """Identity strings of the whole cohort, every model/provider name the sessions observed and
    the names each unit's agent adapter gave for itself (its trace's `identity`)."""
    observed: list[str] = []
    for unit in units:
        observed += unit.session.identity.observed_models + unit.session.identity.observed_providers
        observed += unit.trace.identity.names if unit.trace is not None else []
    return identity_pattern(identity_strings(ctx.cohort, observed))


def build_round_packets(ctx: RoundContext) -> list[Path]:
    """Draw codes for new reviewable units, (re)build every packet, the index and the sheet."""
    every = [load_unit(ctx.paths, u) for u in unit_ids(ctx.paths)]
    units = [u for u in every if u.reviewable]
    codes: CodesRecord = assign_codes(
        ctx.paths.codes, ctx.round_id, ctx.seed, [u.unit for u in units]
    )
    pattern = packet_pattern(ctx, every)
    root = ctx.paths.packets_dir
    root.mkdir(parents=True, exist_ok=True)
    built: list[Path] = []
    entries: list[PacketEntry] = []
    for unit in sorted(units, key=lambda u: codes.code_of(u.unit)):
        code = codes.code_of(unit.unit)
        tmp = root / f".tmp-{code}"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        write_packet(unit, code, tmp, pattern)
        leaks = leak_scan(tmp, pattern)
        if leaks:
            shutil.rmtree(tmp)
            raise LeakError([type(x)(f"{code}/{x.file}", x.line, x.found) for x in leaks])
        _replace_dir(tmp, root / code)
        built.append(root / code)
        files = sorted(
            p.relative_to(root / code).as_posix() for p in (root / code).rglob("*") if p.is_file()
        )
        entries.append(PacketEntry(code=code, files=files))
    current = {e.code for e in entries}
    for stale in root.glob("C-*"):
        if stale.is_dir() and stale.name not in current:  # the unit is no longer reviewable
            shutil.rmtree(stale)
    index = PacketIndex(round_id=ctx.round_id, codes=[e.code for e in entries], packets=entries)
    write_record(root / "index.json", index)
    sheet = ",".join(SHEET_HEADER) + "\n" + "".join(f"{e.code},,,\n" for e in entries)
    atomic_write_text(root / "review-sheet.csv", sheet)
    leaks = [x for x in leak_scan(root, pattern) if not x.file.startswith(".")]
    if leaks:
        raise LeakError(leaks)
    return built
