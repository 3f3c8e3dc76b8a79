"""Read small hostile pages the way the checks read text (`evaluator.browser.reader_text`), beside
Chromium's innerText: `python tests/reader_text_browser.py OUT_JSON` (child process in a
loopback-only network namespace). Each case is one `<section id=...>`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

from evaluator.browser import CHROMIUM_ARGS, reader_text
from records.tools import CHROMIUM

LONG = "A former confraternity hall with four tall arched windows and a floor of worn tiles. " * 4

CASES = {
    "drop-cap": f'<p class="drop">{LONG}</p>',
    "first-line": '<p class="first-line">A former hall, read as written.</p>',
    "uppercase": '<h2 class="upper">Type</h2><p class="cap">rooftop terrace</p>',
    "hyphens": '<p class="narrow">Extra&shy;ordinarily\u200bwide windows, a con\u00adfraternity '
    "hall.</p>",
    "pseudo": '<p class="deco">Loft</p>',
    "blocks": "<div><p>one</p><p>two</p></div><span>a</span><span>b</span>x<br>y",
    "flex": '<div style="display:flex"><span>Type</span><span>Loft</span></div>',
    "hidden": '<p>kept</p><p style="display:none">gone1</p><p style="visibility:hidden">gone2'
    '</p><p hidden>gone3</p><p aria-hidden="true">gone4</p><details><summary>sum</summary>'
    'gone5</details><p style="position:absolute;left:-9999px">gone6</p>'
    '<div style="visibility:hidden"><span style="visibility:visible">back</span></div>',
    "ellipsis": '<p style="width:80px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis">'
    "The Old Cork and Sardine Cannery</p>",
    "line-clamp": '<p style="width:200px;display:-webkit-box;-webkit-line-clamp:2;'
    f'-webkit-box-orient:vertical;overflow:hidden">{LONG}</p>',
    "max-height": f'<div style="max-height:0;overflow:hidden"><p>{LONG}</p></div>',
    "sr-only": '<span style="position:absolute;width:1px;height:1px;overflow:hidden;'
    'clip:rect(0 0 0 0);white-space:nowrap">Visually hidden label</span>',
    "tight-card": '<div style="overflow:hidden;border-radius:8px"><h2 style="margin:0;'
    'line-height:0.9;font-size:40px">Gjy Quintal</h2></div>',
    "escapes": '<div style="overflow:hidden;height:0"><p style="position:absolute;top:700px;'
    'margin:0">escaped absolute</p><p style="position:fixed;top:5px;right:5px;margin:0">fixed '
    "note</p></div>",
    "held": '<div style="overflow:hidden;height:0;position:relative"><p style="position:absolute;'
    'top:50px">held absolute</p></div>',
    "scroller": '<div style="height:40px;overflow:auto"><p>first</p><p>second</p><p>third</p>'
    "<p>fourth</p></div>",
}

STYLE = """<style>
.drop::first-letter { float: left; font-size: 3em; line-height: 1; margin-right: 4px; }
.first-line::first-line { text-transform: uppercase; letter-spacing: 2px; }
.upper { text-transform: uppercase; } .cap { text-transform: capitalize; }
.narrow { width: 90px; hyphens: auto; }
.deco::before { content: "→ "; } .deco::after { content: " ★"; }
</style>"""


def main(argv: list[str]) -> int:
    body = "".join(f'<section id="{k}">{v}</section>' for k, v in CASES.items())
    result: dict[str, dict[str, str]] = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1000, "height": 800})
        page.set_content(f'<!doctype html><html lang="en"><head>{STYLE}</head><body><main>'
                         f"{body}</main></body></html>")  # fmt: skip
        for case in CASES:
            section = page.locator(f"#{case}")
            result[case] = {
                "inner": " ".join(section.inner_text().split()),
                "reader": reader_text(section),
                "clip": reader_text(section, clip=True),
            }
        result["page"] = {"reader": reader_text(page, "#blocks"), "inner": "", "clip": ""}
        browser.close()
    Path(argv[0]).write_text(json.dumps(result, indent=1, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
