"""dialog-focus: opening the enquiry dialog from the keyboard moves focus into it; Tab and
Shift+Tab keep focus inside it; Escape closes it and so does its "Close" button; each time focus
returns to the "Enquire about this venue" button."""

from __future__ import annotations

from playwright.sync_api import Locator

from evaluator.checks._dialog import dialog_open, enquire_button, open_dialog
from evaluator.checks._waits import ACTION_MS, REACTION_MS
from evaluator.checks.base import CheckContext, wait_until
from evaluator.checks.spec import Check

INSIDE_JS = "d => d.contains(document.activeElement) && document.activeElement !== document.body"


def _inside(dialog: Locator) -> bool:
    result: bool = dialog.evaluate(INSIDE_JS)
    return result


def run(ctx: CheckContext) -> None:
    venue = ctx.data.ordinary
    page = ctx.page
    ctx.goto(venue.path, width=1440)
    dialog = open_dialog(ctx, keyboard=True)
    if not wait_until(page, lambda: _inside(dialog), REACTION_MS):
        ctx.problem(
            "opening the dialog moves focus into it",
            f"focus is on {ctx.active_description()}",
            "role=dialog",
        )
    stops = dialog.evaluate(
        "d => d.querySelectorAll('a[href], button, input, select, textarea, [tabindex]').length"
    )
    presses = min(int(stops) + 3, 30)
    for key in ("Tab", "Shift+Tab"):
        for i in range(presses):
            page.keyboard.press(key)
            if not _inside(dialog):
                ctx.problem(
                    f"{key} keeps focus inside the dialog",
                    f"after {i + 1} presses focus is on {ctx.active_description()}",
                    "role=dialog",
                )
                break
    button = enquire_button(ctx).first
    for how in ("Escape", "Close"):
        if how == "Close":
            dialog = open_dialog(ctx)
            closer = dialog.get_by_role("button", name="Close", exact=True)
            if closer.count() == 0:
                ctx.problem(
                    'a "Close" button in the dialog', "not found", 'role=button[name="Close"]'
                )
                continue
            closer.first.click(timeout=ACTION_MS)
        else:
            page.keyboard.press("Escape")
        if not wait_until(page, lambda: not dialog_open(ctx), REACTION_MS):
            ctx.problem(f"{how} closes the dialog", "the dialog is still open", "role=dialog")
            page.keyboard.press("Escape")
            continue
        if not wait_until(page, lambda: ctx.active_is(button), REACTION_MS):
            ctx.problem(
                f'after {how} focus returns to "Enquire about this venue"',
                f"focus is on {ctx.active_description()}",
                'role=button[name="Enquire about this venue"]',
            )


CHECK = Check(
    id="dialog-focus",
    dimension="accessibility",
    points=3,
    run=run,
    doc=__doc__ or "",
    clauses=[
        "dialog.focus",
        "dialog.buttons",
    ],
)
