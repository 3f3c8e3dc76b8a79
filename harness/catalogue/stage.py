"""The round's catalogue stage (`doit catalogue`), before anything is spent.

    catalogue_stage(rnd) -> bool

Checks the cohort against the round's own gateway catalogue (live OpenRouter for a real round, the
round's simulator for a demo or rehearsal), prints the table, and writes the report to
`evidence/<round>/catalogue.json`. Route mismatches are reported and left to the preflight, which
records those routes as not testable (class `catalogue`) through the same check. An input mismatch
(the cohort file contradicts the catalogue, e.g. a reasoning policy) fails the stage: fix the cohort
before the round is frozen. So does a tools arm whose image route the catalogue does not list with
image output: that arm could not make an image.

`price_lines(rnd)` is what the spend announcement says about prices, from that report.
"""

from __future__ import annotations

from harness.catalogue.check import OPENCODE_MAX_TOKENS, check_cohort, render_table
from harness.catalogue.live import LiveCatalogueUnavailable, fetch_live_catalogue
from records.evidence.catalogue import CatalogueReport
from records.io import move_to_history, read_record, write_record
from records.round import Round


def catalogue_stage(rnd: Round) -> bool:
    settings, cohort, round_id = rnd.settings, rnd.cohort, rnd.id
    try:
        catalogue = fetch_live_catalogue(settings)
    except LiveCatalogueUnavailable as exc:
        print(f"catalogue check of round {round_id!r}: {exc}")
        return False
    report = check_cohort(
        cohort, catalogue, round_id=round_id, cohort_path=settings.cohort_path, arms=rnd.arms
    )
    paths = rnd.paths
    kept = move_to_history([paths.catalogue], paths.history)  # write-once: never replaced
    if kept is not None:
        print(f"catalogue: the earlier catalogue check is kept in {kept}")
    write_record(paths.catalogue, report)
    print(render_table(report), end="")
    inputs = [m for m in report.mismatches if m.kind == "input"]
    images = [m for m in report.mismatches if m.field == "image_route"]
    routes = [m for m in report.mismatches if m.kind != "input" and m not in images]
    if routes:
        print(
            f"{len(routes)} route(s) failing the catalogue gate (mismatched or disclosed): the "
            "preflight records them as not testable (catalogue); they are never replaced"
        )
    if inputs:
        print(
            f"refused: {len(inputs)} input mismatch(es) in {settings.cohort}: fix the cohort file "
            "(it is not frozen while no unit is scored) and run again"
        )
    if images:
        arms = ", ".join(m.key for m in images)
        print(
            f"refused: the image route of the tools arm(s) {arms} is not an image-output route "
            "of the gateway's catalogue: fix the arm's tool.route (or the round's arms) and run "
            "again; nothing was spent"
        )
    return not inputs and not images


def read_report(rnd: Round) -> CatalogueReport | None:
    path = rnd.paths.catalogue
    return read_record(path, CatalogueReport) if path.exists() else None


def price_lines(rnd: Round) -> list[str]:
    """Per route: the catalogue's prices and the credit one request reserves; empty without a
    report (the catalogue stage has not run)."""
    report = read_report(rnd)
    if report is None:
        return []
    lines = [
        f"prices from the {report.catalogue.kind} catalogue {report.catalogue.location} "
        f"(USD per million tokens; 'reserves' = OpenCode's max_tokens {OPENCODE_MAX_TOKENS} at "
        "the completion price, the credit the gateway holds per request):"
    ]
    width = max((len(r.key) for r in report.routes), default=0)
    dearest = 0.0
    for r in report.routes:
        if not r.present or r.prompt_usd_per_mtok is None or r.completion_usd_per_mtok is None:
            lines.append(f"  {r.key.ljust(width)}  {r.route}: not listed, nothing to spend")
            continue
        reserve = r.reservation_usd or 0.0
        dearest = max(dearest, reserve)
        lines.append(
            f"  {r.key.ljust(width)}  {r.route}: ${r.prompt_usd_per_mtok:.2f} in, "
            f"${r.completion_usd_per_mtok:.2f} out; reserves ${reserve:.2f} per request"
        )
    lines.append(
        f"the dearest route reserves ${dearest:.2f} per request: the key's remaining credit must "
        "stay above that until the last unit, or the gateway answers 402"
    )
    return lines
