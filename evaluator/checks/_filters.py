"""Shared helpers for the catalogue filter controls, found by role, name and label only."""

from __future__ import annotations

import re
from dataclasses import dataclass

from playwright.sync_api import Locator

from evaluator.checks._waits import ACTION_MS
from evaluator.checks.base import (
    COUNT_TEXTS_JS,
    VENUE_LINKS_JS,
    CheckContext,
    CheckStopped,
    names,
    wait_until,
)
from evaluator.data import TYPE_LABELS


@dataclass
class Controls:
    types: dict[str, Locator]
    area: Locator
    guests: Locator


def labelled(ctx: CheckContext, label: str) -> Locator:
    """The control labelled `label`. A control nested in its <label> gets the label text plus
    its own value as accessible name ("Area All areas"), so a name starting with the label
    counts too."""
    exact = ctx.page.get_by_label(label, exact=True)
    if exact.count() == 1:
        return exact
    return ctx.page.get_by_label(re.compile(rf"^\s*{re.escape(label)}\b"))


def find_controls(ctx: CheckContext, critical: bool = False) -> Controls:
    """The three filters; raises CheckStopped (with a diagnostic, journey-critical when
    `critical`) when one is missing."""
    page = ctx.page
    group = page.get_by_role("group", name="Venue type", exact=True)
    if group.count() == 0:
        raise ctx.stop(
            'a fieldset (role "group") with the legend "Venue type"',
            "no such group on the page",
            'role=group[name="Venue type"]',
            critical=critical,
        )
    types: dict[str, Locator] = {}
    missing = []
    for slug, label in TYPE_LABELS.items():
        box = group.first.get_by_role("checkbox", name=label, exact=True)
        if box.count() != 1:
            missing.append(label)
        types[slug] = box.first
    if missing:
        raise ctx.stop(
            "one checkbox per venue type labelled " + ", ".join(TYPE_LABELS.values()),
            "missing or duplicated: " + ", ".join(missing),
            'role=group[name="Venue type"] >> role=checkbox',
            critical=critical,
        )
    area = labelled(ctx, "Area")
    if area.count() != 1 or area.first.evaluate("e => e.tagName") != "SELECT":
        raise ctx.stop(
            'one select labelled "Area"',
            f"{area.count()} controls labelled Area"
            + (f" ({area.first.evaluate('e => e.tagName.toLowerCase()')})" if area.count() else ""),
            'label="Area"',
            critical=critical,
        )
    guests = labelled(ctx, "Minimum guests")
    if guests.count() != 1 or guests.first.evaluate("e => e.type") != "number":
        raise ctx.stop(
            'one number input labelled "Minimum guests"',
            f"{guests.count()} controls labelled Minimum guests",
            'label="Minimum guests"',
            critical=critical,
        )
    return Controls(types=types, area=area.first, guests=guests.first)


def control_state(controls: Controls) -> dict[str, object]:
    return {
        "types": sorted(slug for slug, box in controls.types.items() if box.is_checked()),
        "area": controls.area.input_value(),
        "guests": controls.guests.input_value(),
    }


def set_guests(controls: Controls, value: str) -> None:
    """Type a value and commit it (the field's change event fires on blur)."""
    controls.guests.fill(value, timeout=ACTION_MS)
    controls.guests.blur()


# Polls (in the page) until the visible cards' link paths equal `want` or `maxMs` pass; then
# returns their paths and names with the texts of the polite live regions. A card is identified
# by where it links (`/venues/<slug>`), not by its text: the names' wording is
# catalogue-listing's business, so a shortened title never fails the filter journey too.
_POLL_RESULTS = (
    "const links = ("
    + VENUE_LINKS_JS
    + """);
  const counts = ("""
    + COUNT_TEXTS_JS
    + """);
  const same = (a) => a.length === want.length && a.every((l, i) => l.path === want[i]);
  const t0 = performance.now();
  let seen = links();
  while (!same(seen) && performance.now() - t0 < maxMs) {
    await new Promise(r => setTimeout(r, 25));
    seen = links();
  }
  return { paths: seen.map(l => l.path), names: seen.map(l => l.name), counts: counts() };"""
)
WAIT_RESULTS_JS = "async ([want, maxMs]) => {" + _POLL_RESULTS + "}"
# A click, or a committed value (what a selection or typing then leaving the field does: the
# value set, `input` and `change` fired), then the poll above.
ACT_THEN_WAIT_JS = (
    """async (el, [action, value, want, maxMs]) => {
  if (action === 'click') {
    el.click();
  } else {
    const proto = el instanceof HTMLSelectElement ? HTMLSelectElement.prototype
      : HTMLInputElement.prototype;
    Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, value);
    el.dispatchEvent(new Event('input', { bubbles: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
  }
  await new Promise(r => setTimeout(r, 0));
"""
    + _POLL_RESULTS
    + "}"
)


@dataclass(frozen=True)
class Results:
    """The visible venue cards after a change (link paths and names, in page order) and the
    texts of the polite live regions then."""

    paths: list[str]
    names: list[str]
    counts: list[str]


def venue_path(slug: str) -> str:
    return f"/venues/{slug}"


def wait_for_results(ctx: CheckContext, expected: list[str], timeout_ms: int = 3000) -> Results:
    """Wait (in the page, one round trip) until the visible cards link to `expected` (paths, in
    order); returns what was last seen."""
    got: dict[str, list[str]] = ctx.page.evaluate(WAIT_RESULTS_JS, [expected, timeout_ms])
    return Results(got["paths"], got["names"], got["counts"])


def act_then_results(
    control: Locator, value: str | None, expected: list[str], timeout_ms: int = 3000
) -> Results:
    """Click `control` (value None: its activation behaviour and events) or commit `value` to it
    (set, `input`, `change`) and wait for the results, all in one round trip: the sweeps' fast
    path, after the same control was first operated through Playwright's real input."""
    action = "click" if value is None else "commit"
    got: dict[str, list[str]] = control.evaluate(
        ACT_THEN_WAIT_JS, [action, value, expected, timeout_ms]
    )
    return Results(got["paths"], got["names"], got["counts"])


def wait_for_names(ctx: CheckContext, expected: list[str], timeout_ms: int = 3000) -> list[str]:
    """Wait until the visible venue card names equal `expected`; returns what was last seen."""
    seen: list[str] = []

    def probe() -> bool:
        nonlocal seen
        seen = names(ctx.venue_links())
        return seen == expected

    wait_until(ctx.page, probe, timeout_ms)
    return seen


def wait_for_path(ctx: CheckContext, predicate: object, timeout_ms: int = 2000) -> bool:
    return bool(wait_until(ctx.page, lambda: predicate(ctx.page.url), timeout_ms))  # type: ignore[operator]


__all__ = ["CheckStopped", "Controls", "control_state", "find_controls", "set_guests"]
