"""Shared helpers for the enquiry dialog, found by role, name and label only."""

from __future__ import annotations

import re
from dataclasses import dataclass

from playwright.sync_api import Locator

from evaluator.checks._waits import ACTION_MS, REACTION_MS
from evaluator.checks.base import CheckContext, wait_until

ENQUIRE = "Enquire about this venue"
DIALOG_SELECTOR = '[role="dialog"], dialog[open]'


def enquire_button(ctx: CheckContext) -> Locator:
    return ctx.page.get_by_role("button", name=ENQUIRE, exact=True)


def any_dialog(ctx: CheckContext) -> Locator:
    return ctx.page.get_by_role("dialog")


def dialog_open(ctx: CheckContext) -> bool:
    dialogs = any_dialog(ctx)
    return any(dialogs.nth(i).is_visible() for i in range(dialogs.count()))


def open_dialog(ctx: CheckContext, keyboard: bool = False, critical: bool = False) -> Locator:
    """Activate the Enquire button (click, or focus + Enter) and return the visible dialog."""
    button = enquire_button(ctx)
    if button.count() == 0 or not button.first.is_visible():
        raise ctx.stop(
            f'a visible button "{ENQUIRE}"',
            "not found",
            f'role=button[name="{ENQUIRE}"]',
            critical=critical,
        )
    if keyboard:
        button.first.focus(timeout=ACTION_MS)
        ctx.page.keyboard.press("Enter")
    else:
        button.first.click(timeout=ACTION_MS)
    if not wait_until(ctx.page, lambda: dialog_open(ctx), REACTION_MS):
        raise ctx.stop(
            f'activating "{ENQUIRE}" opens a role="dialog"',
            "no visible dialog appeared",
            "role=dialog",
            critical=critical,
        )
    ctx.settle()
    dialogs = any_dialog(ctx)
    for i in range(dialogs.count()):
        if dialogs.nth(i).is_visible():
            return dialogs.nth(i)
    return dialogs.first


@dataclass
class Fields:
    name: Locator
    email: Locator
    date: Locator
    guests: Locator
    message: Locator
    consent: Locator
    submit: Locator
    close: Locator

    def required(self) -> dict[str, Locator]:
        return {
            "Name": self.name,
            "Email": self.email,
            "Event date": self.date,
            "Guests": self.guests,
            "I agree to be contacted": self.consent,
        }

    def in_order(self) -> list[tuple[str, Locator]]:
        return [
            ("Name", self.name),
            ("Email", self.email),
            ("Event date", self.date),
            ("Guests", self.guests),
            ("Message", self.message),
            ("I agree to be contacted", self.consent),
        ]


def find_fields(ctx: CheckContext, dialog: Locator, critical: bool = False) -> Fields:
    found: dict[str, Locator] = {}
    missing: list[str] = []
    for key, label in (
        ("name", "Name"),
        ("email", "Email"),
        ("date", "Event date"),
        ("guests", "Guests"),
        ("message", "Message"),
    ):
        loc = dialog.get_by_label(label, exact=True)
        if loc.count() != 1:
            loc = dialog.get_by_label(re.compile(rf"^\s*{re.escape(label)}\b"))
        if loc.count() == 0:
            missing.append(label)
        found[key] = loc.first
    consent = dialog.get_by_role("checkbox", name=re.compile("I agree to be contacted"))
    if consent.count() == 0:
        missing.append("checkbox 'I agree to be contacted'")
    submit = dialog.get_by_role("button", name="Send enquiry", exact=True)
    if submit.count() == 0:
        missing.append("button 'Send enquiry'")
    close = dialog.get_by_role("button", name="Close", exact=True)
    if close.count() == 0:
        missing.append("button 'Close'")
    if missing:
        raise ctx.stop(
            "the enquiry fields and buttons by label: Name, Email, Event date, Guests, "
            "Message, 'I agree to be contacted', 'Send enquiry', 'Close'",
            "missing: " + ", ".join(missing),
            "role=dialog >> label",
            # Without Message or Close an enquiry can still be sent.
            critical=critical and bool(set(missing) - {"Message", "button 'Close'"}),
        )
    return Fields(consent=consent.first, submit=submit.first, close=close.first, **found)


MIDNIGHT_MARGIN_S = 45
"""A check that judges "a date after today" starts at least this long before the page's midnight:
the sequence of submissions it judges takes seconds, and a midnight between the date it fills and
the app's own "today" would fail a correct app (tomorrow would have become today)."""


def clear_of_midnight(ctx: CheckContext, margin_s: float = MIDNIGHT_MARGIN_S) -> float:
    """Wait until the page's local midnight has passed when it is less than `margin_s` away
    (so every date the check fills and the app's "today" fall on one day); the seconds waited."""
    left: float = ctx.page.evaluate(
        "() => { const t = new Date(), m = new Date(t); m.setHours(24, 0, 0, 0);"
        " return (m - t) / 1000; }"
    )
    if left >= margin_s:
        return 0.0
    ctx.page.wait_for_timeout((left + 1) * 1000)
    return left + 1


def tomorrow_iso(ctx: CheckContext, days: int = 1) -> str:
    value: str = ctx.page.evaluate(
        "(d) => { const t = new Date(); t.setDate(t.getDate() + d);"
        " const p = (n) => String(n).padStart(2, '0');"
        " return `${t.getFullYear()}-${p(t.getMonth() + 1)}-${p(t.getDate())}`; }",
        days,
    )
    return value
