"""Run the browser phase's page-text capture on a small page (child process in a loopback-only
network namespace): `python tests/page_text_browser.py OUT_JSON`."""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

from evaluator.browser import CHROMIUM_ARGS
from evaluator.browser_phase import page_text
from records.evidence.evaluation import PageTextRecord, Screenshot
from records.io import write_record
from records.tools import CHROMIUM

PAGE = """<!doctype html><html><head><title>Atlas Rooms · Inkwell</title>
<meta name="generator" content="Inkwell Signer 1"><meta charset="utf-8"></head>
<body><main><h1>Rooms</h1><img alt="Photo by Inkwell Labs" src="data:,">
<button aria-label="Open menu (Inkwell)">≡</button><input placeholder="Search venues">
<p title="made by a model">Hover me</p><p hidden>Hidden Inkwell text</p></main>
<footer>Built with Inkwell Signer 1</footer></body></html>"""


def main(argv: list[str]) -> int:
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.set_content(PAGE)
        shot = Screenshot(page="home", state="settled", viewport="360x800",
                          path="screenshots/home--settled--360x800.png", url="/")  # fmt: skip
        text = page_text(page, shot)
        browser.close()
    write_record(Path(argv[0]), PageTextRecord(pages=[text] if text else []))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
