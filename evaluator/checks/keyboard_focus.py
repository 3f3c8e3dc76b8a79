"""keyboard-focus: the first Tab on a page reaches the "Skip to content" link, which moves focus
to main; every visible interactive element on `/`, `/venues`, a venue page and the not-found
page is reachable with Tab, and each one shows a visible focus indicator when focused from the
keyboard (an outline or box-shadow on the element or its ::before/::after, or a focus-only style
change on the element, its label or its neighbours)."""

from __future__ import annotations

from evaluator.checks._waits import REACTION_MS
from evaluator.checks.base import CheckContext, wait_until
from evaluator.checks.clauses import PAGE_KINDS
from evaluator.checks.spec import Check, Tested

IN_MAIN_JS = (
    "() => { const m = document.querySelector('main, [role=main]');"
    " return !!m && (m === document.activeElement || m.contains(document.activeElement)); }"
)

# Indexes every visible, enabled, tabbable element and records its unfocused style signature
# (the element, its parent, its neighbours and its labels) to spot focus-only style changes.
TABBABLES_JS = """
() => {
  const sel = 'a[href], button, input:not([type=hidden]), select, textarea, summary, [tabindex]';
  const shown = (el) => {
    if (el.closest('[inert]') || el.closest('[aria-hidden=true]')) return false;
    for (let e = el; e; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.display === 'none' || s.visibility === 'hidden') return false;
    }
    return el.getClientRects().length > 0;
  };
  const props = ['outline-style', 'outline-width', 'outline-color', 'box-shadow', 'border-color',
                 'background-color', 'color', 'text-decoration-line'];
  const one = (e, pseudo) =>
    props.map(p => getComputedStyle(e, pseudo).getPropertyValue(p)).join('|');
  const sig = (e) => e ? [one(e, null), one(e, '::before'), one(e, '::after')].join('/') : '';
  window.__siteosSig = (el) => [el, el.parentElement, el.nextElementSibling,
    el.previousElementSibling, ...(el.labels ? [...el.labels] : [])].map(sig).join('#');
  window.__siteosDesc = (el) => {
    const name = (el.getAttribute('aria-label') || el.textContent || el.name || el.id || '')
      .replace(/\\s+/g, ' ').trim().slice(0, 40);
    return `${el.tagName.toLowerCase()} "${name}"`;
  };
  window.__siteosIds = new WeakMap();
  window.__siteosBase = [];
  const out = [];
  for (const el of document.querySelectorAll(sel)) {
    if (el.disabled || el.tabIndex < 0 || !shown(el)) continue;
    if (el.type === 'radio' && !el.checked && el.name &&
        document.querySelector(`input[type=radio][name="${el.name}"]:checked`)) continue;
    window.__siteosIds.set(el, out.length);
    window.__siteosBase.push(window.__siteosSig(el));
    out.push(window.__siteosDesc(el));
  }
  return out;
}
"""

FOCUSED_JS = """
() => {
  const el = document.activeElement;
  if (!el || el === document.body || el === document.documentElement) return null;
  const ringOn = (s) => (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0)
    || (!!s.boxShadow && s.boxShadow !== 'none');
  const ring = [null, '::before', '::after'].some(p => ringOn(getComputedStyle(el, p)));
  const id = window.__siteosIds.has(el) ? window.__siteosIds.get(el) : -1;
  const changed = id >= 0 && window.__siteosSig(el) !== window.__siteosBase[id];
  return { id, desc: window.__siteosDesc(el), ring: ring || changed };
}
"""


def _walk(ctx: CheckContext, path: str) -> None:
    page = ctx.page
    ctx.goto(path, width=1440)
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    expected: list[str] = page.evaluate(TABBABLES_JS)
    reached: set[int] = set()
    seen_other: set[str] = set()
    no_ring: list[str] = []
    for _ in range(len(expected) + 6):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUSED_JS)
        if focused is None:
            continue
        key = focused["id"] if focused["id"] >= 0 else focused["desc"]
        if key in reached or key in seen_other:
            break
        if focused["id"] >= 0:
            reached.add(focused["id"])
        else:
            seen_other.add(focused["desc"])
        if not focused["ring"]:
            no_ring.append(focused["desc"])
    missing = [desc for i, desc in enumerate(expected) if i not in reached]
    if missing:
        ctx.problem(
            f"every interactive element on {path} is reachable with Tab",
            f"never focused: {', '.join(missing[:6])}",
            "Tab order",
        )
    if no_ring:
        ctx.problem(
            f"a visible focus indicator on every element focused with Tab on {path}",
            f"no outline, box-shadow or focus style change on: {', '.join(no_ring[:6])}",
            ":focus-visible",
        )


def run(ctx: CheckContext) -> None:
    page = ctx.page
    ctx.goto("/", width=1440)
    page.keyboard.press("Tab")
    skip = page.get_by_role("link", name="Skip to content", exact=True)
    if skip.count() == 0 or not ctx.active_is(skip):
        ctx.problem(
            'the first Tab focuses the link "Skip to content"',
            f"focus is on {ctx.active_description()}",
            'role=link[name="Skip to content"]',
        )
    else:
        page.keyboard.press("Enter")
        in_main = wait_until(page, lambda: page.evaluate(IN_MAIN_JS), REACTION_MS)
        if not in_main:
            ctx.problem(
                'activating "Skip to content" moves focus to main',
                f"focus is on {ctx.active_description()}",
                "main",
            )
    for path in ("/", "/venues", ctx.data.ordinary.path, "/no-such-page"):
        _walk(ctx, path)


CHECK = Check(
    id="keyboard-focus",
    dimension="accessibility",
    points=3,
    run=run,
    doc=__doc__ or "",
    clauses=[
        "shell.skip-link",
        "shell.focus",
    ],
    tested=[Tested("shell.focus", "page", PAGE_KINDS, "An ordinary venue page; /no-such-page.")],
)
