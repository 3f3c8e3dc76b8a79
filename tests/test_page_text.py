"""The evaluator records what each screenshot's page says (visible text, title, alt, aria-label,
title and placeholder texts, meta tags), and the packet stage finds a signature in it."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser_support import run_driver
from scoring_support import demo_cohort

from records.evidence.evaluation import PageTextRecord
from records.io import read_record
from scoring.anonymise import identity_pattern, identity_strings
from scoring.page_scan import page_hits

pytestmark = [pytest.mark.browser]
DRIVER = Path(__file__).with_name("page_text_browser.py")


def test_page_text_is_captured_and_scanned(tmp_path: Path) -> None:
    out = tmp_path / "page-text.json"
    run_driver(DRIVER, str(out))
    [page] = read_record(out, PageTextRecord).pages
    assert page.title == "Atlas Rooms · Inkwell"
    assert "Built with Inkwell Signer 1" in page.visible_text
    assert "Hidden Inkwell text" not in page.visible_text  # what the screenshot can show
    assert page.alt_texts == ["Photo by Inkwell Labs"]
    assert page.aria_labels == ["Open menu (Inkwell)"]
    assert page.placeholders == ["Search venues"] and page.title_attributes == ["made by a model"]
    assert ("generator", "Inkwell Signer 1") in [(m.name, m.content) for m in page.meta]
    pattern = identity_pattern(identity_strings(demo_cohort()))
    names = {page.screenshot: "screenshots/home-settled-360x800.png"}
    hits = page_hits(read_record(out, PageTextRecord), names, pattern)
    assert {h.field for h in hits} == {"title", "visible_text", "alt", "aria_label", "meta"}
    assert {h.screenshot for h in hits} == {"screenshots/home-settled-360x800.png"}
