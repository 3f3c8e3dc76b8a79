"""venue-detail (core journey "detail"): following a card's link from `/venues` opens
`/venues/<slug>` whose single h1 is exactly the venue name, with a description list whose terms
are Type, Area, Capacity and Price (showing the venue's type, area and capacity), the full
description, the "Enquire about this venue" button and the venue's image with a non-empty alt;
a venue whose image is absent or missing shows a role="img" placeholder with a name and never a
broken image; the deep link of every venue shows its own name, facts, description and media;
unknown venues and unknown paths show a not-found page (an h1
containing "not found" and an "All venues" link to /venues)."""

from __future__ import annotations

from evaluator.browser import READER_TEXT_JS
from evaluator.checks._waits import ACTION_MS
from evaluator.checks.base import CheckContext, wait_until
from evaluator.checks.spec import Check, Tested
from evaluator.data import TYPE_LABELS, Venue

# What the page says, read as a reader reads it (`READER_TEXT_JS`): the h1s, the facts and main's
# text, where the facts and description are looked for; main's text leaves out what an
# overflow-hidden box cuts (a clamped description is not shown in full), the h1s do not (a clipped
# h1 is long-copy's).
PAGE_JS = (
    """
() => {
  const read = ("""
    + READER_TEXT_JS
    + """);
  const h1s = [...document.querySelectorAll('h1')].map(h => read(h, false));
  const facts = {};
  for (const dl of document.querySelectorAll('dl')) {
    for (const dt of dl.querySelectorAll('dt')) {
      let dd = dt.nextElementSibling;
      while (dd && dd.tagName !== 'DD' && dd.tagName !== 'DT') dd = dd.nextElementSibling;
      facts[read(dt, false)] = dd && dd.tagName === 'DD' ? read(dd, false) : null;
    }
  }
  const main = document.querySelector('main') || document.body;
  // Images inside another venue's card (e.g. "more venues") belong to the catalogue checks.
  const here = location.pathname.replace(/\\/+$/, '');
  const otherCard = (el) => {
    for (let a = el.parentElement; a && a !== main; a = a.parentElement) {
      const links = a.querySelectorAll('h2 a[href], h3 a[href]');
      if ([...links].some(l => {
        const p = new URL(l.href, location.href).pathname.replace(/\\/+$/, '');
        return /^\\/venues\\/[^/]+$/.test(p) && p !== here;
      })) return true;
    }
    return false;
  };
  const imgs = [...main.querySelectorAll('img')].filter(i => !otherCard(i)).map(i => ({
    src: new URL(i.currentSrc || i.src || '', location.href).pathname, complete: i.complete,
    natural: i.naturalWidth, alt: i.getAttribute('alt'),
    hasSrc: !!(i.getAttribute('src') || i.currentSrc),
  }));
  return { h1s, facts, text: read(main, true), imgs };
}
"""
)


def _norm(text: str) -> str:
    return " ".join(text.split())


def _placeholder(ctx: CheckContext) -> bool:
    """A role="img" element with an accessible name inside main."""
    main = ctx.page.get_by_role("main")
    candidates = main.get_by_role("img")
    for i in range(candidates.count()):
        item = candidates.nth(i)
        tag = item.evaluate("e => e.tagName")
        if tag == "IMG":
            continue
        label = item.evaluate(
            "e => (e.getAttribute('aria-label') || (e.getAttribute('aria-labelledby') || '')"
            ".split(/\\s+/).map(id => (document.getElementById(id) || {}).textContent || '')"
            ".join(' ')).trim()"
        )
        if label and item.is_visible():
            return True
    return False


