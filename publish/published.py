"""Evidence files the site cites, published beside it with a readable viewer each.

Every source a number cites (`units/u/session.json#cost_usd`, `units/u/events.jsonl:23`,
`preflight/m/preflight.json`, a control's `result.json`, a build log) becomes a link. The file is
copied under `evidence/` in the site, byte for byte, and gets an HTML viewer (`<file>.html`,
declared UTF-8, one anchor per line, anchors for top-level JSON fields and `"id"` values), so it
reads correctly over HTTP and from `file://` alike. `events.jsonl:N` links to the unit's
transcript instead. Blind-review material (codes, packets) is never published.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

from markupsafe import Markup

VIEW_LIMIT = 400_000  # characters shown in a viewer; the raw file holds the rest
RAW_LIMIT = 3_000_000  # bytes: larger files are shown (in part) but not copied
SEALED = ("codes.json", "packets/")
MARKDOWN = (".md", ".markdown")
_TOP_KEY = re.compile(r'^  "([A-Za-z0-9_]+)":')
_ID_VALUE = re.compile(r'^\s*"id": "([^"]+)"')
_SOURCE = re.compile(r"^(?P<path>[^#]+?)(?::(?P<line>\d+))?(?:#(?P<frag>.+))?$")

VIEWER_CSS = """
:root { color-scheme: light dark; --fg: #1d232b; --bg: #ffffff; --muted: #4d5866;
  --line: #d5dbe2; --link: #0b57b0; }
@media (prefers-color-scheme: dark) { :root { --fg: #e3e7ec; --bg: #15191f; --muted: #aab4bf;
  --line: #3a4250; --link: #8ab8ff; } }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: var(--fg); background: var(--bg); }
header, main { max-width: 72rem; margin: 0 auto; padding: .8rem 1rem; }
header { border-bottom: 1px solid var(--line); }
a { color: var(--link); text-decoration: underline; }
h1 { font-size: 1.15rem; margin: .4rem 0; overflow-wrap: anywhere; }
p { color: var(--muted); margin: .3rem 0 .8rem; }
pre { font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; }
pre span:target { background: #fff2a8; color: #1d232b; }
"""


def _rel(target: str, start_dir: str) -> str:
    return os.path.relpath(target, start_dir or ".").replace(os.sep, "/")


@dataclass
class Published:
    """Publishes files below `evidence_dir` into `docs/evidence/` on first citation."""

    evidence_dir: Path
    round_id: str
    docs: Path
    transcripts: dict[str, str] = field(default_factory=dict)  # unit -> docs-relative page
    unsealed: bool = False  # review sheets may be published (codes are no longer sealed)
    label: str = ""  # what kind of round this is, on every viewer page as on every site page
    _done: dict[str, str | None] = field(default_factory=dict)
    _anchors: dict[str, set[str]] = field(default_factory=dict)  # viewer -> ids it has

    def viewer(self, rel: str) -> str | None:
        """Docs-relative path of the viewer of `rel` (relative to the evidence folder), or None
        when the file is absent or must not be published."""
        if rel in self._done:
            return self._done[rel]
        source = (self.evidence_dir / rel).resolve()
        allowed = source.is_relative_to(self.evidence_dir.resolve()) and source.is_file()
        self._done[rel] = self._publish(rel, source) if allowed and not self.sealed(rel) else None
        return self._done[rel]

    def sealed(self, rel: str) -> bool:
        """Blind-review material: codes and packets never, review sheets until the standing is
        final (they name codes)."""
        return any(mark in rel for mark in SEALED) or (
            "/reviews/" in f"/{rel}" and not self.unsealed
        )

    def round_file(self, rel: str) -> str | None:
        return self.viewer(f"{self.round_id}/{rel}")

    def raw(self, rel: str) -> str | None:
        """Docs-relative path of a round file copied as is (no viewer: e.g. events.jsonl, whose
        readable form is the transcript)."""
        source = (self.evidence_dir / self.round_id / rel).resolve()
        if not source.is_file() or source.stat().st_size > RAW_LIMIT:
            return None
        target = self.docs / "evidence" / self.round_id / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        return f"evidence/{self.round_id}/{rel}"

    def _publish(self, rel: str, source: Path) -> str:
        raw_rel = f"evidence/{rel}"
        if source.suffix.lower() in MARKDOWN:  # mkdocs would turn it into a page
            raw_rel += ".txt"
        size = source.stat().st_size
        raw_copied = size <= RAW_LIMIT
        if raw_copied:
            target = self.docs / raw_rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
        view_rel = f"evidence/{rel}.html"
        text = source.read_text(encoding="utf-8", errors="replace")
        (self.docs / view_rel).parent.mkdir(parents=True, exist_ok=True)
        raw_name = Path(raw_rel).name if raw_copied else None
        html = viewer_html(rel, text, size, raw_name, view_rel, self.label)
        (self.docs / view_rel).write_text(html, encoding="utf-8")
        self._anchors[view_rel] = set(re.findall(r' id="([^"]+)"', html))
        return view_rel

    def href(self, source: str, page_dir: str) -> str | None:
        """The link for a cited source (relative to the round folder), from a page in `page_dir`."""
        match = _SOURCE.match(source.strip())
        if match is None:
            return None
        path, line, frag = match["path"], match["line"], match["frag"]
        parts = path.split("/")
        if parts[-1] == "events.jsonl" and len(parts) == 3 and parts[0] == "units":
            page = self.transcripts.get(parts[1])
            if page is not None:
                return _rel(page, page_dir) + (f"#L{line}" if line else "")
        view = self.round_file(path)
        if view is None:
            return None
        anchor = f"L{line}" if line else (fragment_anchor(frag) if frag else "")
        if anchor not in self._anchors.get(view, set()):
            anchor = ""  # a field the file does not have: link the file itself
        return _rel(view, page_dir) + (f"#{anchor}" if anchor else "")

    def evidence_link(self, rel: str, page_dir: str = "") -> Markup:
        """A file relative to the evidence folder (e.g. a control's result.json) as a link."""
        view = self.viewer(rel)
        if view is None:
            return self._unlinked(rel, rel)
        href = escape(_rel(view, page_dir))
        return Markup(f'<a class="sb-cite" href="{href}"><code>{escape(rel)}</code></a>')

    def link(self, source: str, page_dir: str = "") -> Markup:
        """A cited source as a link (or, if it is sealed or not in the evidence, said so)."""
        href = self.href(source, page_dir)
        if href is None:
            match = _SOURCE.match(source.strip())
            path = match["path"] if match else source
            return self._unlinked(source, f"{self.round_id}/{path}")
        return Markup(f'<a class="sb-cite" href="{escape(href)}"><code>{escape(source)}</code></a>')

    def _unlinked(self, label: str, rel: str) -> Markup:
        """A source without a link: sealed review material says when it opens; anything else is
        missing from the evidence and says so."""
        if self.sealed(rel):
            return Markup(
                f'<span class="sb-cite sb-cite--sealed">{escape(label)} '
                "(sealed until the standing is final)</span>"
            )
        return Markup(
            f'<span class="sb-cite sb-cite--missing">{escape(label)} (not published)</span>'
        )


def fragment_anchor(frag: str) -> str:
    """`cost_usd` -> `k-cost_usd`; `checks[url-state]` -> `id-url-state`."""
    inner = re.search(r"\[([^\]]+)\]", frag)
    if inner:
        return f"id-{inner.group(1)}"
    head = re.split(r"[.\[]", frag, maxsplit=1)[0]
    return f"k-{head}"


def _lines(text: str) -> str:
    out: list[str] = []
    seen_ids: set[str] = set()
    for number, line in enumerate(text.split("\n"), start=1):
        anchors = ""
        key = _TOP_KEY.match(line)
        if key and key.group(1) not in seen_ids:
            seen_ids.add(key.group(1))
            anchors += f'<a id="k-{escape(key.group(1))}"></a>'
        value = _ID_VALUE.match(line)
        if value and f"id:{value.group(1)}" not in seen_ids:
            seen_ids.add(f"id:{value.group(1)}")
            anchors += f'<a id="id-{escape(value.group(1))}"></a>'
        out.append(f'{anchors}<span id="L{number}">{escape(line)}</span>')
    return "\n".join(out)


def viewer_html(
    rel: str, text: str, size: int, raw_name: str | None, view_rel: str, label: str = ""
) -> str:
    """A standalone, UTF-8 declared page showing one evidence file (`label`: the round's kind)."""
    depth = view_rel.count("/")
    home = "../" * depth
    shown = text[:VIEW_LIMIT]
    note = f"{size:,} bytes"
    if len(text) > VIEW_LIMIT:
        note += f"; the first {VIEW_LIMIT:,} characters are shown"
    raw = f' · <a href="{escape(raw_name)}">raw file</a>' if raw_name else " · too large to copy"
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(rel)} · siteos-bench evidence</title><style>{VIEWER_CSS}</style>"
        f'</head><body><header><a href="{home}index.html">siteos-bench results</a> · '
        f'<a href="{home}leaderboard.html">leaderboard</a>'
        + (f'<p class="kind">{escape(label)}</p>' if label else "")
        + "</header><main>"
        f"<h1>evidence/{escape(rel)}</h1><p>{note}{raw}</p>"
        f"<pre>{_lines(shown)}</pre></main></body></html>\n"
    )
