"""no-overflow: no horizontal overflow (document scrollWidth <= window.innerWidth) at 360, 768
and 1440 px on every route — home, catalogue, empty state, venue details (including the longest
name and the longest description), not-found — and in every state: menu open, dialog open."""

from __future__ import annotations

from evaluator.checks._dialog import dialog_open, enquire_button
from evaluator.checks._waits import ACTION_MS, REACTION_MS
from evaluator.checks.base import CheckContext, wait_until
from evaluator.checks.clauses import PAGE_KINDS
from evaluator.checks.spec import Check, Tested


def pages(ctx: CheckContext) -> list[tuple[str, str]]:
    data = ctx.data
    return [
        ("home", "/"),
        ("catalogue", "/venues"),
        ("empty-state", "/venues?guests=100000"),
        ("detail", data.ordinary.path),
        ("detail-long-name", data.longest_name.path),
        ("detail-long-description", data.longest_description.path),
        ("not-found", "/no-such-page"),
    ]


def _measure(ctx: CheckContext, state: str, failures: list[str]) -> None:
    px = ctx.record_overflow(state)
    if px > 0:
        failures.append(f"{ctx.path()} {state} @ {ctx.width}px: {px}px wider")


def run(ctx: CheckContext) -> None:
    # Each settled state is shared (`ctx.share_visit`): later checks that judge the same state
    # (axe, semantics, responsive-layout) measure it here instead of loading it again.
    failures: list[str] = []
    page = ctx.page
    for width in (360, 768, 1440):
        ctx.set_width(width)
        for name, path in pages(ctx):
            ctx.goto(path)
            _measure(ctx, "page", failures)
            ctx.share_visit(path)
            # Evidence: the whole page at the phone and desktop widths, the first screen at 768
            # (the tablet's full pages repeated the other two and were a third of the evidence).
            ctx.snap(name, "page", full_page=width != 768)
        # Menu open (where a Menu button is shown).
        ctx.goto("/venues")
        menu = page.get_by_role("button", name="Menu", exact=True)
        if menu.count() and menu.first.is_visible():
            menu.first.click(timeout=ACTION_MS)
            ctx.settle()
            _measure(ctx, "menu open", failures)
            ctx.share_visit("/venues", "menu-open")
            ctx.snap("catalogue", "menu-open", full_page=False)
        # Dialog open.
        ctx.goto(ctx.data.ordinary.path)
        button = enquire_button(ctx)
        if button.count() and button.first.is_visible():
            button.first.click(timeout=ACTION_MS)
            if wait_until(page, lambda: dialog_open(ctx), REACTION_MS):
                ctx.settle()
                _measure(ctx, "dialog open", failures)
                ctx.share_visit(ctx.data.ordinary.path, "dialog-open")
                ctx.snap("detail", "dialog-open", full_page=False)
    if failures:
        ctx.problem(
            "document.documentElement.scrollWidth <= window.innerWidth everywhere",
            "; ".join(failures[:8])
            + (f" (+{len(failures) - 8} more)" if len(failures) > 8 else ""),
            "document.documentElement",
        )


CHECK = Check(
    id="no-overflow",
    dimension="responsive",
    points=5,
    run=run,
    doc=__doc__ or "",
    clauses=[
        "shell.overflow",
    ],
    tested=[
        Tested("shell.overflow", "viewport width", ("360 px", "768 px", "1440 px")),
        Tested(
            "shell.overflow",
            "route",
            PAGE_KINDS,
            "Three venue pages: an ordinary one, the longest name, the longest description.",
        ),
        Tested("shell.overflow", "state", ("menu open", "dialog open", "empty state")),
    ],
    placement="visits",
)
