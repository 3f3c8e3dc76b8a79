"""Render the results site of one round from `evidence/` and build it with `mkdocs build --strict`.

`render_site(rnd)` writes the generated Markdown docs to build/site-docs (hand-written pages
from site/docs, assets from site/assets, pages rendered from site/templates, media stored once by
content hash, the cited evidence files with their viewers, the chart and the downloads), then
builds build/site. Both are written into temporary folders first and swapped in at the end, so an
interrupted build never leaves a half site.
"""

from __future__ import annotations

import argparse
import errno
import json
import logging
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup, escape

from publish.agents import agents_view, cost_interval, signed, signed_cost
from publish.banner import round_banner, round_facts, round_label
from publish.charts import frontier, plotted, score_cost_svg
from publish.downloads import leaderboard_csv, provisional_json
from publish.linkcheck import check_site
from publish.media import MediaStore
from publish.model_history import model_histories
from publish.postbuild import finish_site
from publish.published import Published
from publish.rounds import load_rounds
from publish.sources import RoundEvidence, UnitEvidence, load_round_evidence
from publish.trajectory import code_html, folds, tool_view
from publish.views import (
    ACHIEVABLE_WITHOUT_REVIEW,
    DIMENSIONS,
    HARNESS_MAX,
    SHORT_LABELS,
    Badge,
    Row,
    agent_label,
    cutoff,
    distinct,
    fmt_cost,
    fmt_duration,
    fmt_int,
    fmt_points,
    leaderboard_rows,
    parse_time,
    prose,
)
from records.evidence.agent import CommandRun
from records.evidence.gateway import ExchangeRecord, read_exchanges
from records.evidence.round import PreflightRecord
from records.inputs import Candidate
from records.io import RecordError, atomic_write_text
from records.layout import BUILD_DIR, EVIDENCE_DIR, REPO_ROOT
from records.round import Round
from records.rubric import (
    GATE_CAP,
    MAX_AUTOMATED,
    MAX_TOTAL,
    REVIEW_MAX,
    REVIEW_RANGES,
    TIE_RULE,
)
from records.unit_ids import entrant_key

SITE_SRC = REPO_ROOT / "site"
MKDOCS_YML = REPO_ROOT / "mkdocs.yml"
OUTPUT_CAP = 20_000  # characters of one tool output kept in the transcript
AGENTS_PAGE = "agents.md"
"""An intervention round's agents compared: written only for such a round, and put in the nav
(after the leaderboard) by `mkdocs_build` when the docs hold it; mkdocs.yml's nav is the rest."""
AGENTS_NAV = {"Agents compared": AGENTS_PAGE}


class SiteBuildError(RuntimeError):
    """mkdocs refused the generated docs, or the built site references a missing/remote file."""


@dataclass
class Shot:
    thumb: str  # relative to the unit page
    full: str
    caption: str
    page: str
    state: str
    viewport: str
    url: str


@dataclass
class CheckCell:
    """One check or gate of one unit, for the matrix and the strip on the unit page."""

    id: str
    kind: str  # check | gate
    state: str  # passed | failed | not-run
    points: str
    title: str


@dataclass
class UnitPage:
    row: Row
    evidence: UnitEvidence
    shots: dict[str, list[Shot]] = field(default_factory=dict)
    video: str | None = None
    poster: str | None = None
    files: list[tuple[str, str]] = field(default_factory=list)
    cells: list[CheckCell] = field(default_factory=list)
    check_shots: dict[str, Shot] = field(default_factory=dict)
    exchanges: list[ExchangeRecord] = field(default_factory=list)
    origin_ms: int | None = None
    step_logs: dict[str, str] = field(default_factory=dict)
    prev: Row | None = None
    next: Row | None = None
    media_withheld: str = ""  # why no screenshot or video is shown (a sealed round)

    @property
    def transcript(self) -> str:
        return f"{self.row.unit}-transcript.md"

    @property
    def commands(self) -> list[CommandRun]:
        trace = self.evidence.trace
        return trace.commands if trace is not None else []


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
_CODE_SPAN = re.compile(r"`([^`]+)`")


