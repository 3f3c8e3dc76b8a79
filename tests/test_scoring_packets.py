"""Candidate codes and blind packets: frozen codes, anonymisation and the leak scan."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from scoring_support import demo_cohort, make_round, make_unit, result, session

from records.evidence.blind import CodeSecret, CodesRecord, PacketReport
from records.evidence.evaluation import MetaTag, PageText, PageTextRecord
from records.inputs import load_cohort, load_round, round_settings_path
from records.io import RecordError, read_record, write_record
from records.layout import BENCHMARK_DIR, round_paths
from records.task import DEFAULT_TASK, load_task
from scoring.anonymise import (
    LeakError,
    identity_pattern,
    identity_strings,
    leak_scan,
    redact,
    scrub,
)
from scoring.codes import CODE_LENGTH, assign_codes, draw_code, legacy_code, load_codes
from scoring.packets import build_round_packets


def test_codes_are_drawn_once_and_appended(tmp_path: Path) -> None:
    paths = round_paths("r", tmp_path)
    first = assign_codes(paths, ["b-r1", "a-r1"])
    assert [e.unit for e in first.codes] == ["a-r1", "b-r1"]
    assert all(e.code.startswith("C-") and len(e.code) == 2 + CODE_LENGTH for e in first.codes)
    secret = bytes.fromhex(read_record(paths.code_secret, CodeSecret).secret_hex)
    assert first.code_of("a-r1") == draw_code(secret, "a-r1")
    second = assign_codes(paths, ["c-r1", "a-r1"])
    assert second.codes[:2] == first.codes and second.codes[2].unit == "c-r1"
    assert load_codes(paths) == second
    assert paths.codes.is_relative_to(paths.private_dir)
    assert paths.code_secret.stat().st_mode & 0o077 == 0  # the operator's only
    other = round_paths("other", tmp_path)  # the codes of round r, copied into another round
    shutil.copytree(paths.root, other.root)
    with pytest.raises(RecordError, match="never redrawn"):
        assign_codes(other, ["a-r1"])


def test_code_collisions_take_the_next_attempt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import scoring.codes as codes

    monkeypatch.setattr(codes, "draw_code", lambda secret, unit, attempt=0: f"C-{attempt:04d}")
    record = codes.assign_codes(round_paths("r", tmp_path), ["a", "b"])
    assert [e.code for e in record.codes] == ["C-0000", "C-0001"]


def test_codes_cannot_be_recomputed_from_public_inputs(tmp_path: Path) -> None:
    """Same round file, cohort and unit ids twice: the codes differ (they come from a secret
    drawn from OS randomness), and none follows the old public formula for any number in the
    round file (seed included)."""
    settings = load_round("showcase")
    units = [f"{c.key}-r1" for c in demo_cohort().candidates]
    drawn = [assign_codes(round_paths("showcase", tmp_path / name), units) for name in ("a", "b")]
    first, second = ([e.code for e in d.codes] for d in drawn)
    assert first != second
    assert sum(a == b for a, b in zip(first, second, strict=True)) <= 1  # 1/31^4 chance each
    numbers = {int(n) for n in re.findall(r"\d+", round_settings_path("showcase").read_text())}
    assert settings.seed in numbers
    for record in drawn:
        for entry in record.codes:
            assert entry.scheme == "secret-hmac" and not entry.recomputable
            for number in numbers:
                for attempt in range(3):
                    assert entry.code != legacy_code(number, entry.unit, attempt)


def test_schema_1_codes_are_kept_and_flagged_recomputable(tmp_path: Path) -> None:
    paths = round_paths("r", tmp_path)
    paths.root.mkdir(parents=True)
    legacy = {"round_id": "r", "seed": 7, "scheme": "old", "codes": [
        {"unit": "a-r1", "code": legacy_code(7, "a-r1")}]}  # fmt: skip
    paths.legacy_codes.write_text(json.dumps(legacy))
    record = assign_codes(paths, ["a-r1", "b-r1"])
    assert record.code_of("a-r1") == legacy_code(7, "a-r1")  # handed out already: never redrawn
    assert [e.unit for e in record.recomputable] == ["a-r1"]
    assert record.codes[1].scheme == "secret-hmac" and record.migrated_from == "codes.json"
    assert read_record(paths.codes, CodesRecord).schema_version == 2
    assert paths.legacy_codes.exists()


COHORT = demo_cohort()
PATTERN = identity_pattern(identity_strings(COHORT))
CANDIDATE_STRINGS = [
    s
    for c in COHORT.candidates
    for s in (
        c.key,
        c.company,
        c.display_name,
        c.route,
        c.expected_canonical_slug,
        *c.route.split("/"),
        *c.expected_canonical_slug.split("/"),
    )
]


@pytest.mark.parametrize("name", sorted(set(CANDIDATE_STRINGS)))
def test_every_cohort_string_is_scrubbed(name: str) -> None:
    for text in (name, name.upper(), name.lower(), f"// written by {name}.", f"<p>{name}</p>"):
        cleaned, count = scrub(text, PATTERN)
        assert count >= 1 and not leak_scan_text(cleaned), (text, cleaned)


def leak_scan_text(text: str) -> list[str]:
    from scoring.anonymise import find_identities

    return [m.group(0) for m in find_identities(text, PATTERN)]


def test_starter_source_has_no_false_positives() -> None:
    for cohort in (demo_cohort(), load_cohort(BENCHMARK_DIR / "models.json")):
        pattern = identity_pattern(identity_strings(cohort))
        for path in sorted(load_task(DEFAULT_TASK).starter.rglob("*")):
            if (
                "node_modules" in path.parts
                or not path.is_file()
                or path.suffix not in (".ts", ".tsx", ".css", ".html", ".json", ".md")
            ):
                continue
            text = path.read_text(encoding="utf-8")
            assert scrub(text, pattern)[0] == text, path


def test_real_cohort_idioms() -> None:
    pattern = identity_pattern(identity_strings(load_cohort(BENCHMARK_DIR / "models.json")))
    text = '<meta charset="utf-8"> import.meta.env card__meta // Claude wrote this; meta-llama'
    cleaned, count = scrub(text, pattern)
    assert count == 2 and "<meta" in cleaned and "import.meta" in cleaned
    assert "Claude" not in cleaned and "llama" not in cleaned.lower()


def leaky_unit(tmp_path: Path) -> tuple[object, str]:
    ctx = make_round(tmp_path)
    candidate = COHORT.candidates[0]
    diff = (
        "diff --git a/src/App.tsx b/src/App.tsx\n"
        f"+// Built by {candidate.display_name} ({candidate.route}) for {candidate.company}\n"
        f"+const agent = '{candidate.key}'; // session ses_dd16cbb0cffeOqRJMA6omQr1PK\n"
        'diff --git a/.opencode/state.json b/.opencode/state.json\n+{"model": "x"}\n'
        "diff --git a/PROGRESS.md b/PROGRESS.md\n+- [x] done, cost $1.25 so far\n"
    )
    progress = (
        f"# Progress ({candidate.display_name.upper()})\n"
        "- [x] Build passes (`npm run build`), spent $1.25\n"
    )
    record = session(candidate.key, unit=f"{candidate.key}-r1", cost_usd=1.25)
    identity = record.identity.model_copy(update={"observed_providers": ["Acme Inference"]})
    record = record.model_copy(update={"identity": identity})
    diff += "+// served by Acme Inference\n"
    unit = make_unit(ctx, candidate.key, record, result(), progress=progress, diff=diff)
    return ctx, unit


def test_packet_contents_are_anonymous(tmp_path: Path) -> None:
    ctx, unit = leaky_unit(tmp_path)
    built = build_round_packets(ctx)  # type: ignore[arg-type]
    assert len(built) == 1
    packet = built[0]
    files = sorted(p.relative_to(packet).as_posix() for p in packet.rglob("*") if p.is_file())
    assert files == [
        "PROGRESS.md",
        "README.md",
        "changes.diff",
        "index.html",
        "review-sheet.csv",
        "screenshots/home-settled-360x800.png",
        "video.webm",
    ]
    everything = "\n".join((packet / f).read_text(errors="replace") for f in files)
    assert not leak_scan(packet, PATTERN)
    for forbidden in (unit, "opencode", "ses_", "$1.25", "1.25", ".opencode", "Acme Inference"):
        assert forbidden.lower() not in everything.lower(), forbidden
    assert "[redacted]" in (packet / "changes.diff").read_text()
    index = json.loads((packet.parent / "index.json").read_text())
    assert index["codes"] == [packet.name]
    assert set(index) == {"schema_version", "round_id", "codes", "packets"}
    sheet = (packet.parent / "review-sheet.csv").read_text()
    assert sheet == f"code,visual,code_quality,notes\n{packet.name},,,\n"


def test_packets_are_sorted_by_code_and_skip_unreviewable_units(tmp_path: Path) -> None:
    ctx = make_round(tmp_path)
    keys = [c.key for c in COHORT.candidates[:4]]
    for key in keys[:3]:
        make_unit(ctx, key, session(key, unit=f"{key}-r1"), result())
    make_unit(
        ctx, keys[3], session(keys[3], unit=f"{keys[3]}-r1", failure_class="provider_outage"), None
    )
    built = build_round_packets(ctx)
    assert [p.name for p in built] == sorted(p.name for p in built) and len(built) == 3
    codes = load_codes(ctx.paths)
    assert codes is not None and {e.unit for e in codes.codes} == {f"{k}-r1" for k in keys[:3]}


def test_a_harness_leak_fails_the_stage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import scoring.packets as packets

    ctx, _ = leaky_unit(tmp_path)
    name = COHORT.candidates[1].display_name
    monkeypatch.setattr(packets, "README", packets.README + f"\nCompare with {name}.\n")
    with pytest.raises(LeakError, match="identity string"):
        build_round_packets(ctx)  # type: ignore[arg-type]
    assert not list(ctx.paths.packets_dir.glob("C-*"))  # type: ignore[attr-defined]


SIGNED_FOOTER = "Built with Northwind Builder 1"


def signed_page_text(shot: str) -> PageTextRecord:
    page = PageText(
        screenshot=shot, page="home", state="settled", viewport="360x800", url="/",
        title="Atlas Rooms", visible_text=f"Rooms with a past\n{SIGNED_FOOTER}",
        alt_texts=["Logo"], meta=[MetaTag(name="generator", content="Northwind Builder 1")],
    )  # fmt: skip
    return PageTextRecord(pages=[page])


def test_a_self_signature_is_redacted_and_flagged_and_packets_are_still_built(
    tmp_path: Path,
) -> None:
    ctx = make_round(tmp_path)
    signer = "strong-builder"  # the demo cohort's "Northwind Builder 1" by "Northwind Labs"
    diff = (
        "diff --git a/src/components/SiteFooter.tsx b/src/components/SiteFooter.tsx\n"
        "+// Written by Northwind Builder 1, a Northwind Labs model\n"
        f"+<p>{SIGNED_FOOTER}</p>\n"
    )
    progress = "- [x] signed by Northwind Builder 1 (`npm run build`)\n"
    unit = make_unit(ctx, signer, evaluation=result(), diff=diff, progress=progress)
    write_record(ctx.paths.unit(unit).page_text, signed_page_text("screenshots/home-360.png"))
    other = make_unit(ctx, "idle", session("idle", unit="idle-r1"), result())
    built = build_round_packets(ctx)
    assert len(built) == 2
    codes = load_codes(ctx.paths)
    assert codes is not None
    packet = ctx.paths.packets_dir / codes.code_of(unit)
    text = (packet / "changes.diff").read_text()
    assert "Northwind" not in text and text.count("[redacted]") == 3
    assert "Northwind" not in (packet / "index.html").read_text()
    report = read_record(ctx.paths.packet_report, PacketReport)
    entry = next(p for p in report.packets if p.unit == unit)
    assert entry.flags == ["text_redacted", "media_shows_identity"]
    assert {(r.file, r.line) for r in entry.redactions} == {
        ("changes.diff", 2), ("changes.diff", 3), ("PROGRESS.md", 1)}  # fmt: skip
    assert entry.media_showing_identity == ["screenshots/home-settled-360x800.png", "video.webm"]
    assert {h.field for h in entry.page_hits} == {"visible_text", "meta"}
    clean = next(p for p in report.packets if p.unit == other)
    assert clean.flags == ["page_text_missing"]  # no page-text record: the operator looks
    assert not ctx.paths.packet_report.is_relative_to(ctx.paths.packets_dir)
    for path in ctx.paths.packets_dir.rglob("*"):
        if path.is_file():
            assert unit not in path.read_text(errors="replace"), path


def test_a_mask_never_frees_a_name() -> None:
    cleaned, found = redact("spent $5Claude; Northwind Builder 1 did it", PATTERN, money=True)
    assert cleaned == "spent [amount][redacted]; [redacted] did it"
    assert sorted(f for _, f in found) == ["Claude", "Northwind Builder 1"]
    assert not leak_scan_text(cleaned)


@pytest.mark.parametrize("cohort_file", ["models.json", "demo-cohort.json"])
def test_the_projects_own_packet_text_names_no_candidate(cohort_file: str) -> None:
    """The reviewer page, bundle page and README are harness text: a hit there would fail the
    stage for every packet of a round (e.g. a CSS class `meta` with the real cohort's Meta)."""
    from scoring.anonymise import find_identities
    from scoring.packets import README, rubric_text
    from scoring.review_page import render_bundle_page, render_page

    pattern = identity_pattern(identity_strings(load_cohort(BENCHMARK_DIR / cohort_file)))
    readme = README.format(code="C-AAAA", header="h", rubric=rubric_text(), missing="")
    for text in (
        render_page("C-AAAA", [], "video.webm", "", "", ["video"]),
        render_bundle_page([("01-C-AAAA", "C-AAAA")]),
        readme,
    ):
        assert [m.group(0) for m in find_identities(text, pattern)] == []
