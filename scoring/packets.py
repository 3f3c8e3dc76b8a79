"""Blind review packets: `evidence/<round>/packets/<code>/` per reviewable unit.

A packet holds only: `index.html` (the reviewer page: screenshots, video, diff, PROGRESS.md,
rubric and the scoring form), `README.md`, `review-sheet.csv` (template row), `screenshots/`,
`video.webm`, `changes.diff` (the anonymised worktree diff without the agent's own files) and
`PROGRESS.md` (anonymised, dollar amounts removed). Never identity, transcript, cost, timings or
run order. `packets/index.json` lists codes sorted by code; `packets/review-sheet.csv` is a blank
sheet.

Identity (anonymise.py's pattern list) is handled by where it comes from:
- the model's text (diff, PROGRESS.md): redacted with `[redacted]`, each replacement logged (file,
  line, string) in `private/packet-report.json`, the packet flagged `text_redacted`;
- the rendered app (the evaluator's `page-text.json`: visible text, title, alt/aria-label/title/
  placeholder texts, meta tags): the packet's screenshots of those pages and its video are flagged
  `media_shows_identity` and listed for the operator, who decides; an evaluation without that
  record is flagged `page_text_missing` (its media need a manual look);
- the project's own text (README, page, sheet, file names): any identity string left after
  redaction is a harness leak and fails the stage (`LeakError`). A self-signature never does.

`python -m scoring.packets bundle --reviewer R --round ROUND` writes `packets/bundles/R.zip`
without the packets whose media show identity and have no current operator decision
(`scoring/blinding.py`); `python -m scoring.packets decide --round ROUND --code C --decision
approved|redacted --reason "..."` records one in `private/media-decisions.json`.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from pathlib import Path

from records.evidence.blind import PacketFlag, PacketReport, PacketReportEntry, Redaction
from records.evidence.scoring import CodesRecord, PacketEntry, PacketIndex
from records.io import RecordError, atomic_write_text, write_record
from records.layout import EVIDENCE_DIR, round_paths
from records.round import Round
from records.rubric import REVIEW_CRITERIA, REVIEW_RANGES
from scoring.anonymise import (
    LeakError,
    identity_pattern,
    identity_strings,
    leak_scan,
    redact,
    redact_diff,
    scrub,
)
from scoring.blinding import media_sha256
from scoring.codes import assign_codes
from scoring.evidence import (
    RoundContext,
    UnitEvidence,
    load_context,
    load_unit,
    superseding,
    unit_ids,
)
from scoring.page_scan import load_page_text, page_hits
from scoring.review_page import PageShot, render_page, viewport_width
from scoring.reviews import SHEET_HEADER

README = """# Blind review packet {code}

Review only what is in this folder. Do not try to find out which system produced it.

Open `index.html` in a browser (it works offline, from the file): the screenshots at 360, 768 and
1440 px, the interaction video, the changes with a file list, PROGRESS.md, the rubric and a form
that exports your sheet row. The same material as files:

- `screenshots/`: the settled pages at 360, 768 and 1440 px wide.
- `video.webm`: the interaction video of the filter, detail and enquiry journeys.
- `changes.diff`: every change made to the starter (identity strings read `[redacted]`).
- `PROGRESS.md`: the progress notes left in the worktree.

Score in your own sheet, `reviews/<your-id>.csv` with header `{header}`:

{rubric}
- `notes`: free text.
{missing}"""


def rubric_text() -> str:
    lines = []
    for dim, title in (("visual", "visual"), ("code_quality", "code_quality")):
        lines.append(f"- `{title}` (0-{REVIEW_RANGES[dim]:g}), the sum of:")
        lines += [
            f"  - {c.title} (0-{c.points:g}): {c.looks_for}"
            for c in REVIEW_CRITERIA
            if c.dimension == dim
        ]
    return "\n".join(lines)


def _screenshots(unit: UnitEvidence) -> list[tuple[Path, str, PageShot]]:
    """(source, packet-relative name, page entry) for every screenshot the evaluator recorded."""
    evaluation = unit.paths.evaluation
    found: list[tuple[Path, str, PageShot]] = []
    if unit.result is not None and unit.result.screenshots:
        for shot in unit.result.screenshots:
            name = re.sub(r"[^A-Za-z0-9._-]+", "-", f"{shot.page}-{shot.state}-{shot.viewport}")
            rel = f"screenshots/{name}{Path(shot.path).suffix}"
            width = viewport_width(shot.viewport)
            entry = PageShot(rel, shot.page, shot.state, shot.viewport, width)
            found.append((evaluation / shot.path, rel, entry))
    else:
        for path in sorted((evaluation / "screenshots").rglob("*")):
            if path.is_file():
                rel = f"screenshots/{path.relative_to(evaluation / 'screenshots').as_posix()}"
                found.append((path, rel, PageShot(rel, path.stem, "", "", 0)))
    return found


def _video(unit: UnitEvidence) -> Path | None:
    evaluation = unit.paths.evaluation
    candidate = evaluation / unit.result.video if unit.result and unit.result.video else None
    if candidate is not None and candidate.is_file():
        return candidate
    default = evaluation / "video.webm"
    return default if default.is_file() else None


def _packet_name(name: str, pattern: re.Pattern[str]) -> str:
    """Screenshot names come from the evaluator's page names; never let them carry identity."""
    return scrub(name, pattern)[0].replace("[redacted]", "x")


