"""The reviewer page of a packet: one static `index.html` that works from file:// with no network.

Template, style and script are in `scoring/reviewer_page/`; the packet's own data (screenshot
list, the anonymised diff, PROGRESS.md, the rubric from records/rubric.py) is embedded as JSON, so
the page needs no request beyond its own folder (screenshots and video.webm are relative files).
The page renders packet text only through textContent, never as HTML.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from records.rubric import REVIEW_CRITERIA, REVIEW_RANGES
from scoring.reviews import SHEET_HEADER

ASSETS = Path(__file__).with_name("reviewer_page")
BUNDLE_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; \
script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'none'; base-uri 'none'">
<title>Blind review: {count} packets</title>
<style>body{{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}}
textarea{{width:100%;font-family:ui-monospace,monospace}}</style></head>
<body><h1>Your blind review packets</h1>
<p>Review them in this order. Each packet's page exports your row; this page collects the rows
you exported into your sheet.</p>
<ol id="packets">{items}</ol>
<p><button type="button" id="collect">Collect my sheet</button></p>
<p><label for="sheet">Your sheet: save it as <code>reviews/&lt;your id&gt;.csv</code></label>
<textarea id="sheet" rows="8" readonly></textarea></p>
<script type="application/json" id="bundle-data">{data}</script>
<script>
(function () {{
  var data = JSON.parse(document.getElementById('bundle-data').textContent);
  document.getElementById('collect').onclick = function () {{
    var lines = [data.header.join(',')];
    data.codes.forEach(function (code) {{
      var row = null;
      try {{ row = localStorage.getItem('siteos-review:' + code + ':row'); }} catch (e) {{}}
      lines.push(row || code + ',,,');
    }});
    document.getElementById('sheet').value = lines.join('\\n') + '\\n';
  }};
}})();
</script></body></html>
"""


@dataclass(frozen=True)
class PageShot:
    src: str
    page: str
    state: str
    viewport: str
    width: int


def viewport_width(viewport: str) -> int:
    head = viewport.lower().split("x", 1)[0]
    return int(head) if head.isdigit() else 0


def _embed(data: object) -> str:
    """JSON safe inside a <script> element (no `</script>`, no `<!--`)."""
    return re.sub(r"[<>&]", lambda m: f"\\u{ord(m.group(0)):04x}", json.dumps(data, indent=1))


def render_page(
    code: str,
    shots: list[PageShot],
    video: str | None,
    diff: str | None,
    progress: str | None,
    missing: list[str],
) -> str:
    data = {
        "code": code,
        "shots": [asdict(s) for s in shots],
        "video": video,
        "diff": diff,
        "progress": progress,
        "missing": missing,
        "rubric": [asdict(c) for c in REVIEW_CRITERIA],
        "ranges": REVIEW_RANGES,
        "header": list(SHEET_HEADER),
    }
    page = (ASSETS / "page.html").read_text(encoding="utf-8")
    for key, value in (
        ("style", (ASSETS / "page.css").read_text(encoding="utf-8")),
        ("script", (ASSETS / "page.js").read_text(encoding="utf-8")),
        ("data", _embed(data)),
        ("code", code),
    ):
        page = page.replace("{{" + key + "}}", value)
    return page


def render_bundle_page(entries: list[tuple[str, str]]) -> str:
    """The bundle's index: (folder, code) in the reviewer's order."""
    items = "".join(
        f'<li><a href="{folder}/index.html">{code}</a></li>' for folder, code in entries
    )
    data = {"codes": [code for _, code in entries], "header": list(SHEET_HEADER)}
    return BUNDLE_PAGE.format(count=len(entries), items=items, data=_embed(data))
