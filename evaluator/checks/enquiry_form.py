"""enquiry-form (core journey "enquiry"): on a venue page "Enquire about this venue" opens a
role="dialog" with aria-modal="true" named "Enquire about <venue name>", holding the labelled
fields (Name, Email, Event date as type=date, Guests as a number, Message, the consent checkbox)
in a noValidate form. Submitting validates: required fields, an email like local@domain.tld, a
date after today, guests an integer from 1 to the venue's capacity (each rule on both sides of its
boundary: today/tomorrow, 0/1, capacity/capacity+1, 2.5, an address without its local part or
its top-level domain); each invalid field gets
aria-invalid="true" and aria-describedby naming a visible error text, valid fields do not, and
focus moves to the first invalid field. A valid submission shows "Thank you" and the venue name
inside the dialog without sending anything over the network."""

from __future__ import annotations

from playwright.sync_api import Locator, Request

from evaluator.browser import READER_TEXT_JS, reader_text, wait_quiet
from evaluator.checks._dialog import (
    Fields,
    clear_of_midnight,
    find_fields,
    open_dialog,
    tomorrow_iso,
)
from evaluator.checks._waits import ACTION_MS
from evaluator.checks.base import CheckContext, wait_until
from evaluator.checks.spec import Check, Tested

FIELD_JS = (
    """
(el) => {
  const read = ("""
    + READER_TEXT_JS
    + """);
  const ids = (el.getAttribute('aria-describedby') || '').split(/\\s+/).filter(Boolean);
  const texts = ids.map(id => {
    const d = document.getElementById(id);
    if (!d) return null;
    const s = getComputedStyle(d);
    const shown = d.getClientRects().length > 0 && s.visibility !== 'hidden'
      && s.display !== 'none';
    return { text: read(d, false), shown };
  });
  return { invalid: el.getAttribute('aria-invalid'), described: texts,
           focused: el === document.activeElement };
}
"""
)
# Whether an open dialog reads (`READER_TEXT_JS`: text-transform or a drop cap change nothing)
# "Thank you" and the venue's name.
THANKS_JS = (
    "(name) => [...document.querySelectorAll('[role=dialog], dialog[open]')].some(d => {"
    " const text = (" + READER_TEXT_JS + ")(d, false);"
    " return text.includes('Thank you') && text.includes(name); })"
)

FOCUS_WAIT_MS = 3000


def _accepted(ctx: CheckContext, fields: Fields, venue_name: str) -> bool:
    """Whether the form took the submission: the success message shows, or the form is gone."""
    return bool(ctx.page.evaluate(THANKS_JS, venue_name)) or not ctx.is_visible(fields.submit)


def _submit_and_judge(
    ctx: CheckContext, fields: Fields, step: str, invalid: list[str], venue_name: str
) -> bool:
    """Submit an invalid form and judge what the fields say; False when the app accepted it
    (that boundary's failure: the dialog is then in an unknown state)."""
    fields.submit.click(timeout=ACTION_MS)
    wait_quiet(ctx.page, 150)
    if _accepted(ctx, fields, venue_name):
        ctx.problem(
            f"{step}: the form refuses the submission (invalid: {', '.join(invalid)})",
            "it was accepted: the success message shows or the form is gone",
            "role=dialog",
        )
        return False
    first_invalid = None
    for label, loc in fields.in_order():
        info = loc.evaluate(FIELD_JS)
        should = label in invalid
        if should:
            first_invalid = first_invalid or label
            if info["invalid"] != "true":
                ctx.problem(
                    f'{step}: "{label}" has aria-invalid="true"',
                    f"aria-invalid={info['invalid']!r}",
                    f'label="{label}"',
                )
            elif not any(d and d["shown"] and d["text"] for d in info["described"]):
                ctx.problem(
                    f'{step}: "{label}" has aria-describedby naming a visible error text',
                    f"aria-describedby targets: {info['described'] or 'none'}",
                    f'label="{label}"',
                )
        elif info["invalid"] == "true":
            ctx.problem(
                f'{step}: the valid field "{label}" is not aria-invalid',
                'aria-invalid="true"',
                f'label="{label}"',
            )
    if first_invalid:
        # Focus may move in the submit handler, a microtask or a frame later: wait for it to
        # arrive (a generous ceiling, spent only when it never does).
        loc = dict(fields.in_order())[first_invalid]
        if not wait_until(ctx.page, lambda: ctx.active_is(loc), FOCUS_WAIT_MS):
            ctx.problem(
                f'{step}: focus moves to the first invalid field "{first_invalid}"',
                f"focus is on {ctx.active_description()}",
                f'label="{first_invalid}"',
            )
    return True


