"""Finishing touches on the built site: a 404 page that works from `file://`, no empty sitemap,
none of the search plugin's language scripts an English site never loads, and no source maps."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

UNUSED = (
    "sitemap.xml",  # empty without a site_url; nothing would read it
    "sitemap.xml.gz",
    "assets/javascripts/lunr",  # stemmers/segmenters for other languages (Thai, Japanese, ...)
)
_ROOT_ABSOLUTE = re.compile(r'((?:href|src)=")/(?!/)')


def finish_site(site: Path) -> None:
    for source_map in site.rglob("*.map"):  # the theme's source maps: for its developers
        source_map.unlink()
    for rel in UNUSED:
        target = site / rel
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()
    page = site / "404.html"
    if page.exists():
        html = page.read_text(encoding="utf-8")
        page.write_text(_ROOT_ABSOLUTE.sub(r"\1./", html), encoding="utf-8")
