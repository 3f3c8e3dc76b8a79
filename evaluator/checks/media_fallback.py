"""media-fallback: every catalogue card shows its venue's local image (loaded, from the site's
own origin); a venue whose image is null or whose file is missing shows a designed placeholder
(a role="img" element with a name, an inline SVG or a loaded image) — never a broken-image icon;
no request leaves the site's origin."""

from __future__ import annotations

from evaluator.checks.base import FIND_CARD_JS, CheckContext, wait_until
from evaluator.checks.spec import Check, Tested

CARD_JS = (
    "(path) => {"
    + FIND_CARD_JS
    + """
  const card = findCard(path);
  if (!card) return null;
  card.scrollIntoView({ block: 'center' });
  const imgs = [...card.querySelectorAll('img')].map(i => ({
    src: i.getAttribute('src') ? new URL(i.currentSrc || i.src, location.href).pathname : '',
    origin: i.currentSrc ? new URL(i.currentSrc, location.href).origin === location.origin : true,
    complete: i.complete, natural: i.naturalWidth,
    shown: i.getClientRects().length > 0 && getComputedStyle(i).visibility !== 'hidden',
  }));
  const named = [...card.querySelectorAll('[role=img]')].filter(e => e.tagName !== 'IMG').some(e =>
    (e.getAttribute('aria-label') || e.getAttribute('aria-labelledby') || '').trim() &&
    e.getClientRects().length > 0);
  const svg = [...card.querySelectorAll('svg')].some(e => {
    const r = e.getBoundingClientRect(); return r.width >= 48 && r.height >= 48; });
  return { imgs, named, svg };
}"""
)


def run(ctx: CheckContext) -> None:
    page = ctx.page
    blocked_before = len(ctx.requests.blocked)
    ctx.goto("/venues", width=1440)
    for venue in ctx.data.venues:
        exists = False
        if venue.image:
            exists = page.evaluate(
                "async (u) => (await fetch(u, {method: 'HEAD'})).status === 200", venue.image
            )
        info = page.evaluate(CARD_JS, venue.path)
        if info is None:
            ctx.problem(f"a card for {venue.name}", "no card", "h2/h3 > link")
            continue
        wait_until(
            page,
            lambda p=venue.path: all(
                i["complete"] for i in page.evaluate(CARD_JS, p)["imgs"] if i["src"]
            ),
            3000,
        )
        info = page.evaluate(CARD_JS, venue.path)
        imgs = info["imgs"]
        broken = [
            i["src"]
            for i in imgs
            if i["src"] and i["shown"] and i["complete"] and i["natural"] == 0
        ]
        if broken:
            ctx.problem(
                f"no broken image in the card of {venue.name}", f"broken: {broken}", "card img"
            )
        if exists:
            if not any(i["src"] == venue.image and i["natural"] > 0 for i in imgs):
                ctx.problem(
                    f"the card of {venue.name} shows its image {venue.image}",
                    f"images: {[i['src'] for i in imgs] or 'none'}",
                    "card img",
                )
        else:
            loaded = any(i["natural"] > 0 and i["shown"] for i in imgs)
            if not (info["named"] or info["svg"] or loaded):
                why = "no image" if not venue.image else f"{venue.image} is missing"
                ctx.problem(
                    f"a designed placeholder in the card of {venue.name} ({why})",
                    "no role=img element with a name, no inline SVG, no loaded image",
                    "card media",
                )
    blocked = ctx.requests.blocked[blocked_before:]
    if blocked:
        ctx.problem(
            "no request leaves the site's origin", f"blocked requests: {blocked[:4]}", "network"
        )


CHECK = Check(
    id="media-fallback",
    dimension="responsive",
    points=4,
    run=run,
    doc=__doc__ or "",
    clauses=[
        "catalogue.media",
        "catalogue.origin",
        "business.edge-cases",
    ],
    tested=[
        Tested(
            "catalogue.media",
            "venue image",
            ("a local image", "a missing file", "no image"),
            "Every card of the catalogue.",
        )
    ],
)
