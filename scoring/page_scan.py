"""Identity in the rendered app: scan the DOM text the evaluator recorded beside each screenshot.

A screenshot (or the interaction video, which walks the same pages) that shows a name cannot be
redacted; the packet stage flags it from the text of the page it was taken from and lists it for
the round's operator, who decides (`private/packet-report.json`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from records.evidence.blind import PageField, PageHit
from records.evidence.evaluation import PageText, PageTextRecord
from records.io import RecordError, read_record
from scoring.anonymise import find_identities


def _fields(page: PageText) -> Iterator[tuple[PageField, str]]:
    yield "title", page.title
    yield "visible_text", page.visible_text
    yield from (("alt", t) for t in page.alt_texts)
    yield from (("aria_label", t) for t in page.aria_labels)
    yield from (("title_attribute", t) for t in page.title_attributes)
    yield from (("placeholder", t) for t in page.placeholders)
    yield from (("meta", m.content) for m in page.meta)


def load_page_text(path: Path) -> PageTextRecord | None:
    """The evaluator's record, or None when this evaluation predates it (or it is unreadable)."""
    if not path.is_file():
        return None
    try:
        return read_record(path, PageTextRecord)
    except RecordError:
        return None


def page_hits(
    record: PageTextRecord, packet_names: dict[str, str], pattern: re.Pattern[str]
) -> list[PageHit]:
    """Identity strings on each page; `packet_names` maps the evaluator's screenshot path to the
    packet's (pages without a screenshot in the packet are still reported, under their path)."""
    hits: list[PageHit] = []
    for page in record.pages:
        shot = packet_names.get(page.screenshot, page.screenshot)
        seen: set[tuple[str, str]] = set()
        for field, text in _fields(page):
            for match in find_identities(text, pattern):
                key = (field, match.group(0).lower())
                if key not in seen:
                    seen.add(key)
                    hits.append(
                        PageHit(screenshot=shot, url=page.url, field=field, found=match.group(0))
                    )
    return hits