def _md(value: object) -> Markup:
    """Free text (agent, gateway or reviewer words) for Markdown: one line, nothing interpreted."""
    text = " ".join(prose(value).split())
    return Markup(str(escape(_MD_SPECIAL.sub(r"\\\1", text))))


def _text(value: object) -> Markup:
    """Free text for raw HTML: escaped, Python reprs made plain, `code` spans kept as code."""
    escaped = str(escape(" ".join(prose(value).split())))
    return Markup(_CODE_SPAN.sub(r"<code>\1</code>", escaped))


def _lines(items: list[str]) -> Markup:
    return Markup("<br>").join(_text(item) for item in items)


def _offset(stamp_ms: int | None, origin_ms: int | None) -> str:
    if stamp_ms is None or origin_ms is None:
        return "—"
    return "+" + fmt_duration(max(0, stamp_ms - origin_ms) / 1000)


def _cap(text: str) -> str:
    if len(text) <= OUTPUT_CAP:
        return text
    return text[:OUTPUT_CAP] + f"\n… {len(text) - OUTPUT_CAP:,} more characters, cut"


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
        text=_text,
        lines=_lines,
        fold=folds,
        cap=_cap,
        distinct=distinct,
        signed=signed,
        signed_cost=signed_cost,
        cost_interval=cost_interval,
        agent=agent_label,
    )
    env.globals.update(offset=_offset, tool_view=tool_view, code=code_html)
    return env


def _evidence_file(base: Path, rel: str, owner: Path) -> Path | None:
    """A file a record lists inside `base`; None when it is gone (the leaderboard names it:
    evidence missing, and the unit's page shows what is left)."""
    path = (base / rel).resolve()
    if not path.is_relative_to(base.resolve()):
        raise RecordError(f"{owner}: listed path {rel!r} leaves {base}")
    return path if path.is_file() else None


def _viewport_width(viewport: str) -> int:
    head = viewport.lower().split("x", 1)[0]
    return int(head) if head.isdigit() else 0


def _cells(unit: UnitEvidence) -> list[CheckCell]:
    result = unit.result
    if result is None:
        return []
    cells = []
    for check in result.checks:
        state = "not-run" if not check.executed else ("passed" if check.passed else "failed")
        first = check.diagnostics[0] if check.diagnostics else None
        title = f"{check.id}: {state}, {check.points}/{check.max_points}"
        if first is not None:
            title += f" — expected {prose(first.expected)}; seen {prose(first.seen)}"
        cells.append(
            CheckCell(check.id, "check", state, f"{check.points}/{check.max_points}", title)
        )
    for gate in result.gates:
        state = "failed" if gate.failed else "passed"
        title = f"gate {gate.id}: {state}" + (f" — {prose(gate.reason)}" if gate.reason else "")
        cells.append(CheckCell(gate.id, "gate", state, "gate", title))
    return cells


def _shots(page: UnitPage, unit: UnitEvidence, media: MediaStore) -> None:
    result = unit.result
    if result is None:
        return
    base, owner = unit.paths.evaluation, unit.paths.result
    ordered = sorted(
        result.screenshots, key=lambda s: (_viewport_width(s.viewport), s.page, s.state)
    )
    for shot in ordered:
        source = _evidence_file(base, shot.path, owner)
        if source is None:
            continue
        width = _viewport_width(shot.viewport)
        item = Shot(
            thumb="../" + media.thumbnail(source),
            full="../" + media.image(source),
            caption=f"{shot.page} · {shot.state} · {shot.viewport}",
            page=shot.page,
            state=shot.state,
            viewport=shot.viewport,
            url=shot.url,
        )
        page.shots.setdefault(f"{width} px" if width else shot.viewport, []).append(item)
    all_shots = [s for group in page.shots.values() for s in group]
    for check in result.checks:
        for diag in check.diagnostics:
            found = next(
                (
                    s
                    for s in all_shots
                    if s.viewport == diag.viewport
                    and diag.url is not None
                    and s.url.endswith(diag.url.split("?")[0] or "/")
                ),
                None,
            )
            if found is not None:
                page.check_shots[check.id] = found
                break
    video = _evidence_file(base, result.video, owner) if result.video else None
    if video is not None:
        page.video, page.poster = "../" + media.video(video), "../" + media.poster(video)


