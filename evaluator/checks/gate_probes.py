"""Gate probes that are not scored checks: the root page and keyboard-only enquiry."""

from __future__ import annotations

from playwright.sync_api import Locator

from evaluator.browser import READER_TEXT_JS
from evaluator.checks._dialog import ENQUIRE, dialog_open, find_fields, tomorrow_iso
from evaluator.checks._waits import REACTION_MS
from evaluator.checks.base import CheckContext, wait_until


def root_page(ctx: CheckContext) -> str | None:
    """None when `/` is the Atlas Rooms home; otherwise why it is blank or wrong."""
    page = ctx.page
    ctx.goto("/", width=1440)
    title = page.title()
    text = page.evaluate("() => (document.body && document.body.innerText || '').trim()")
    if not text:
        return "the root page / renders no visible text (blank)"
    if "Atlas Rooms" not in title:
        return f'document.title {title!r} does not contain "Atlas Rooms"'
    h1 = page.locator("h1").count()
    if h1 != 1:
        return f"the root page has {h1} h1 elements, not one"
    link = page.get_by_role("link", name="Browse venues")
    hrefs = [link.nth(i).get_attribute("href") or "" for i in range(link.count())]
    if not any(h.split("?")[0].rstrip("/").endswith("/venues") for h in hrefs):
        return f'no link named "Browse venues" to /venues (found: {hrefs or "none"})'
    return None


def _tab_to(ctx: CheckContext, target: Locator, limit: int, shift: bool = False) -> bool:
    for _ in range(limit):
        if ctx.active_is(target):
            return True
        ctx.page.keyboard.press("Shift+Tab" if shift else "Tab")
    return ctx.active_is(target)


def keyboard_enquiry(ctx: CheckContext) -> str | None:
    """None when the enquiry dialog can be opened, filled and submitted by keyboard alone."""
    page = ctx.page
    venue = ctx.data.ordinary
    ctx.goto(venue.path, width=1440)
    button = page.get_by_role("button", name=ENQUIRE, exact=True)
    if button.count() == 0:
        return f'no "{ENQUIRE}" button on {venue.path}'
    if not _tab_to(ctx, button.first, 80):
        return f'"{ENQUIRE}" cannot be reached with Tab from the top of {venue.path}'
    page.keyboard.press("Enter")
    if not wait_until(page, lambda: dialog_open(ctx), REACTION_MS):
        return f'pressing Enter on "{ENQUIRE}" does not open the dialog'
    ctx.settle()
    dialog = page.get_by_role("dialog").first
    try:
        fields = find_fields(ctx, dialog)
    except Exception:  # noqa: BLE001 - CheckStopped: the fields are missing
        return "the dialog's labelled fields are missing"
    date = tomorrow_iso(ctx, 7)
    yyyy, mm, dd = date.split("-")
    plan: list[tuple[str, Locator, str]] = [
        ("Name", fields.name, "Rui Lopes"),
        ("Email", fields.email, "rui@example.com"),
        ("Event date", fields.date, f"{mm}{dd}{yyyy}"),
        ("Guests", fields.guests, "2"),
    ]
    for label, field, text in plan:
        if not _tab_to(ctx, field, 25):
            return f'"{label}" cannot be reached with Tab inside the dialog'
        page.keyboard.type(text)
    if fields.date.input_value() != date:
        return f"typing the date by keyboard gave {fields.date.input_value()!r}, not {date}"
    if not _tab_to(ctx, fields.consent, 25):
        return "the consent checkbox cannot be reached with Tab inside the dialog"
    page.keyboard.press("Space")
    if not fields.consent.is_checked():
        return "Space does not check the consent checkbox"
    if not _tab_to(ctx, fields.submit, 25):
        return '"Send enquiry" cannot be reached with Tab inside the dialog'
    page.keyboard.press("Enter")
    ok = wait_until(
        page,
        lambda: page.evaluate(
            "() => [...document.querySelectorAll('[role=dialog], dialog[open]')]"
            ".some(d => (" + READER_TEXT_JS + ")(d, false).includes('Thank you'))"
        ),
        REACTION_MS,
    )
    if not ok:
        return 'submitting with Enter on "Send enquiry" shows no "Thank you" message'
    return None
