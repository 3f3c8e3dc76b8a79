"""long-copy: at 360 px the longest venue name is the detail page's h1, whole and wrapping onto
several lines, neither clipped (no overflow hidden, ellipsis or line clamp on it or an ancestor)
nor overflowing its box; the ~2,000-character description is shown in full, wrapping, with no
clipping of its box."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evaluator.checks.base import CheckContext, SharedVisit, visit_key
from evaluator.checks.spec import Check
from evaluator.data import VenueData

# Returns why `el` is clipped or overflowing, or null when it is shown whole.
CLIP_JS = """
(el) => {
  const r = el.getBoundingClientRect();
  const s = getComputedStyle(el);
  const problems = [];
  if (el.scrollWidth > el.clientWidth + 1 && s.overflowX !== 'visible')
    problems.push(`its text is cut horizontally (scrollWidth ${el.scrollWidth} > `
      + `${el.clientWidth}, overflow-x: ${s.overflowX})`);
  if (el.scrollHeight > el.clientHeight + 1 && s.overflowY !== 'visible')
    problems.push(`its text is cut vertically (scrollHeight ${el.scrollHeight} > `
      + `${el.clientHeight})`);
  if (s.textOverflow === 'ellipsis' && el.scrollWidth > el.clientWidth + 1)
    problems.push('it ends in an ellipsis');
  if (s.webkitLineClamp && s.webkitLineClamp !== 'none')
    problems.push(`line-clamp: ${s.webkitLineClamp}`);
  if (el.scrollWidth > el.clientWidth + 1 && s.overflowX === 'visible')
    problems.push(`its text overflows its box by ${el.scrollWidth - el.clientWidth}px`);
  for (let a = el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
    const as = getComputedStyle(a);
    if (as.overflowX === 'visible' && as.overflowY === 'visible') continue;
    const ar = a.getBoundingClientRect();
    if (r.right > ar.right + 1 || r.left < ar.left - 1 || r.bottom > ar.bottom + 1)
      problems.push(`an ancestor <${a.tagName.toLowerCase()}> with overflow `
        + `${as.overflowX}/${as.overflowY} clips it`);
  }
  const lh = parseFloat(s.lineHeight) || parseFloat(s.fontSize) * 1.2;
  return { problems, lines: Math.round(r.height / lh), width: Math.round(r.width) };
}
"""

# The smallest element of main holding the whole text (whitespace ignored: paragraphs rendered as
# separate elements join without it), judged by CLIP_JS; null when the text is not there in full.
DESCRIPTION_JS = (
    """(text) => {
  const norm = (t) => (t || '').replace(/\\s+/g, '');
  const want = norm(text);
  const main = document.querySelector('main') || document.body;
  let best = null;
  for (const el of main.querySelectorAll('*')) {
    if (norm(el.textContent).includes(want)) best = el;
  }
  return best && ("""
    + CLIP_JS
    + """)(best);
}"""
)


def measure_name(ctx: CheckContext) -> dict[str, Any]:
    """The h1s' texts and, for one h1, how it is clipped (read-only)."""
    h1 = ctx.page.locator("h1")
    texts = [" ".join(t.split()) for t in h1.all_text_contents()]
    return {"texts": texts, "clip": h1.first.evaluate(CLIP_JS) if len(texts) == 1 else None}


def measure_description(ctx: CheckContext) -> dict[str, Any] | None:
    """How the element holding the whole longest description is clipped (read-only)."""
    info: dict[str, Any] | None = ctx.page.evaluate(
        DESCRIPTION_JS, ctx.data.longest_description.description
    )
    return info


def measure(ctx: CheckContext, path: str) -> dict[str, Any]:
    """What this check reads on `path` at 360 px: the long name, the long description, or both
    (when one venue has both)."""
    got: dict[str, Any] = {}
    if path == ctx.data.longest_name.path:
        got["name"] = measure_name(ctx)
    if path == ctx.data.longest_description.path:
        got["description"] = measure_description(ctx)
    return got


def page_paths(data: VenueData) -> list[str]:
    return list(dict.fromkeys([data.longest_name.path, data.longest_description.path]))


def collector(path: str) -> Callable[[CheckContext], dict[str, Any]]:
    """What this check reads on `path`, as a collector of a shared visit."""
    return lambda ctx: measure(ctx, path)


def shared_visits(data: VenueData) -> dict[str, Callable[[CheckContext], Any]]:
    return {visit_key(path, 360): collector(path) for path in page_paths(data)}


def judge_name(ctx: CheckContext, got: dict[str, Any], where: SharedVisit | None) -> None:
    long_name = ctx.data.longest_name
    if got["texts"] != [long_name.name]:
        ctx.problem(
            f'at 360px the page {long_name.path} has one h1 reading "{long_name.name}"',
            f"h1s: {got['texts']}",
            "h1",
            where,
        )
        return
    info = got["clip"]
    for problem in info["problems"]:
        ctx.problem(
            "the long venue name wraps, whole and unclipped", f"the h1: {problem}", "h1", where
        )
    if info["lines"] < 2:
        ctx.problem(
            "the long venue name wraps onto several lines at 360px",
            f"it takes {info['lines']} line(s) ({info['width']}px wide)",
            "h1",
            where,
        )


def judge_description(
    ctx: CheckContext, info: dict[str, Any] | None, where: SharedVisit | None
) -> None:
    long_desc = ctx.data.longest_description
    if info is None:
        ctx.problem(
            f"the full {len(long_desc.description)}-character description on {long_desc.path}",
            "the description text is not on the page in full",
            "main",
            where,
        )
        return
    for problem in info["problems"]:
        ctx.problem(
            "the long description is shown whole and wraps",
            f"its container: {problem}",
            "main (description)",
            where,
        )


def run(ctx: CheckContext) -> None:
    # Both pages are settled states no-overflow visits at 360 px: judged there when it ran first
    # on this lane (`shared_visits`), loaded here otherwise.
    for path in page_paths(ctx.data):
        got, where = ctx.measured(CHECK.id, path, 360, collector(path))
        if "name" in got:
            judge_name(ctx, got["name"], where)
        if "description" in got:
            judge_description(ctx, got["description"], where)


CHECK = Check(
    id="long-copy",
    dimension="responsive",
    points=4,
    run=run,
    doc=__doc__ or "",
    clauses=[
        "detail.h1",
        "detail.description",
        "business.edge-cases",
    ],
    shared_visits=shared_visits,
)