def _agent_start_ms(unit: UnitEvidence) -> int | None:
    """When the agent started: the session's end minus its elapsed time (the clock the Time
    column uses), never after the first event; the first event when there is no session."""
    first = unit.trace.first_timestamp if unit.trace is not None else None
    finished = parse_time(unit.session.finished_at) if unit.session else None
    if finished is None or unit.session is None:
        return first
    start = int(finished.timestamp() * 1000 - unit.session.elapsed_seconds * 1000)
    return min(start, first) if first is not None else start


MEDIA_SEALED = (
    "Screenshots and the interaction video are not shown while the round's reviews are sealed: "
    "beside the model's name they would tell the blind reviewers which packet is whose. They "
    "appear once every review is in or the operator unseals the code map."
)


def media_sealed(board: object | None) -> bool:
    """Unit media stay off the site until the code map is unsealed (no leaderboard yet: sealed;
    a leaderboard written before the code map existed: not)."""
    if board is None:
        return True
    code_map = getattr(board, "code_map", None)
    return bool(code_map is not None and code_map.sealed)


def unit_page(
    row: Row, unit: UnitEvidence, media: MediaStore, published: Published, sealed: bool = False
) -> UnitPage:
    """Store a unit's media (none while the round is sealed), publish its evidence files and
    describe its page."""
    page = UnitPage(row=row, evidence=unit, cells=_cells(unit))
    page.origin_ms = _agent_start_ms(unit)
    if sealed:
        page.media_withheld = MEDIA_SEALED
    else:
        _shots(page, unit, media)
    page.exchanges = read_exchanges(unit.paths.gateway)
    rel = f"units/{unit.unit}"
    for label, name in (
        ("session.json (identity, steps, tokens, cost, gateway summary)", "session.json"),
        ("evaluation/result.json (every check, gate and diagnostic)", "evaluation/result.json"),
        ("trace.json (the trajectory: every turn, tool call and output)", "trace.json"),
        ("PROGRESS.md as the agent left it", "PROGRESS.md"),
        ("worktree.diff (the final diff)", "worktree.diff"),
    ):
        view = published.round_file(f"{rel}/{name}")
        if view is not None:
            page.files.append((label, "../" + view))
    events = published.raw(f"{rel}/events.jsonl")
    if events is not None:
        page.files.append(("events.jsonl (the agent's raw events, JSON lines)", "../" + events))
    if unit.result is not None:
        for step in unit.result.steps:
            view = published.round_file(f"{rel}/evaluation/{step.log}") if step.log else None
            if view is not None:
                page.step_logs[step.name] = "../" + view
                page.files.append((f"{step.name} log ({step.command})", "../" + view))
        if unit.result.axe_report:
            view = published.round_file(f"{rel}/evaluation/{unit.result.axe_report}")
            if view is not None:
                page.files.append(("axe report (every violation)", "../" + view))
    return page


def _ceiling_seconds(unit: UnitEvidence) -> float | None:
    if unit.session is None:
        return None
    ceilings = unit.session.ceilings
    seconds = getattr(ceilings, "wall_clock_seconds", None)
    minutes = getattr(ceilings, "wall_clock_minutes", None)
    return seconds if seconds is not None else (minutes * 60 if minutes is not None else None)


@dataclass(frozen=True)
class Entrant:
    """One candidate run by one agent (`agent` empty outside an intervention round), with its
    preflight record when it has one: a row of the cohort page."""

    candidate: Candidate
    agent: str
    key: str  # its preflight folder
    preflight: PreflightRecord | None


def entrants(evidence: RoundEvidence) -> list[Entrant]:
    """Each candidate with each agent of an intervention round (the cohort's order, then the
    round's agents), or each candidate alone."""
    arms = [a.name for a in evidence.settings.agents] or [""]
    found = []
    for candidate in evidence.cohort.candidates:
        for agent in arms:
            key = entrant_key(candidate.key, agent)
            found.append(Entrant(candidate, agent, key, evidence.preflight.get(key)))
    return found


