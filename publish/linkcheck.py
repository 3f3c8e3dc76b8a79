"""Check a built site: every local href/src resolves to a file, and no asset loads from a network.

`mkdocs build --strict` validates Markdown links only; raw HTML (`<video>`, tables, figures) is
checked here.
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

ASSET_ATTRS = {
    ("script", "src"),
    ("link", "href"),
    ("img", "src"),
    ("video", "src"),
    ("source", "src"),
    ("iframe", "src"),
    ("audio", "src"),
}
SKIP_SCHEMES = ("mailto:", "data:", "javascript:", "#", "blob:")


class _Refs(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.refs: list[tuple[str, str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.refs.append((tag, name, value))


def check_site(site_dir: Path) -> list[str]:
    """Problems found in the built site (empty when every reference is local and present)."""
    problems: list[str] = []
    for page in sorted(site_dir.rglob("*.html")):
        if page.name == "404.html" and page.parent == site_dir:
            continue  # served only by a web server, with root-absolute links by design
        parser = _Refs()
        parser.feed(page.read_text(encoding="utf-8"))
        rel_page = page.relative_to(site_dir)
        for tag, attr, value in parser.refs:
            if value.startswith(SKIP_SCHEMES):
                continue
            parts = urlsplit(value)
            if parts.scheme or value.startswith("//"):
                if (tag, attr) in ASSET_ATTRS:
                    problems.append(f"{rel_page}: <{tag} {attr}> loads from the network: {value}")
                continue
            if not parts.path:
                continue
            target = (page.parent / unquote(parts.path)).resolve()
            if not target.is_relative_to(site_dir.resolve()):
                problems.append(f"{rel_page}: <{tag} {attr}> leaves the site: {value}")
            elif not target.exists():
                problems.append(f"{rel_page}: <{tag} {attr}> points to a missing file: {value}")
    return problems