def write_packet(
    unit: UnitEvidence, code: str, target: Path, pattern: re.Pattern[str]
) -> PacketReportEntry:
    """Write one packet into `target` (an empty folder); returns its private report entry."""
    report = PacketReportEntry(code=code, unit=unit.unit)
    missing: list[str] = []
    shots: list[PageShot] = []
    packet_names: dict[str, str] = {}
    for source, name, entry in _screenshots(unit):
        if not source.is_file():
            missing.append(f"screenshot {name}")
            continue
        rel = _packet_name(name, pattern)
        dest = target / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, dest)  # copyfile: no source mtimes (they reveal run order)
        shots.append(PageShot(rel, entry.page, entry.state, entry.viewport, entry.width))
        packet_names[source.relative_to(unit.paths.evaluation).as_posix()] = rel
    video = _video(unit)
    if video is not None:
        shutil.copyfile(video, target / "video.webm")
    else:
        missing.append("video")
    diff: str | None = None
    if unit.paths.diff.is_file():
        raw = unit.paths.diff.read_text(encoding="utf-8", errors="replace")
        own_files = unit.trace.identity.files if unit.trace is not None else []
        diff, hits = redact_diff(raw, pattern, own_files)
        atomic_write_text(target / "changes.diff", diff)
        report.redactions += [Redaction(file="changes.diff", line=n, found=f, source="diff")
                              for n, f in hits]  # fmt: skip
    else:
        missing.append("changes.diff")
    progress: str | None = None
    if unit.paths.progress.is_file():
        raw = unit.paths.progress.read_text(encoding="utf-8", errors="replace")
        progress, hits = redact(raw, pattern, money=True)
        atomic_write_text(target / "PROGRESS.md", progress)
        report.redactions += [Redaction(file="PROGRESS.md", line=n, found=f, source="progress")
                              for n, f in hits]  # fmt: skip
    else:
        missing.append("PROGRESS.md (none was left in the worktree)")
    media = [s.src for s in shots] + (["video.webm"] if video is not None else [])
    page_text = load_page_text(unit.paths.page_text)
    if page_text is None:
        if media:
            report.flags.append("page_text_missing")
            report.media_showing_identity = media
    else:
        report.page_hits = page_hits(page_text, packet_names, pattern)
        if report.page_hits:
            report.flags.append("media_shows_identity")
            shown = {h.screenshot for h in report.page_hits}
            report.media_showing_identity = [s for s in media if s in shown] + (
                ["video.webm"] if video is not None else []
            )
    if report.redactions:
        report.flags.insert(0, "text_redacted")
    note = "".join(f"\nMissing from this packet: {m}." for m in missing)
    header = ",".join(SHEET_HEADER)
    readme = README.format(code=code, header=header, rubric=rubric_text(), missing=note)
    atomic_write_text(target / "README.md", readme)
    atomic_write_text(target / "review-sheet.csv", f"{header}\n{code},,,\n")
    page = render_page(code, shots, "video.webm" if video else None, diff, progress, missing)
    atomic_write_text(target / "index.html", page)
    report.media_sha256 = media_sha256(target)  # a redaction must change these bytes
    return report


def _replace_dir(tmp: Path, final: Path) -> None:
    if final.exists():
        old = final.with_name(f".old-{final.name}")
        shutil.rmtree(old, ignore_errors=True)
        final.rename(old)
        tmp.rename(final)
        shutil.rmtree(old)
    else:
        tmp.rename(final)


def packet_identities(ctx: RoundContext, units: list[UnitEvidence]) -> list[str]:
    """Identity strings of the whole cohort, every model/provider name the sessions observed and
    the names each unit's agent adapter gave for itself (its trace's `identity`)."""
    observed: list[str] = []
    for unit in units:
        if unit.session is not None:  # units without a readable record have no packet
            identity = unit.session.identity
            observed += identity.observed_models + identity.observed_providers
        observed += unit.trace.identity.names if unit.trace is not None else []
    return identity_strings(ctx.cohort, observed)