def _check_page(ctx: CheckContext, venue: Venue, image_exists: bool) -> None:
    wait_until(
        ctx.page,
        lambda: ctx.page.evaluate("() => [...document.images].every(i => i.complete)"),
        2000,
    )
    info = ctx.page.evaluate(PAGE_JS)
    if info["h1s"] != [venue.name]:
        raise ctx.stop(
            f'one h1 reading exactly "{venue.name}"', f"h1s: {info['h1s']}", "h1", critical=True
        )
    # Journey-critical: the visitor can read the venue's facts at all (however they are marked up).
    text: str = info["text"]
    unseen = [
        f"{label} {value!r}"
        for label, value in (
            ("type", TYPE_LABELS[venue.type]),
            ("area", venue.area_name),
            ("capacity", str(venue.capacity)),
        )
        if value.lower() not in text.lower()
    ]
    if unseen:
        ctx.problem(
            f"the page of {venue.name} shows its type, area and capacity",
            "not in main: " + ", ".join(unseen),
            "main",
            critical=True,
        )
    facts: dict[str, str | None] = info["facts"]
    missing = [t for t in ("Type", "Area", "Capacity", "Price") if t not in facts]
    if missing:
        ctx.problem(
            "a description list with the terms Type, Area, Capacity and Price",
            f"terms found: {list(facts) or 'none'}",
            "dl > dt",
        )
    else:
        wrong = []
        if TYPE_LABELS[venue.type].lower() not in (facts["Type"] or "").lower():
            wrong.append(f"Type={facts['Type']!r} (want {TYPE_LABELS[venue.type]})")
        if venue.area_name not in (facts["Area"] or ""):
            wrong.append(f"Area={facts['Area']!r} (want {venue.area_name})")
        if str(venue.capacity) not in (facts["Capacity"] or ""):
            wrong.append(f"Capacity={facts['Capacity']!r} (want {venue.capacity})")
        if not (facts["Price"] or "").strip():
            wrong.append("Price is empty")
        if wrong:
            ctx.problem("the facts show the venue's values", "; ".join(wrong), "dl > dd")
    if _norm(venue.description) not in text:
        ctx.problem(
            "the full description text in main",
            f"description not found in full (first words: {venue.description[:50]!r})",
            "main",
            critical=True,
        )
    button = ctx.page.get_by_role("button", name="Enquire about this venue", exact=True)
    if not ctx.is_visible(button):
        ctx.problem(
            'a visible button "Enquire about this venue"',
            "not found",
            'role=button[name="Enquire about this venue"]',
        )
    broken = [i["src"] for i in info["imgs"] if i["hasSrc"] and i["complete"] and i["natural"] == 0]
    if broken:
        ctx.problem("no broken image on the detail page", f"broken: {broken}", "main img")
    if image_exists and venue.image:
        shown = [i for i in info["imgs"] if i["src"] == venue.image and i["natural"] > 0]
        if not shown:
            ctx.problem(f"the venue image {venue.image} loaded", "not shown", "main img")
        elif not any((i["alt"] or "").strip() for i in shown):
            ctx.problem(
                "the venue image has a non-empty alt", "alt is empty or missing", "main img"
            )
    elif not _placeholder(ctx):
        ctx.problem(
            'a placeholder: an element with role="img" and an accessible name',
            "none (image " + ("absent" if not venue.image else f"{venue.image} missing") + ")",
            "main role=img",
        )


def _image_exists(ctx: CheckContext, venue: Venue) -> bool:
    if not venue.image:
        return False
    status: int = ctx.page.evaluate(
        "async (u) => (await fetch(u, { method: 'HEAD' })).status", venue.image
    )
    return status == 200


def run(ctx: CheckContext) -> None:
    data = ctx.data
    venue = data.ordinary
    page = ctx.page
    ctx.goto("/venues", width=1440)
    link = page.get_by_role("heading").get_by_role("link", name=venue.name, exact=True)
    if link.count() == 0:
        raise ctx.stop(
            f'a card link named "{venue.name}" on /venues',
            "not found",
            f'heading >> role=link[name="{venue.name}"]',
            critical=True,
        )
    link.first.click(timeout=ACTION_MS)
    if not wait_until(page, lambda: ctx.path().rstrip("/") == venue.path, 3000):
        raise ctx.stop(
            f"following the card link opens {venue.path}",
            f"URL is {ctx.path()}",
            "location",
            critical=True,
        )
    ctx.settle()
    _check_page(ctx, venue, image_exists=True)

    # Every other venue by deep link, the designed edge cases included (the longest name and
    # description, non-ASCII names, an absent and a missing image), off the journey's recording.
    with ctx.off_the_record() as side:
        for other in data.venues:
            if other.slug != venue.slug:
                side.goto(other.path)
                exists = bool(other.image) and _image_exists(side, other)
                _check_page(side, other, image_exists=exists)
        # Beside the detail journey: a not-found page that times out fails this step alone.
        with side.side_step("the not-found pages"):
            _check_not_found(side)


def _check_not_found(ctx: CheckContext) -> None:
    page = ctx.page
    for path in ("/venues/no-such-venue", "/no-such-page"):
        ctx.goto(path)
        h1s = page.evaluate("() => [...document.querySelectorAll('h1')].map(h => h.textContent)")
        if len(h1s) != 1 or "not found" not in h1s[0].lower():
            ctx.problem('a not-found page: one h1 containing "not found"', f"h1s: {h1s}", "h1")
        back = page.get_by_role("link", name="All venues", exact=True)
        hrefs = [back.nth(i).get_attribute("href") or "" for i in range(back.count())]
        if not any(h.split("?")[0].rstrip("/").endswith("/venues") for h in hrefs):
            ctx.problem(
                'a link "All venues" to /venues',
                f"links named All venues: {hrefs}",
                'role=link[name="All venues"]',
            )


CHECK = Check(
    id="venue-detail",
    dimension="functional",
    points=5,
    run=run,
    doc=__doc__ or "",
    clauses=[
        "route.detail",
        "route.not-found",
        "detail.h1",
        "detail.media",
        "detail.facts",
        "detail.description",
        "detail.enquire",
        "business.edge-cases",
        "gate.journey-critical",
    ],
    tested=[
        Tested(
            "route.not-found",
            "path",
            ("/venues/<unknown>", "any unknown path"),
            "/venues/no-such-venue and /no-such-page.",
        )
    ],
    journey="detail",
    journey_critical="a card's link opens that venue's page with its name, facts and description",
)
