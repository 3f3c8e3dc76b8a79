"""long-copy: at 360 px the longest venue name is the detail page's h1, whole and wrapping onto
several lines, neither clipped (no overflow hidden, ellipsis or line clamp on it or an ancestor)
nor overflowing its box; the ~2,000-character description is shown in full, wrapping, with no
clipping of its box."""

from __future__ import annotations

from evaluator.checks.base import CheckContext
from evaluator.checks.spec import Check

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

FIND_TEXT_JS = """
(text) => {
  // Whitespace is ignored: paragraphs rendered as separate elements join without it.
  const norm = (t) => (t || '').replace(/\\s+/g, '');
  const want = norm(text);
  const main = document.querySelector('main') || document.body;
  let best = null;
  for (const el of main.querySelectorAll('*')) {
    if (norm(el.textContent).includes(want)) best = el;
  }
  return best;
}
"""


def run(ctx: CheckContext) -> None:
    page = ctx.page
    long_name = ctx.data.longest_name
    ctx.goto(long_name.path, width=360)
    h1 = page.locator("h1")
    texts = [" ".join(t.split()) for t in h1.all_text_contents()]
    if texts != [long_name.name]:
        ctx.problem(
            f'at 360px the page {long_name.path} has one h1 reading "{long_name.name}"',
            f"h1s: {texts}",
            "h1",
        )
    else:
        info = h1.first.evaluate(CLIP_JS)
        for problem in info["problems"]:
            ctx.problem(
                "the long venue name wraps, whole and unclipped", f"the h1: {problem}", "h1"
            )
        if info["lines"] < 2:
            ctx.problem(
                "the long venue name wraps onto several lines at 360px",
                f"it takes {info['lines']} line(s) ({info['width']}px wide)",
                "h1",
            )
    long_desc = ctx.data.longest_description
    ctx.goto(long_desc.path, width=360)
    handle = page.evaluate_handle(FIND_TEXT_JS, long_desc.description)
    element = handle.as_element()
    if element is None:
        ctx.problem(
            f"the full {len(long_desc.description)}-character description on {long_desc.path}",
            "the description text is not on the page in full",
            "main",
        )
        return
    info = element.evaluate(CLIP_JS)
    for problem in info["problems"]:
        ctx.problem(
            "the long description is shown whole and wraps",
            f"its container: {problem}",
            "main (description)",
        )


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
)