def _fill(fields: Fields, values: dict[str, str | bool]) -> None:
    mapping: dict[str, Locator] = {
        "Name": fields.name,
        "Email": fields.email,
        "Event date": fields.date,
        "Guests": fields.guests,
        "Message": fields.message,
    }
    for label, value in values.items():
        if label == "consent":
            fields.consent.set_checked(bool(value), timeout=ACTION_MS)
        else:
            mapping[label].fill(str(value), timeout=ACTION_MS)


EMPTY: dict[str, str | bool] = {
    "Name": "",
    "Email": "",
    "Event date": "",
    "Guests": "",
    "Message": "",
    "consent": False,
}
VALID: dict[str, str | bool] = {
    "Name": "Ana Costa",
    "Email": "a@b.co",
    "Message": "A long table for a birthday lunch.",
    "consent": True,
}
"""A valid enquiry but for its date and guests (filled per venue and per day)."""


def boundaries(
    ctx: CheckContext, capacity: int
) -> list[tuple[str, dict[str, str | bool], list[str]]]:
    """Each validation rule on both sides of its boundary: (step, every field's value, the
    fields that must be invalid)."""
    today, tomorrow = tomorrow_iso(ctx, 0), tomorrow_iso(ctx, 1)
    valid = VALID | {"Event date": tomorrow, "Guests": "1"}
    return [
        (
            "submitting the empty form",
            EMPTY,
            ["Name", "Email", "Event date", "Guests", "I agree to be contacted"],
        ),
        (
            f"email 'ana@example', date today, guests {capacity + 1}",
            valid | {"Email": "ana@example", "Event date": today, "Guests": str(capacity + 1)},
            ["Email", "Event date", "Guests"],
        ),
        ("guests 2.5", valid | {"Guests": "2.5"}, ["Guests"]),
        ("guests 0", valid | {"Guests": "0"}, ["Guests"]),
        # Each rule's other side: 1 guest is valid, an address needs its local part.
        ("guests 1, email '@example.com'", valid | {"Email": "@example.com"}, ["Email"]),
        (
            f"guests {capacity}, consent unchecked",
            valid | {"Guests": str(capacity), "consent": False},
            ["I agree to be contacted"],
        ),
    ]


def _reopen(ctx: CheckContext, path: str, critical: bool = False) -> tuple[Locator, Fields]:
    """The dialog in a known state again: the venue page reloaded, the dialog opened afresh."""
    ctx.goto(path, width=1440)
    dialog = open_dialog(ctx, critical=critical)
    return dialog, find_fields(ctx, dialog, critical=critical)


