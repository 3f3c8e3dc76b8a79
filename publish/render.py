"""Render the results site of one round from `evidence/` and build it with `mkdocs build --strict`.

`render_site(round_id)` writes the generated Markdown docs to build/site-docs (hand-written pages
from site/docs, vendored assets from site/assets, pages rendered from site/templates, the units'
media, the chart and the downloads), then builds build/site. Both are written into temporary
folders first and swapped in at the end, so an interrupted build never leaves a half site.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup, escape

from publish.charts import score_cost_svg
from publish.downloads import leaderboard_csv, provisional_json
from publish.linkcheck import check_site
from publish.sources import RoundEvidence, UnitEvidence, load_round_evidence
from publish.views import (
    DIMENSIONS,
    SHORT_LABELS,
    Badge,
    Row,
    cutoff,
    fmt_cost,
    fmt_duration,
    fmt_int,
    fmt_points,
    leaderboard_rows,
    parse_time,
)
from records.io import RecordError, atomic_write_text
from records.layout import BUILD_DIR, EVIDENCE_DIR, REPO_ROOT

SITE_SRC = REPO_ROOT / "site"
MKDOCS_YML = REPO_ROOT / "mkdocs.yml"
VIEWPORT_ORDER = (360, 768, 1440)


class SiteBuildError(RuntimeError):
    """mkdocs refused the generated docs, or the built site references a missing/remote file."""


@dataclass
class Shot:
    src: str  # relative to the unit page
    caption: str


@dataclass
class TimelineEntry:
    command: str
    exit_code: int | None
    status: str
    offset: str
    output: str
    truncated: bool


@dataclass
class UnitPage:
    row: Row
    evidence: UnitEvidence
    shots: dict[str, list[Shot]] = field(default_factory=dict)
    video: str | None = None
    diff: str | None = None
    progress: str | None = None
    timeline: list[TimelineEntry] = field(default_factory=list)


def _badges_html(items: list[Badge]) -> Markup:
    return Markup(" ").join(
        Markup('<span class="sb-badge sb-badge--{}" title="{}">{}</span>').format(
            b.tone, b.title, b.label
        )
        for b in items
    )


def _pre(text: str) -> Markup:
    """Evidence text for <pre>: escaped, newlines as entities so Markdown never splits it."""
    return Markup(str(escape(text)).replace("\n", "&#10;"))


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|])")


def _md(value: object) -> Markup:
    """Free text (agent, gateway or reviewer words) for Markdown: one line, nothing interpreted."""
    text = " ".join(str(value).split())
    return Markup(str(escape(_MD_SPECIAL.sub(r"\\\1", text))))


def _lines(items: list[str]) -> Markup:
    return Markup("<br>").join(escape(item) for item in items)


def _show(value: object) -> str:
    return (
        value if isinstance(value, str) else json.dumps(value, sort_keys=True, ensure_ascii=False)
    )


def environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(SITE_SRC / "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(
        duration=fmt_duration,
        cost=fmt_cost,
        points=fmt_points,
        int=fmt_int,
        badges=_badges_html,
        pre=_pre,
        md=_md,
        show=_show,
        lines=_lines,
    )
    return env


def _evidence_file(base: Path, rel: str, owner: Path) -> Path:
    """A file a record lists, which must exist inside `base`."""
    path = (base / rel).resolve()
    if not path.is_relative_to(base.resolve()):
        raise RecordError(f"{owner}: listed path {rel!r} leaves {base}")
    if not path.is_file():
        raise RecordError(f"{owner}: lists {rel!r} but {path} does not exist")
    return path


def _copy(source: Path, docs: Path, rel: str) -> str:
    target = docs / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    return rel


def _viewport_width(viewport: str) -> int:
    head = viewport.lower().split("x", 1)[0]
    return int(head) if head.isdigit() else 0


def _timeline(unit: UnitEvidence) -> list[TimelineEntry]:
    start = parse_time(unit.session.started_at) if unit.session else None
    stamps = [c.timestamp for c in unit.commands if c.timestamp is not None]
    origin = (
        start.timestamp()
        if start
        else (min(stamps) / (1000 if min(stamps) > 1e11 else 1) if stamps else None)
    )
    entries = []
    for command in unit.commands:
        offset = "—"
        if command.timestamp is not None and origin is not None:
            seconds = command.timestamp / (1000 if command.timestamp > 1e11 else 1)
            offset = "+" + fmt_duration(max(0.0, seconds - origin))
        entries.append(
            TimelineEntry(
                command.command,
                command.exit_code,
                command.status,
                offset,
                command.output,
                command.output_truncated,
            )
        )
    return entries


def unit_page(row: Row, unit: UnitEvidence, docs: Path) -> UnitPage:
    """Copy a unit's media into the docs and describe its page."""
    page = UnitPage(row=row, evidence=unit, timeline=_timeline(unit))
    media = f"media/{unit.unit}"
    result = unit.result
    if result is not None:
        base, owner = unit.paths.evaluation, unit.paths.result
        ordered = sorted(
            result.screenshots, key=lambda s: (_viewport_width(s.viewport), s.page, s.state)
        )
        for shot in ordered:
            rel = _copy(_evidence_file(base, shot.path, owner), docs, f"{media}/{shot.path}")
            width = _viewport_width(shot.viewport)
            label = f"{width} px" if width else shot.viewport
            page.shots.setdefault(label, []).append(
                Shot(f"../{rel}", f"{shot.page} · {shot.state} · {shot.viewport}")
            )
        if result.video:
            page.video = "../" + _copy(
                _evidence_file(base, result.video, owner), docs, f"{media}/{result.video}"
            )
    if unit.paths.diff.is_file():
        page.diff = "../" + _copy(unit.paths.diff, docs, f"{media}/worktree.diff")
    if unit.paths.progress.is_file():
        page.progress = "../" + _copy(unit.paths.progress, docs, f"{media}/PROGRESS.txt")
    return page


