"""Regenerate the mutant patches from the reference: one realistic defect per check.

    .venv/bin/python benchmark/tasks/atlas-rooms/mutants/generate.py

Each mutant is a list of exact (file, old text, new text) edits on the materialised reference;
the patch `<check-id>.patch` (or `<check-id>--<variant>.patch` for a check's further mutants) is
the unified diff, headed by a one-line description and, when the defect is severe enough to fail
gates, an `# expect-gates: ...` line (see `GATES`). Rerun this whenever the reference changes (it
fails loudly when an edit no longer applies).
"""

from __future__ import annotations

import difflib
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

# check id -> (description, [(path, old, new), ...])
MUTANTS: dict[str, tuple[str, list[tuple[str, str, str]]]] = {
    "catalogue-listing": (
        "Card titles longer than 60 characters are cut short with an ellipsis in the link text.",
        [
            (
                "src/components/VenueCard.tsx",
                "            {venue.name}\n",
                "            {venue.name.length > 60 ? "
                "`${venue.name.slice(0, 57)}…` : venue.name}\n",
            )
        ],
    ),
    "filter-journey": (
        'The results count is no longer a live region (role="status" dropped).',
        [
            (
                "src/pages/CataloguePage.tsx",
                '<p className="results__count" role="status">',
                '<p className="results__count">',
            )
        ],
    ),
    "filter-journey--area-display-name": (
        "Areas are matched by their display name made into a slug (lower case, dashes), not by "
        "the area slug: every area with a non-ASCII name shows no venue.",
        [
            (
                "src/lib/filters.ts",
                "  if (filters.area && venue.area !== filters.area) return false;",
                "  const areaKey = venue.areaName.toLowerCase().replace(/\\s+/g, '-');\n"
                "  if (filters.area && areaKey !== filters.area) return false;",
            )
        ],
    ),
    "filter-journey--warehouse-unwired": (
        "The Warehouse checkbox is not wired into the results: checking it filters nothing "
        "(the checkbox and the URL still say warehouse).",
        [
            (
                "src/lib/filters.ts",
                "  if (filters.types.length > 0 && !filters.types.includes(venue.type))"
                " return false;",
                "  const types: readonly string[] = "
                "filters.types.filter((t) => t !== 'warehouse');\n"
                "  if (types.length > 0 && !types.includes(venue.type)) return false;",
            )
        ],
    ),
    "url-state": (
        "Choosing an area replaces the history entry instead of pushing one.",
        [
            (
                "src/pages/CataloguePage.tsx",
                "onChange={(event) => commit({ ...active, area: event.currentTarget.value })}",
                "onChange={(event) =>\n                  navigate(`/venues${filtersToSearch({ "
                "...active, area: "
                "event.currentTarget.value })}`, { replace: true })\n                }",
            )
        ],
    ),
    "mobile-nav--partial-band": (
        "The Menu button is hidden again from 600 px (a second, mismatched breakpoint) while the "
        "links stay folded away below 768 px: from 600 to 767 px the nav links cannot be reached.",
        [
            (
                "src/styles/site.css",
                "@media (max-width: 767.98px) and (prefers-reduced-motion: no-preference) {",
                "@media (min-width: 600px) and (max-width: 767.98px) {\n"
                "  .menu-button {\n"
                "    display: none;\n"
                "  }\n"
                "}\n\n"
                "@media (max-width: 767.98px) and (prefers-reduced-motion: no-preference) {",
            )
        ],
    ),
    "url-state--stale-area": (
        "The Area select keeps its own copy of the choice, set when the page mounts, on a "
        "change and by Clear filters but not from the URL: after Back or Forward it shows a "
        "stale area beside the URL's results.",
        [
            (
                "src/pages/CataloguePage.tsx",
                "  const committed = useMemo(() => parseFilters(search), [search]);\n",
                "  const committed = useMemo(() => parseFilters(search), [search]);\n"
                "  const [areaShown, setAreaShown] = useState(committed.area);\n",
            ),
            (
                "src/pages/CataloguePage.tsx",
                "  function clearFilters() {\n    setGuestsDraft('');\n",
                "  function clearFilters() {\n    setGuestsDraft('');\n    setAreaShown('');\n",
            ),
            (
                "src/pages/CataloguePage.tsx",
                "                value={active.area}\n"
                "                onChange={(event) => commit({ ...active, area: "
                "event.currentTarget.value })}\n",
                "                value={areaShown}\n"
                "                onChange={(event) => {\n"
                "                  setAreaShown(event.currentTarget.value);\n"
                "                  commit({ ...active, area: event.currentTarget.value });\n"
                "                }}\n",
            ),
        ],
    ),
    "venue-detail": (
        "The venue facts list drops its Price term.",
        [("src/pages/VenuePage.tsx", "<dt>Price</dt>", "<dt>Cost</dt>")],
    ),
    "enquiry-form": (
        "The email check accepts an address without a top-level domain (ana@example).",
        [
            (
                "src/lib/enquiry.ts",
                r"const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;",
                r"const EMAIL = /^[^\s@]+@[^\s@]+$/;",
            )
        ],
    ),
    "enquiry-form--accepts-zero-guests": (
        "The guests rule's lower bound is 0, not 1: an enquiry for 0 guests is accepted and "
        "thanked (a valid enquiry still succeeds).",
        [("src/lib/enquiry.ts", "if (n < 1 || n > capacity)", "if (n < 0 || n > capacity)")],
    ),
    "no-overflow": (
        "Below 400 px the footer grid keeps a 400 px minimum width (overflow at 360 only).",
        [
            (
                "src/styles/site.css",
                "/* ---------- Venue grid & cards ---------- */",
                "@media (max-width: 399.98px) {\n  .site-footer__grid {\n"
                "    min-width: 400px;\n  }\n}\n\n"
                "/* ---------- Venue grid & cards ---------- */",
            )
        ],
    ),
    "responsive-layout": (
        "The two-column card grid only starts at 1024 px (one column at 768).",
        [
            (
                "src/styles/site.css",
                "@media (min-width: 640px) {\n  .venue-grid {",
                "@media (min-width: 1024px) {\n  .venue-grid {",
            )
        ],
    ),
    "long-copy": (
        "The venue title is kept on one line and cut with an ellipsis.",
        [
            (
                "src/styles/site.css",
                "  overflow-wrap: anywhere;\n  hyphens: auto;\n}",
                "  overflow-wrap: anywhere;\n  hyphens: auto;\n  white-space: nowrap;\n"
                "  overflow: hidden;\n  text-overflow: ellipsis;\n}",
            )
        ],
    ),
    "media-fallback": (
        "Catalogue cards render the image directly, without the placeholder fallback.",
        [
            (
                "src/components/VenueCard.tsx",
                '      <VenueMedia venue={venue} className="venue-card__media" />',
                '      <img className="venue-media venue-card__media" '
                "src={venue.image ?? undefined} "
                'alt="" width={1200} height={800} />',
            ),
            ("src/components/VenueCard.tsx", "import { VenueMedia } from './VenueMedia';\n", ""),
        ],
    ),
    "mobile-nav": (
        "The Menu button no longer exposes aria-expanded.",
        [("src/components/SiteHeader.tsx", "            aria-expanded={menuOpen}\n", "")],
    ),
    "keyboard-focus": (
        "The global focus ring is removed (outline: none on :focus-visible).",
        [
            (
                "src/styles/base.css",
                ":focus-visible {\n  outline: 3px solid var(--color-focus);\n"
                "  outline-offset: 3px;\n}",
                ":focus-visible {\n  outline: none;\n}",
            )
        ],
    ),
    "dialog-focus": (
        "The dialog's focus trap only handles Shift+Tab: Tab from the last control leaves it.",
        [
            (
                "src/components/EnquiryDialog.tsx",
                "    if (event.key !== 'Tab') return;\n",
                "    if (event.key !== 'Tab' || !event.shiftKey) return;\n",
            )
        ],
    ),
    "semantics": (
        "The site footer is a plain div (no contentinfo landmark).",
        [
            (
                "src/components/SiteFooter.tsx",
                '<footer className="site-footer">',
                '<div className="site-footer">',
            ),
            ("src/components/SiteFooter.tsx", "</footer>", "</div>"),
        ],
    ),
    "reduced-motion": (
        "The prefers-reduced-motion: reduce rule is removed and the entrance motion is no longer "
        "gated on no-preference.",
        [
            (
                "src/styles/site.css",
                "/* Reduced motion: nothing animates or transitions, anywhere "
                "(load, menu, dialog). */\n"
                "@media (prefers-reduced-motion: reduce) {\n  *,\n  *::before,\n  *::after,\n"
                "  dialog::backdrop {\n    animation: none !important;\n"
                "    transition: none !important;\n    scroll-behavior: auto !important;\n  }\n}\n",
                "",
            ),
            (
                "src/styles/site.css",
                "@media (prefers-reduced-motion: no-preference) {\n  .site-main > * {",
                "@media all {\n  .site-main > * {",
            ),
        ],
    ),
    "reduced-motion--long-entrance": (
        "The entrance animation lasts 1.5 s (the contract allows at most 1 s); reduced motion "
        "still turns it off.",
        [("src/styles/tokens.css", "--duration-enter: 560ms;", "--duration-enter: 1500ms;")],
    ),
    "axe": (
        "The secondary text colour is lightened to a failing contrast (#a3a7b3 on paper).",
        [("src/styles/tokens.css", "--color-ink-soft: #4a4f5e;", "--color-ink-soft: #a3a7b3;")],
    ),
}