def agent_ids(units: list[UnitEvidence]) -> list[str]:
    """The native id formats (regexes) the units' agent adapters name in their traces."""
    return sorted({i for u in units if u.trace is not None for i in u.trace.identity.ids})


def packet_pattern(ctx: RoundContext, units: list[UnitEvidence]) -> re.Pattern[str]:
    return identity_pattern(packet_identities(ctx, units), agent_ids(units))


def _flag_summary(entry: PacketReportEntry) -> str:
    labels: dict[PacketFlag, str] = {
        "text_redacted": f"{len(entry.redactions)} redaction(s) in its text",
        "media_shows_identity": f"{len(entry.media_showing_identity)} screenshot(s)/video show "
        f"identity ({', '.join(sorted({h.found for h in entry.page_hits}))}): withheld from "
        "reviewer bundles until approved or redacted (python -m scoring.packets decide)",
        "page_text_missing": "no page-text record: look at its screenshots and video",
    }
    return f"packet {entry.code}: " + "; ".join(labels[f] for f in entry.flags)


def build_round_packets(ctx: RoundContext) -> list[Path]:
    """Draw codes for new reviewable units, (re)build every packet, the index, the sheet and the
    private report; fails only on a harness leak."""
    replaced = superseding(ctx.paths)
    every = [load_unit(ctx.paths, u, replaced.get(u)) for u in unit_ids(ctx.paths)]
    units = [u for u in every if u.reviewable]
    codes: CodesRecord = assign_codes(ctx.paths, [u.unit for u in units])
    identities = packet_identities(ctx, every)
    pattern = identity_pattern(identities, agent_ids(every))
    root = ctx.paths.packets_dir
    root.mkdir(parents=True, exist_ok=True)
    built: list[Path] = []
    entries: list[PacketEntry] = []
    report = PacketReport(round_id=ctx.round_id, identity_strings=len(identities))
    for unit in sorted(units, key=lambda u: codes.code_of(u.unit)):
        code = codes.code_of(unit.unit)
        tmp = root / f".tmp-{code}"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        report.packets.append(write_packet(unit, code, tmp, pattern))
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
    leaks = [x for x in leak_scan(root, pattern) if not x.file.startswith((".", "bundles/"))]
    if leaks:
        raise LeakError(leaks)
    write_record(ctx.paths.packet_report, report)
    for entry in report.flagged:
        print(f"{_flag_summary(entry)} (see {ctx.rel(ctx.paths.packet_report)})")
    for legacy in codes.recomputable:
        print(f"code {legacy.code} was drawn by the public schema-1 formula: not blind")
    return built


def main(argv: list[str] | None = None) -> int:
    from scoring.blinding import decide as decide_media
    from scoring.blinding import withheld
    from scoring.bundle import write_bundle

    parser = argparse.ArgumentParser(prog="python -m scoring.packets")
    sub = parser.add_subparsers(dest="command", required=True)
    bundle = sub.add_parser("bundle", help="one zip of every packet for one reviewer, shuffled")
    bundle.add_argument("--reviewer", required=True)
    bundle.add_argument("--round", required=True, dest="round_id")
    bundle.add_argument("--evidence-dir", type=Path, default=None)
    decide = sub.add_parser(
        "decide", help="approve or record the redaction of a packet whose media show identity"
    )
    decide.add_argument("--round", required=True, dest="round_id")
    decide.add_argument("--code", required=True)
    decide.add_argument("--decision", required=True, choices=("approved", "redacted"))
    decide.add_argument("--reason", required=True)
    decide.add_argument("--by", default="")
    decide.add_argument("--evidence-dir", type=Path, default=None)
    args = parser.parse_args(argv)
    try:
        if args.command == "decide":  # needs the round's evidence only, not its inputs
            paths = round_paths(args.round_id, args.evidence_dir or EVIDENCE_DIR)
            made = decide_media(paths, args.code, args.decision, args.reason,
                                args.by)  # fmt: skip
            print(f"packet {made.code}: {made.decision} by {made.by} ({paths.media_decisions})")
            return 0
        ctx = load_context(Round.load(args.round_id, args.evidence_dir or EVIDENCE_DIR))
        target = write_bundle(ctx, args.reviewer)
        for code, why in withheld(ctx.paths).items():
            print(f"withheld from {target.name}: packet {code}: {why}", file=sys.stderr)
        print(target)
    except (RecordError, LeakError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