def _context(evidence: RoundEvidence, rows: list[Row]) -> dict[str, Any]:
    scored = [r for r in rows if r.group == "scored"]
    pairs = entrants(evidence)
    advancing = [r for r in scored if r.advances or r.projected]
    pending = [r for r in scored if r.review_state != "complete"]
    board = evidence.leaderboard
    return {
        "cut_unit": advancing[-1].unit if advancing else None,
        "round": evidence,
        "facts": round_facts(evidence),
        "settings": evidence.settings,
        "rows": rows,
        "scored": scored,
        "invalid": [r for r in rows if r.group == "invalid"],
        "apart": [r for r in rows if r.group == "apart"],
        "superseded": [r for r in rows if r.group == "superseded"],
        "reviews_missing": bool(pending),
        "reviews_pending_all": bool(scored) and len(pending) == len(scored),
        "scoring_ran": board is not None,
        "board": board,
        "standing": getattr(board, "standing", "provisional") if board else "provisional",
        "standing_reason": (getattr(board, "standing_reason", "") if board else "")
        or "The standing is provisional until every review is in.",
        "projected_codes": list(getattr(board, "advancing_projected", []) or []) if board else [],
        "cutoff": cutoff(evidence),
        "dimensions": DIMENSIONS,
        "short": SHORT_LABELS,
        "cohort": evidence.cohort,
        "preflight": evidence.preflight,
        "entrants": pairs,
        "not_testable_routes": [
            e for e in pairs if e.preflight is not None and not e.preflight.qualified
        ],
        "intervention": evidence.settings.is_intervention,
        "arms": _arm_labels(evidence),
        "factor": evidence.settings.factor or "agent",
        "agents_view": agents_view(evidence, rows),
        "max_total": MAX_TOTAL,
        "max_automated": MAX_AUTOMATED,
        "review_max": REVIEW_MAX,
        "review_max_visual": REVIEW_RANGES["visual"],
        "review_max_code": REVIEW_RANGES["code_quality"],
        "harness_max": HARNESS_MAX,
        "achievable": ACHIEVABLE_WITHOUT_REVIEW,
        "gate_cap": GATE_CAP,
        "tie_rule": TIE_RULE,
        "frontier": [r.unit for r in frontier(rows)],
        "plotted": [r.unit for r in plotted(rows)],
    }


def _arm_labels(evidence: RoundEvidence) -> list[tuple[str, str]]:
    """The round's arms with their labels, the baseline first: each agent with its product name,
    or each arm folder of a method, starter or tools factor with its title."""
    settings = evidence.settings
    if settings.agents or not settings.is_intervention:
        return [(a.name, agent_label(a.name)) for a in settings.agents_run]
    return [(a.id, a.manifest.title) for a in settings.load_arms()]


