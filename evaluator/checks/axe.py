"""axe: axe-core's WCAG 2.x A/AA rules report no serious or critical violation on the settled
pages (home and catalogue at 1440 and 360 px with the menu open, the empty state, a venue, a
venue without an image, not-found) nor inside the open enquiry dialog (scoped to the dialog: the
inert, dimmed page behind a modal is not judged). Pages are judged after entrance animations
finish, so temporarily translucent text is never measured."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evaluator.browser import run_axe
from evaluator.checks._dialog import DIALOG_SELECTOR, dialog_open, enquire_button
from evaluator.checks._waits import ACTION_MS, REACTION_MS
from evaluator.checks.base import CheckContext, SharedVisit, visit_key, wait_until
from evaluator.checks.spec import Check
from evaluator.data import VenueData


def page_runs(data: VenueData) -> list[tuple[str, str, int]]:
    no_image = next((v for v in data.venues if not v.image), data.ordinary)
    return [
        ("home", "/", 1440),
        ("catalogue", "/venues", 1440),
        ("empty-state", "/venues?guests=100000", 1440),
        ("detail", data.ordinary.path, 1440),
        ("detail-no-image", no_image.path, 1440),
        ("not-found", "/no-such-page", 1440),
        ("home", "/", 360),
    ]


def shared_visits(data: VenueData) -> dict[str, Callable[[CheckContext], Any]]:
    """The same axe runs, made on another check's visit of the same settled state."""
    whole: Callable[[CheckContext], Any] = lambda ctx: run_axe(ctx.page)  # noqa: E731
    wanted = {visit_key(path, width): whole for _, path, width in page_runs(data)}
    wanted[visit_key("/venues", 360, "menu-open")] = whole
    wanted[visit_key(data.ordinary.path, 1440, "dialog-open")] = lambda ctx: run_axe(
        ctx.page, DIALOG_SELECTOR
    )
    return wanted


def run(ctx: CheckContext) -> None:
    page = ctx.page
    data = ctx.data
    found: list[tuple[str, dict[str, Any], SharedVisit | None]] = []
    for label, path, width in page_runs(data):
        where = ctx.shared(CHECK.id, visit_key(path, width))
        if where is None:
            ctx.goto(path, width=width)
        found += [(f"{label} @ {width}px", v, where) for v in ctx.axe(label, where=where)]
    where = ctx.shared(CHECK.id, visit_key("/venues", 360, "menu-open"))
    if where is None:
        ctx.goto("/venues", width=360)
        menu = page.get_by_role("button", name="Menu", exact=True)
        if menu.count() and menu.first.is_visible():
            menu.first.click(timeout=ACTION_MS)
            ctx.settle()
    found += [
        ("catalogue (menu) @ 360px", v, where) for v in ctx.axe("catalogue-menu", where=where)
    ]
    where = ctx.shared(CHECK.id, visit_key(data.ordinary.path, 1440, "dialog-open"))
    if where is not None:
        found += [("enquiry dialog", v, where) for v in ctx.axe("dialog", DIALOG_SELECTOR, where)]
    else:
        ctx.goto(data.ordinary.path, width=1440)
        button = enquire_button(ctx)
        if button.count() and button.first.is_visible():
            button.first.click(timeout=ACTION_MS)
            if wait_until(page, lambda: dialog_open(ctx), REACTION_MS):
                ctx.settle()
                found += [("enquiry dialog", v, None) for v in ctx.axe("dialog", DIALOG_SELECTOR)]
    for where_text, violation, where in found:
        targets = [" ".join(n.get("target", [])) for n in violation.get("nodes", [])][:3]
        ctx.problem(
            f"no serious/critical axe violation ({where_text})",
            f"{violation['id']} ({violation.get('impact')}): {violation.get('help')} — "
            f"{len(violation.get('nodes', []))} element(s)",
            ", ".join(targets),
            where=where,
        )


CHECK = Check(
    id="axe",
    dimension="accessibility",
    points=3,
    run=run,
    doc=__doc__ or "",
    clauses=[
        "gate.axe-serious",
    ],
    shared_visits=shared_visits,
)
