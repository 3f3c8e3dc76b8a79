"""axe: axe-core's WCAG 2.x A/AA rules report no serious or critical violation on the settled
pages (home and catalogue at 1440 and 360 px with the menu open, the empty state, a venue, a
venue without an image, not-found) nor inside the open enquiry dialog (scoped to the dialog: the
inert, dimmed page behind a modal is not judged). Pages are judged after entrance animations
finish, so temporarily translucent text is never measured."""

from __future__ import annotations

from typing import Any

from evaluator.checks.base import CheckContext, wait_until
from evaluator.checks.dialog import DIALOG_SELECTOR, dialog_open, enquire_button

ID = "axe"
DIMENSION = "accessibility"
POINTS = 3


def run(ctx: CheckContext) -> None:
    page = ctx.page
    data = ctx.data
    found: list[tuple[str, dict[str, Any]]] = []
    no_image = next((v for v in data.venues if not v.image), data.ordinary)
    runs = [
        ("home", "/", 1440),
        ("catalogue", "/venues", 1440),
        ("empty-state", "/venues?guests=100000", 1440),
        ("detail", data.ordinary.path, 1440),
        ("detail-no-image", no_image.path, 1440),
        ("not-found", "/no-such-page", 1440),
        ("home", "/", 360),
    ]
    for label, path, width in runs:
        ctx.goto(path, width=width)
        found += [(f"{label} @ {width}px", v) for v in ctx.axe(label)]
    ctx.goto("/venues", width=360)
    menu = page.get_by_role("button", name="Menu", exact=True)
    if menu.count() and menu.first.is_visible():
        menu.first.click()
        ctx.settle()
    found += [("catalogue (menu) @ 360px", v) for v in ctx.axe("catalogue-menu")]
    ctx.goto(data.ordinary.path, width=1440)
    button = enquire_button(ctx)
    if button.count() and button.first.is_visible():
        button.first.click()
        if wait_until(page, lambda: dialog_open(ctx), 1500):
            ctx.settle()
            found += [("enquiry dialog", v) for v in ctx.axe("dialog", DIALOG_SELECTOR)]
    for where, violation in found:
        targets = [" ".join(n.get("target", [])) for n in violation.get("nodes", [])][:3]
        ctx.problem(
            f"no serious/critical axe violation ({where})",
            f"{violation['id']} ({violation.get('impact')}): {violation.get('help')} — "
            f"{len(violation.get('nodes', []))} element(s)",
            ", ".join(targets),
        )