def render_docs(evidence: RoundEvidence, docs: Path) -> str:
    """Write the complete MkDocs docs folder for one round into `docs` (an empty folder);
    return the round banner's HTML (shown on every page)."""
    shutil.copytree(SITE_SRC / "docs", docs, dirs_exist_ok=True)
    shutil.copytree(SITE_SRC / "assets", docs / "assets", dirs_exist_ok=True)
    env = environment()
    rows = leaderboard_rows(evidence)
    context = _context(evidence, rows)
    rounds = load_rounds(evidence)  # first: a malformed other round fails before any media work
    histories = model_histories(rounds)
    context.update(rounds=rounds, models=histories, model_pages=set(histories))
    context.update(model_board=evidence.model_leaderboard)
    board = evidence.leaderboard
    published = Published(
        evidence_dir=evidence.paths.root.parent,
        round_id=evidence.round_id,
        docs=docs,
        unsealed=bool(board is not None and getattr(board, "standing", "") == "final"),
        label=round_label(evidence),
    )
    media = MediaStore(docs)
    by_unit = {r.unit: r for r in rows}
    names = [r.unit for r in rows if r.unit in evidence.units]
    for row in rows:
        row.has_page = row.unit in evidence.units
    for name in names:
        published.transcripts[name] = f"units/{name}-transcript.html"
    sealed = media_sealed(board)
    pages = [unit_page(by_unit[n], evidence.units[n], media, published, sealed) for n in names]
    for index, page in enumerate(pages):
        page.prev = pages[index - 1].row if index > 0 else None
        page.next = pages[index + 1].row if index + 1 < len(pages) else None
    context.update(
        pages=pages, published=published, cite=published.link, evidence_link=published.evidence_link
    )
    context.update(unit_pages=set(names))
    context["chart"] = Markup(score_cost_svg(rows, context["cutoff"], standalone=False))
    context["check_ids"] = _check_ids(pages)
    context["check_info"] = _check_info(evidence, pages)
    pages_to_write = [
        ("index.md.j2", "index.md"),
        ("leaderboard.md.j2", "leaderboard.md"),
        ("checks.md.j2", "checks.md"),
        ("cost.md.j2", "cost.md"),
        ("cohort.md.j2", "cohort.md"),
        ("calibration.md.j2", "calibration.md"),
        ("units.md.j2", "units/index.md"),
        ("downloads.md.j2", "downloads.md"),
        ("rounds.md.j2", "rounds.md"),
        ("models.md.j2", "models/index.md"),
    ]
    if evidence.settings.is_intervention:  # the agents compared: an intervention round's only
        pages_to_write.insert(2, ("agents.md.j2", AGENTS_PAGE))
    for template, target in pages_to_write:
        atomic_write_text(docs / target, env.get_template(template).render(context))
    model_template = env.get_template("model.md.j2")
    for key, history in histories.items():
        atomic_write_text(
            docs / "models" / f"{key}.md", model_template.render({**context, "history": history})
        )
    unit_template = env.get_template("unit.md.j2")
    transcript_template = env.get_template("transcript.md.j2")
    for page in pages:
        page_context = {**context, "page": page, "row": page.row, "s": page.evidence.session}
        page_context["ceiling_seconds"] = _ceiling_seconds(page.evidence)
        atomic_write_text(
            docs / "units" / f"{page.row.unit}.md", unit_template.render(page_context)
        )
        atomic_write_text(
            docs / "units" / page.transcript, transcript_template.render(page_context)
        )
    atomic_write_text(
        docs / "charts" / "score-vs-cost.svg", score_cost_svg(rows, context["cutoff"])
    )
    atomic_write_text(
        docs / "downloads" / "leaderboard.csv", leaderboard_csv(rows, context["facts"])
    )
    if board is not None:  # the scoring stage's files, byte for byte
        copy = docs / "downloads" / "leaderboard.json"
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(evidence.paths.leaderboard, copy)
        for record, path in (
            (evidence.model_leaderboard, evidence.paths.model_leaderboard),
            (evidence.intervention, evidence.paths.intervention),
        ):
            if record is not None:
                shutil.copyfile(path, copy.with_name(path.name))
    else:
        atomic_write_text(
            docs / "downloads" / "leaderboard.json", provisional_json(rows, context["facts"])
        )
    return round_banner(evidence, rows)


def _check_ids(pages: list[UnitPage]) -> list[tuple[str, str]]:
    """(id, kind) of every check and gate, in the evaluator's order."""
    seen: list[tuple[str, str]] = []
    for page in pages:
        for cell in page.cells:
            if (cell.id, cell.kind) not in seen:
                seen.append((cell.id, cell.kind))
    return seen


def _check_info(evidence: RoundEvidence, pages: list[UnitPage]) -> list[Any]:
    """Each check once (id, dimension, points, what it proves), from the results that have it."""
    results = [p.evidence.result for p in pages if p.evidence.result is not None]
    if evidence.calibration_result is not None:
        results.append(evidence.calibration_result)
    seen: dict[str, Any] = {}
    for result in results:
        for check in result.checks:
            if check.id not in seen or (check.proves and not seen[check.id].proves):
                seen[check.id] = check
    return list(seen.values())


@contextmanager
def _build_env(epoch: int) -> Iterator[list[str]]:
    """A fixed build date (reproducible output); collects the warnings mkdocs logs."""
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