def run(ctx: CheckContext) -> None:
    venue = ctx.data.ordinary
    page = ctx.page
    ctx.goto(venue.path, width=1440)
    dialog = open_dialog(ctx, critical=True)
    if (
        dialog.get_attribute("aria-modal") != "true"
        and dialog.evaluate("d => d.tagName") != "DIALOG"
    ):
        ctx.problem(
            'the dialog has aria-modal="true"',
            f"aria-modal={dialog.get_attribute('aria-modal')!r}",
            "role=dialog",
        )
    elif dialog.get_attribute("aria-modal") != "true":
        ctx.problem(
            'the dialog has aria-modal="true"', "a <dialog> without aria-modal", "role=dialog"
        )
    title = f"Enquire about {venue.name}"
    if page.get_by_role("dialog", name=title, exact=True).count() != 1:
        name = dialog.evaluate(
            "d => d.getAttribute('aria-label') || (d.getAttribute('aria-labelledby') || '')"
            ".split(/\\s+/).map(id => (document.getElementById(id) || {}).textContent || '')"
            ".join(' ')"
        )
        ctx.problem(f'the dialog\'s accessible name is "{title}"', f"name: {name!r}", "role=dialog")
    fields = find_fields(ctx, dialog, critical=True)
    kinds = {
        "Event date": (fields.date, "date"),
        "Guests": (fields.guests, "number"),
    }
    for label, (loc, kind) in kinds.items():
        got = loc.evaluate("e => e.type")
        if got != kind:
            ctx.problem(f'"{label}" is an input type="{kind}"', f'type="{got}"', f'label="{label}"')
    if not fields.name.evaluate("e => !!(e.form && e.form.noValidate)"):
        ctx.problem("the form uses noValidate", "form.noValidate is false (or no form)", "form")

    # Each validation boundary from a known state: every field filled afresh and, when an
    # earlier step left the dialog elsewhere (an invalid value accepted, a step that timed out),
    # the page reloaded and the dialog reopened. A boundary's failure is that step's alone: the
    # valid enquiry below is still tried.
    clear_of_midnight(ctx)  # today and tomorrow below stay the app's today and tomorrow
    known = True
    for step, values, invalid in boundaries(ctx, venue.capacity):
        with ctx.side_step(step) as side:
            if not known:
                dialog, fields = _reopen(ctx, venue.path)
            _fill(fields, values)
            known = _submit_and_judge(ctx, fields, step, invalid, venue.name)
        known = known and not side.failed

    # The journey's own step: a valid enquiry ends in the success message.
    if not known:
        dialog, fields = _reopen(ctx, venue.path, critical=True)
    _fill(fields, VALID | {"Event date": tomorrow_iso(ctx, 1), "Guests": str(venue.capacity)})
    sent: list[str] = []

    def on_request(request: Request) -> None:
        if request.method != "GET" or request.resource_type in (
            "fetch",
            "xhr",
            "websocket",
            "eventsource",
            "ping",
        ):
            sent.append(f"{request.method} {request.url}")

    page.on("request", on_request)
    try:
        fields.submit.click(timeout=ACTION_MS)
        ok = wait_until(
            page,
            lambda: page.evaluate(THANKS_JS, venue.name),
            2000,
        )
    finally:
        page.remove_listener("request", on_request)
    if not ok:
        shown = reader_text(dialog)[:200] if dialog.count() else "(dialog gone)"
        ctx.problem(
            f'a valid submission shows "Thank you" and "{venue.name}" inside the dialog',
            f"dialog text: {shown!r}",
            "role=dialog",
            critical=True,
        )
    if sent:
        ctx.problem(
            "nothing is sent over the network on submit", f"requests: {sent[:3]}", "network"
        )


CHECK = Check(
    id="enquiry-form",
    dimension="functional",
    points=5,
    run=run,
    doc=__doc__ or "",
    clauses=[
        "detail.enquire",
        "dialog.role",
        "dialog.fields",
        "dialog.buttons",
        "dialog.novalidate",
        "dialog.validation",
        "dialog.invalid",
        "dialog.first-invalid",
        "dialog.success",
        "gate.journey-critical",
    ],
    tested=[
        Tested(
            "dialog.validation",
            "required field",
            ("Name", "Email", "Event date", "Guests", "consent"),
            "The empty form (all five), then the consent alone unchecked.",
        ),
        Tested(
            "dialog.validation",
            "email",
            ("local@domain.tld", "no local part", "no top-level domain"),
            "ana@example, @example.com, a@b.co.",
        ),
        Tested("dialog.validation", "event date", ("today", "tomorrow")),
        Tested(
            "dialog.validation",
            "guests",
            ("0", "1", "capacity", "capacity + 1", "a fraction"),
            "2.5 for a fraction; every boundary from a freshly filled form.",
        ),
    ],
    journey="enquiry",
    journey_critical="the dialog opens and a valid enquiry is sent, ending in the success message",
)
