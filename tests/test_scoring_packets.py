"""Candidate codes and blind packets: frozen codes, anonymisation and the leak scan."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scoring_support import demo_cohort, make_round, make_unit, result, session

from records.inputs import load_cohort
from records.io import RecordError
from records.layout import BENCHMARK_DIR, STARTER_DIR
from scoring.anonymise import (
    LeakError,
    identity_pattern,
    identity_strings,
    leak_scan,
    scrub,
)
from scoring.codes import CODE_LENGTH, assign_codes, draw_code, load_codes
from scoring.packets import build_round_packets


def test_codes_are_drawn_once_and_appended(tmp_path: Path) -> None:
    path = tmp_path / "codes.json"
    first = assign_codes(path, "r", 42, ["b-r1", "a-r1"])
    assert [e.unit for e in first.codes] == ["a-r1", "b-r1"]
    assert all(e.code.startswith("C-") and len(e.code) == 2 + CODE_LENGTH for e in first.codes)
    assert first.code_of("a-r1") == draw_code(42, "a-r1")
    second = assign_codes(path, "r", 42, ["c-r1", "a-r1"])
    assert second.codes[:2] == first.codes and second.codes[2].unit == "c-r1"
    assert load_codes(path) == second
    with pytest.raises(RecordError, match="never redrawn"):
        assign_codes(path, "r", 43, ["a-r1"])


def test_code_collisions_take_the_next_attempt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import scoring.codes as codes

    monkeypatch.setattr(codes, "draw_code", lambda seed, unit, attempt=0: f"C-{attempt:04d}")
    record = codes.assign_codes(tmp_path / "codes.json", "r", 1, ["a", "b"])
    assert [e.code for e in record.codes] == ["C-0000", "C-0001"]


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
        for path in sorted(STARTER_DIR.rglob("*")):
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
    assert index["codes"] == [packet.name] and set(index) == {"round_id", "codes", "packets"}
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
    codes = load_codes(ctx.paths.codes)
    assert codes is not None and {e.unit for e in codes.codes} == {f"{k}-r1" for k in keys[:3]}


def test_leak_scan_fails_the_stage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import scoring.packets as packets

    ctx, _ = leaky_unit(tmp_path)
    monkeypatch.setattr(packets, "scrub", lambda text, pattern, money=False: (text, 0))
    with pytest.raises(LeakError, match="identity string"):
        build_round_packets(ctx)  # type: ignore[arg-type]
    assert not list(ctx.paths.packets_dir.glob("C-*"))  # type: ignore[attr-defined]