def _context(evidence: RoundEvidence, rows: list[Row]) -> dict[str, Any]:
    advancing = [r for r in rows if r.group == "scored" and r.advances]
    return {
        "cut_unit": advancing[-1].unit if advancing else None,
        "round": evidence,
        "settings": evidence.settings,
        "rows": rows,
        "scored": [r for r in rows if r.group == "scored"],
        "invalid": [r for r in rows if r.group == "invalid"],
        "apart": [r for r in rows if r.group == "apart"],
        "scoring_ran": evidence.leaderboard is not None,
        "board": evidence.leaderboard,
        "cutoff": cutoff(evidence),
        "dimensions": DIMENSIONS,
        "short": SHORT_LABELS,
        "cohort": evidence.cohort,
        "preflight": evidence.preflight,
    }


def render_docs(evidence: RoundEvidence, docs: Path) -> None:
    """Write the complete MkDocs docs folder for one round into `docs` (an empty folder)."""
    shutil.copytree(SITE_SRC / "docs", docs, dirs_exist_ok=True)
    shutil.copytree(SITE_SRC / "assets", docs / "assets", dirs_exist_ok=True)
    env = environment()
    rows = leaderboard_rows(evidence)
    context = _context(evidence, rows)
    by_unit = {r.unit: r for r in rows}
    pages = [
        unit_page(by_unit[name], unit, docs)
        for name, unit in evidence.units.items()
        if name in by_unit
    ]
    context["pages"] = pages
    for template, target in (
        ("leaderboard.md.j2", "leaderboard.md"),
        ("cost.md.j2", "cost.md"),
        ("cohort.md.j2", "cohort.md"),
        ("calibration.md.j2", "calibration.md"),
        ("units.md.j2", "units/index.md"),
        ("downloads.md.j2", "downloads.md"),
    ):
        atomic_write_text(docs / target, env.get_template(template).render(context))
    unit_template = env.get_template("unit.md.j2")
    for page in pages:
        atomic_write_text(
            docs / "units" / f"{page.row.unit}.md",
            unit_template.render(context, page=page, row=page.row),
        )
    atomic_write_text(
        docs / "charts" / "score-vs-cost.svg", score_cost_svg(rows, context["cutoff"])
    )
    atomic_write_text(docs / "downloads" / "leaderboard.csv", leaderboard_csv(rows))
    if evidence.leaderboard is not None:  # the scoring stage's file, byte for byte
        _copy(evidence.paths.leaderboard, docs, "downloads/leaderboard.json")
    else:
        atomic_write_text(docs / "downloads" / "leaderboard.json", provisional_json(rows))


@contextmanager
def _build_env(epoch: int) -> Iterator[list[str]]:
    """A fixed build date (reproducible sitemap); collects the warnings mkdocs logs."""
    warnings: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            warnings.append(record.getMessage())

    handler = Collect(level=logging.WARNING)
    logger = logging.getLogger("mkdocs")
    previous = os.environ.get("SOURCE_DATE_EPOCH")
    os.environ["SOURCE_DATE_EPOCH"] = str(epoch)
    logger.addHandler(handler)
    try:
        yield warnings
    finally:
        logger.removeHandler(handler)
        if previous is None:
            os.environ.pop("SOURCE_DATE_EPOCH", None)
        else:
            os.environ["SOURCE_DATE_EPOCH"] = previous


def mkdocs_build(docs: Path, site: Path, epoch: int = 0) -> None:
    """`mkdocs build --strict` of `docs` into `site`, in-process, with mkdocs.yml's settings."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    with _build_env(epoch) as warnings:
        config = load_config(str(MKDOCS_YML), docs_dir=str(docs), site_dir=str(site), strict=True)
        try:
            build(config)
        except MkDocsException as exc:
            detail = "\n  ".join(warnings)
            raise SiteBuildError(f"mkdocs build --strict failed: {exc}\n  {detail}") from exc
    problems = check_site(site)
    if problems:
        raise SiteBuildError(
            "built site has broken or remote references:\n  " + "\n  ".join(problems)
        )


def _swap(new: Path, final: Path) -> None:
    old = final.with_name(f".{final.name}.old")
    shutil.rmtree(old, ignore_errors=True)
    if final.exists():
        final.rename(old)
    new.rename(final)
    shutil.rmtree(old, ignore_errors=True)


def render_site(
    round_id: str, evidence_dir: Path = EVIDENCE_DIR, build_dir: Path = BUILD_DIR
) -> Path:
    """Render and strictly build the site of `round_id`; return the built site folder."""
    evidence = load_round_evidence(round_id, evidence_dir)
    build_dir.mkdir(parents=True, exist_ok=True)
    docs_tmp, site_tmp = build_dir / ".site-docs.tmp", build_dir / ".site.tmp"
    for tmp in (docs_tmp, site_tmp):
        shutil.rmtree(tmp, ignore_errors=True)
    docs_tmp.mkdir()
    render_docs(evidence, docs_tmp)
    frozen = parse_time(evidence.round_record.frozen_at) if evidence.round_record else None
    mkdocs_build(docs_tmp, site_tmp, int(frozen.timestamp()) if isinstance(frozen, datetime) else 0)
    _swap(docs_tmp, build_dir / "site-docs")
    _swap(site_tmp, build_dir / "site")
    return build_dir / "site"


def main(argv: list[str]) -> int:
    round_id = argv[0] if argv else os.environ.get("SITEOS_ROUND", "demo")
    site = render_site(round_id)
    print(f"site built: {site / 'index.html'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