# mutant -> the gates it must fail besides losing its check (none when absent): a journey the
# visitor cannot complete fails core-journey; more than 16 px of overflow and serious axe
# violations fail their gates.
GATES: dict[str, list[str]] = {
    "filter-journey--area-display-name": ["core-journey"],
    "filter-journey--warehouse-unwired": ["core-journey"],
    "no-overflow": ["horizontal-overflow"],
    "axe": ["axe-serious"],
}


def build_patch(reference: Path, check: str) -> str:
    description, edits = MUTANTS[check]
    changed: dict[str, str] = {}
    for rel, old, new in edits:
        text = changed.get(rel, (reference / rel).read_text(encoding="utf-8"))
        if text.count(old) != 1:
            found = text.count(old)
            raise SystemExit(f"{check}: {rel}: expected exactly one {old!r}, found {found}")
        changed[rel] = text.replace(old, new)
    out = [f"# {check}: {description}\n"]
    if GATES.get(check):
        out.append(f"# expect-gates: {', '.join(GATES[check])}\n")
    for rel, text in changed.items():
        before = (reference / rel).read_text(encoding="utf-8").splitlines(keepends=True)
        out += difflib.unified_diff(before, text.splitlines(keepends=True), f"a/{rel}", f"b/{rel}")
    return "".join(out)


def main() -> int:
    from evaluator.controls.materialize import materialize_reference  # type: ignore[import-not-found,unused-ignore]
    from records.task import load_task

    with tempfile.TemporaryDirectory() as tmp:
        reference = Path(tmp) / "reference"
        materialize_reference(load_task(HERE.parent.name), reference)
        for check in MUTANTS:
            (HERE / f"{check}.patch").write_text(build_patch(reference, check), encoding="utf-8")
            print(f"wrote {check}.patch")
    return 0


if __name__ == "__main__":
    sys.exit(main())