def compared_label(page: Path) -> str:
    """The comparison page's nav label: its title before the round's name (`Agents compared`,
    `Method arms compared`)."""
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("title: "):
            return str(json.loads(line.removeprefix("title: "))).split(" — ")[0]
    return next(iter(AGENTS_NAV))


def site_nav(nav: list[Any] | None, docs: Path) -> list[Any] | None:
    """mkdocs.yml's nav, with the arms compared (agents.md) after the leaderboard when the docs
    have that page."""
    page = docs / AGENTS_PAGE
    if nav is None or not page.is_file() or any(AGENTS_PAGE in i.values() for i in nav):
        return nav
    at = next((n + 1 for n, item in enumerate(nav) if "leaderboard.md" in item.values()), 1)
    return [*nav[:at], {compared_label(page): AGENTS_PAGE}, *nav[at:]]


def mkdocs_build(docs: Path, site: Path, epoch: int = 0, banner: str = "") -> None:
    """`mkdocs build --strict` of `docs` into `site`, in-process, with mkdocs.yml's settings."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    with _build_env(epoch) as warnings:
        config = load_config(str(MKDOCS_YML), docs_dir=str(docs), site_dir=str(site), strict=True)
        config.extra["siteos_banner"] = banner
        config.nav = site_nav(config.nav, docs)
        try:
            build(config)
        except MkDocsException as exc:
            detail = "\n  ".join(warnings)
            raise SiteBuildError(f"mkdocs build --strict failed: {exc}\n  {detail}") from exc
    finish_site(site)
    problems = check_site(site)
    if problems:
        raise SiteBuildError(
            "built site has broken or remote references:\n  " + "\n  ".join(problems)
        )


def _swap(new: Path, final: Path, attempts: int = 20) -> None:
    """Put `new` in place of `final`: whatever stands there is moved aside into a folder of this
    swap's own, then `new` renamed in; when another render's folder lands in between, it is moved
    aside too and the rename tried again (the last render wins; none fails or removes another's
    working folder)."""
    old = Path(tempfile.mkdtemp(dir=final.parent, prefix=f".{final.name}.old."))
    try:
        for n in range(attempts):
            with suppress(FileNotFoundError):
                final.replace(old / str(n))
            try:
                new.rename(final)
                return
            except OSError as exc:
                if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                    raise
        raise SiteBuildError(f"{final}: another render kept replacing it ({attempts} attempts)")
    finally:
        shutil.rmtree(old, ignore_errors=True)


def render_site(rnd: Round, build_dir: Path = BUILD_DIR) -> Path:
    """Render and strictly build the site of the round; return the built site folder."""
    evidence = load_round_evidence(rnd)
    build_dir.mkdir(parents=True, exist_ok=True)
    # this render's own working folders: a render beside it (another round) never touches them
    docs_tmp = Path(tempfile.mkdtemp(dir=build_dir, prefix=".site-docs.tmp."))
    docs_tmp.chmod(0o755)  # mkdtemp's folders are private; site-docs is read like site
    site_tmp = Path(tempfile.mkdtemp(dir=build_dir, prefix=".site.tmp.")) / "site"
    try:
        banner = render_docs(evidence, docs_tmp)
        frozen = parse_time(evidence.round_record.frozen_at) if evidence.round_record else None
        epoch = int(frozen.timestamp()) if isinstance(frozen, datetime) else 0
        mkdocs_build(docs_tmp, site_tmp, epoch, banner)
        _swap(docs_tmp, build_dir / "site-docs")
        _swap(site_tmp, build_dir / "site")
    finally:
        shutil.rmtree(docs_tmp, ignore_errors=True)  # gone already when swapped in
        shutil.rmtree(site_tmp.parent, ignore_errors=True)
    return build_dir / "site"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m publish.render", description="Build the results site of one round."
    )
    parser.add_argument("round", nargs="?", default=os.environ.get("SITEOS_ROUND", "demo"))
    parser.add_argument("--evidence-dir", type=Path, default=EVIDENCE_DIR)
    parser.add_argument("--build-dir", type=Path, default=BUILD_DIR)
    args = parser.parse_args(argv)
    site = render_site(Round.load(args.round, args.evidence_dir), args.build_dir)
    print(f"site built: {site / 'index.html'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
