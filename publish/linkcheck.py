"""Check a built site: every local href/src resolves to a file (and every `#anchor` to an element
of that page), and no asset loads from a network.

`mkdocs build --strict` validates Markdown links only; raw HTML (`<video>`, tables, figures, the
evidence viewers) is checked here.
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
SKIP_SCHEMES = ("mailto:", "data:", "javascript:", "blob:")


class _Refs(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.refs: list[tuple[str, str, str]] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.refs.append((tag, name, value))
            if name in ("id", "name") and value:
                self.ids.add(value)


def _parse(page: Path, cache: dict[Path, _Refs]) -> _Refs:
    if page not in cache:
        parser = _Refs()
        parser.feed(page.read_text(encoding="utf-8", errors="replace"))
        cache[page] = parser
    return cache[page]


def check_site(site_dir: Path) -> list[str]:
    """Problems found in the built site (empty when every reference is local and present)."""
    problems: list[str] = []
    root = site_dir.resolve()
    cache: dict[Path, _Refs] = {}
    for page in sorted(root.rglob("*.html")):
        rel_page = page.relative_to(root)
        for tag, attr, value in _parse(page, cache).refs:
            if value.startswith(SKIP_SCHEMES):
                continue
            parts = urlsplit(value)
            if parts.scheme or value.startswith("//"):
                if (tag, attr) in ASSET_ATTRS:
                    problems.append(f"{rel_page}: <{tag} {attr}> loads from the network: {value}")
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if not target.is_relative_to(root):
                problems.append(f"{rel_page}: <{tag} {attr}> leaves the site: {value}")
            elif not target.exists():
                problems.append(f"{rel_page}: <{tag} {attr}> points to a missing file: {value}")
            elif (
                parts.fragment
                and target.suffix == ".html"
                and unquote(parts.fragment) not in _parse(target, cache).ids
            ):
                problems.append(f"{rel_page}: <{tag} {attr}> names a missing anchor: {value}")
    return problems
