"""The site of an intervention round, built from the demo intervention round's real evidence.

`demo_build(..., round_id="demo-intervention")` runs the round by its own command
(`scripts/demo-round` with SITEOS_ROUND=demo-intervention: four scripted models, each with each
of the five agents, real sessions, evaluations and scoring; full tier); the site is rendered
from a copy of it. Every number the "Agents compared" page shows is checked against the round's
intervention.json and leaderboard.json, never against values written here; then the page, the
leaderboard, the overview, the cohort page and a unit page are judged in Chromium at 360, 768 and
1440 px by the site audit (tests/site_audit.py).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from browser_support import require_browser
from demo_build import demo_build
from site_fixture import copy_evidence
from test_site_render import LEAKS, text, visible

from publish.render import render_site
from records.evidence.round import PreflightRecord
from records.evidence.scoring import InterventionBoard, Leaderboard
from records.hashing import file_sha256
from records.io import RecordError, read_record, write_record
from records.layout import REPO_ROOT, round_paths
from records.round import Round
from sandbox.netns import loopback_netns_argv

pytestmark = [
    pytest.mark.slow,
    pytest.mark.opencode,
    pytest.mark.agent_cli,
    pytest.mark.browser,
    pytest.mark.full,
]
ROUND = "demo-intervention"
AUDIT = Path(__file__).with_name("site_audit.py")
AUDITED = ("agents", "leaderboard", "index", "cohort")
LABELS = {  # the demo's agents, by name
    "opencode": "OpenCode",
    "claude-code": "Claude Code",
    "codex": "Codex CLI",
    "gemini-cli": "Gemini CLI",
    "copilot": "GitHub Copilot CLI",
}


@pytest.fixture(scope="module")
def evidence(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A private copy of the demo intervention round's finished evidence."""
    pristine = demo_build(tmp_path_factory, round_id=ROUND).pristine
    return copy_evidence(pristine, tmp_path_factory.mktemp("intervention") / "evidence")


@pytest.fixture(scope="module")
def built(evidence: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return render_site(Round.load(ROUND, evidence), tmp_path_factory.mktemp("site") / "build")


@pytest.fixture(scope="module")
def compared(evidence: Path) -> InterventionBoard:
    return read_record(round_paths(ROUND, evidence).intervention, InterventionBoard)


@pytest.fixture(scope="module")
def board(evidence: Path) -> Leaderboard:
    return read_record(round_paths(ROUND, evidence).leaderboard, Leaderboard)


def number(shown: str) -> float:
    """A number as the page shows it (`+1.5`, `−2`, `94.5`, `$0.37`) as a float."""
    return float(shown.replace("−", "-").replace("$", "").replace(",", "").strip())


def cells(html: str, cls: str) -> dict[str, str]:
    """data-agent -> the HTML inside each `<td class="{cls}" ...>` of one table row."""
    found = re.findall(rf'<td class="{cls}"[^>]*data-agent="([^"]+)">(.*?)</td>', html, re.S)
    return dict(found)


def model_rows(html: str) -> dict[str, str]:
    """model key -> its row of the agents table."""
    table = html.split('id="agents"')[1].split("</table>")[0]
    parts = re.split(r'<tr id="model-([a-z0-9-]+)">', table)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def shown(fragment: str) -> str:
    return " ".join(" ".join(visible(fragment).parts).split())


def test_each_models_total_per_agent_is_intervention_json_with_its_units_linked(
    built: Path, compared: InterventionBoard, board: Leaderboard
) -> None:
    rows = model_rows(text(built, "agents.html"))
    assert list(rows) == [m.model_key for m in compared.models]
    by_unit = {r.unit: r for r in board.units}
    for model in compared.models:
        arms = cells(rows[model.model_key], "sb-arm")
        assert list(arms) == compared.agents, model.model_key
        for arm in model.arms:
            cell = arms[arm.agent]
            total = re.search(r'class="sb-arm__total"[^>]*>([^<]+)<', cell)
            if arm.mean_total is None:
                assert total is None, (model.model_key, arm.agent)
            else:
                assert total is not None and number(total.group(1)) == pytest.approx(
                    arm.mean_total, abs=0.05
                ), (model.model_key, arm.agent)
            for unit in [*arm.units, *arm.not_counted]:
                assert f'href="units/{unit}.html"' in cell, unit
                assert (built / "units" / f"{unit}.html").is_file(), unit
                cost = by_unit[unit].cost_usd
                assert cost is not None and f"${cost:.2f}" in shown(cell), unit
    # the demo's cast: every model has a total with OpenCode, and one route has none with
    # Claude Code (it does not take reasoning; Claude Code always asks for it)
    missing = [(m.model_key, a.agent) for m in compared.models for a in m.arms if not a.units]
    assert missing and all(agent != compared.baseline for _, agent in missing), missing
    for key, agent in missing:
        assert "not testable" in shown(cells(rows[key], "sb-arm")[agent]), (key, agent)


def check_card(
    mean: str, interval: str, value: float | None, low: float | None, high: float | None, to: float
) -> None:
    """A mean card and its interval card show intervention.json's numbers (to `to`)."""
    assert value is not None and number(mean) == pytest.approx(value, abs=to)
    if low is None or high is None:
        assert interval == "—"
    else:
        shown_low, shown_high = interval.split(" to ")
        assert number(shown_low) == pytest.approx(low, abs=to)
        assert number(shown_high) == pytest.approx(high, abs=to)


def test_the_paired_difference_is_intervention_json(
    built: Path, compared: InterventionBoard
) -> None:
    html = text(built, "agents.html")
    rows = model_rows(html)
    assert compared.effects, "an intervention round compares at least one agent"
    for effect in compared.effects:
        paired = dict(zip(effect.models, effect.differences, strict=True))
        costs = dict(zip(effect.cost_models, effect.cost_differences, strict=True))
        for key, row in rows.items():
            cell = shown(cells(row, "sb-num sb-diff")[effect.agent])
            total, _, cost = cell.partition(" cost ")
            if key in paired:
                assert number(total) == pytest.approx(paired[key], abs=0.05), key
            else:
                assert cell.startswith("— not paired"), (key, cell)
            if key in costs:  # the cost difference beneath it, to the cent (or 0.0001 below one)
                assert number(cost) == pytest.approx(costs[key], abs=0.005), (key, cell)
            else:
                assert not cost, (key, cell)
        numbers = html.split(f'class="sb-cards sb-effect" data-agent="{effect.agent}">')[1]
        values = re.findall(r"<b>([^<]+)</b>", numbers.split("</div>\n</div>")[0])
        mean, interval, count, verdict, cost_mean, cost_interval = values
        check_card(mean, interval, effect.mean_difference, effect.low, effect.high, 0.05)
        assert int(count) == len(effect.models)
        assert f"separated: {effect.separated}" in numbers
        words = {"above": "higher", "below": "lower", "overlaps": "not separated"}
        assert verdict == words.get(effect.separated, "no interval")
        check_card(
            cost_mean, cost_interval, effect.mean_cost_difference, effect.cost_low,
            effect.cost_high, 0.005,
        )  # fmt: skip


def test_the_headline_says_what_the_round_can_detect(
    built: Path, board: Leaderboard, compared: InterventionBoard
) -> None:
    """The leaderboard's headline is leaderboard.json's claim: per agent, no detectable
    difference unless the interval lies off zero, with what the runs could have detected."""
    claim = board.claim
    assert claim is not None and (claim.shape, claim.kind) == ("intervention", "agents_compared")
    html = text(built, "leaderboard.html")
    standing = shown(html.split('id="standing"')[1].split("</div>")[0])
    assert claim.headline in standing and "Champion" not in standing
    assert 'href="#detectable"' in html.split('id="standing"')[1].split("</div>")[0]
    detectable_section = shown(html.split('id="detectable"')[1].split("<h2")[0])
    overall = [d for d in claim.differences if not d.model_key]
    assert [d.agent for d in overall] == [e.agent for e in compared.effects]
    for found, effect in zip(overall, compared.effects, strict=True):
        words = {"above": "higher", "below": "lower", "overlaps": "no_detectable_difference"}
        assert found.verdict == words.get(effect.separated, "not_measurable")
        if found.verdict == "no_detectable_difference":
            said = f" against {LABELS[effect.baseline]}: no detectable difference"
            (agreed,) = [h for h in claim.headline.split("; ") if h.endswith(said)]
            assert LABELS[effect.agent] in agreed.removesuffix(said)  # agents of a verdict together
            assert found.smallest_detectable is not None and found.smallest_detectable >= 0
            detectable = (
                "could have detected a mean difference of about"
                if found.smallest_detectable > 0
                else "any non-zero mean difference would have been detected"  # no spread
            )
            assert detectable in detectable_section
    per_model = {d.model_key for d in claim.differences if d.model_key}
    assert per_model == {m.model_key for m in compared.models}  # every model, per agent
    page = shown(text(built, "agents.html"))
    for found in claim.differences:
        assert " ".join(found.sentence[1:].split()) in page, found.sentence


def test_routes_not_testable_with_an_agent_are_named_with_why(
    built: Path, board: Leaderboard, evidence: Path
) -> None:
    untestable = [n for n in board.not_testable if n.agent]
    assert untestable, "the demo's wide-footer route: not testable with three of the agents"
    for page in ("agents.html", "leaderboard.html"):
        table = text(built, page).split('id="untestable"')[1].split("</table>")[0]
        seen = [dict(visible(f"<table><tr{r}</table>").cells) for r in table.split("<tr")[2:]]
        assert len(seen) == len(untestable), page
        for entry, row in zip(untestable, seen, strict=True):
            assert entry.display_name in row["th"], page
            assert row["Agent"] == LABELS[entry.agent]
            assert entry.route in row["Route"]
            assert entry.reason_class and entry.reason_class.replace("_", " ") in row["Why"]
            assert not LEAKS.search(row["Why"]), row["Why"]  # a reason's dict said in words
            assert "\\" not in row["Why"], row["Why"]  # no Markdown escape in an HTML table
    preflight = read_record(
        round_paths(ROUND, evidence).root / untestable[0].source, PreflightRecord
    )
    params = ", ".join(preflight.catalogue.supported_parameters)
    assert f"the catalogue lists: {params}" in shown(text(built, "agents.html"))


def test_the_leaderboard_and_unit_pages_name_each_units_agent(
    built: Path, board: Leaderboard, evidence: Path
) -> None:
    html = text(built, "leaderboard.html")
    table = html.split('id="leaderboard"')[1].split("</table>")[0].split("<tbody>")[1]
    scored = [r for r in board.units if r.status in ("ranked", "gate_failed")]
    shown_rows = {re.search(r'href="units/([^"]+)\.html"', r).group(1): r  # type: ignore[union-attr]
                  for r in table.split("<tr")[1:]}  # fmt: skip
    assert sorted(shown_rows) == sorted(r.unit for r in scored)
    for row in scored:
        agent = dict(visible(f"<table><tr{shown_rows[row.unit]}</table>").cells)["Agent"]
        assert agent.startswith(LABELS[row.agent]), (row.unit, agent)
    for row in board.units:
        page = shown(text(built, f"units/{row.unit}.html"))
        assert f"Agent {LABELS[row.agent]} " in page, row.unit
        session = json.loads((round_paths(ROUND, evidence).units_dir / row.unit /
                              "session.json").read_text())  # fmt: skip
        assert session["agent"]["name"] == row.agent  # the page's agent is the one that ran it


def test_the_overview_nav_and_leaderboard_lead_to_the_agents_page(built: Path) -> None:
    for page in ("index.html", "leaderboard.html", "methodology.html", "cohort.html"):
        html = text(built, page)
        assert 'href="agents.html"' in html, page  # the nav, the banner, the page's own words
    overview = shown(text(built, "index.html").split("</article>")[0])
    assert "An intervention round" in overview and "measures the harness" in overview
    nav = re.findall(r'<a href="([^"#]+)" class="md-nav__link', text(built, "methodology.html"))
    assert "agents.html" in nav and nav.index("agents.html") == nav.index("leaderboard.html") + 1
    page = shown(text(built, "agents.html").split("</article>")[0])
    assert "measures the harness" in page and "reviews are scripted" in page
    viewer = next((built / "evidence").rglob("*.json.html"))  # a viewer page, outside the theme
    assert "An intervention round: every model with each agent" in viewer.read_text(), viewer


def test_a_model_page_counts_the_model_with_the_baseline_agent(
    built: Path, compared: InterventionBoard, board: Leaderboard
) -> None:
    for model in compared.models:
        (arm,) = [a for a in model.arms if a.agent == compared.baseline]
        table = text(built, f"models/{model.model_key}.html").split('id="rounds"')[1]
        rows = [dict(visible(f"<table><tr{r}</table>").cells)
                for r in table.split("</table>")[0].split("<tr")[2:]]  # fmt: skip
        ran, *untestable = rows  # the round's units, then any pair not testable
        assert arm.mean_total is not None
        assert number(ran["Total"]) == pytest.approx(arm.mean_total, abs=0.05), model.model_key
        assert f"with {LABELS[compared.baseline]}, the baseline" in ran["th"]
        named = [n for n in board.not_testable if n.model_key == model.model_key]
        assert [r["Status"].split(" (")[0] for r in untestable] == [
            f"not testable with {LABELS[n.agent]}" for n in named
        ]


def test_a_broken_or_stale_intervention_json_is_an_error_naming_it(
    evidence: Path, tmp_path: Path
) -> None:
    folder = copy_evidence(evidence, tmp_path / "evidence")
    paths = round_paths(ROUND, folder)
    good = read_record(paths.intervention, InterventionBoard)
    write_record(paths.intervention, good.model_copy(update={"leaderboard_sha256": "0" * 64}))
    with pytest.raises(RecordError, match=r"intervention\.json.*leaderboard_sha256"):
        render_site(Round.load(ROUND, folder), tmp_path / "build")
    data = good.model_dump(mode="json")
    data["effects"][0]["separated"] = "sideways"
    paths.intervention.write_text(json.dumps(data))
    with pytest.raises(RecordError, match=r"(?s)intervention\.json.*separated"):
        render_site(Round.load(ROUND, folder), tmp_path / "build")
    assert good.leaderboard_sha256 == file_sha256(paths.leaderboard)


@pytest.fixture(scope="module")
def audit(built: Path, tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    require_browser()
    board = json.loads((built / "downloads" / "leaderboard.json").read_text())
    ranked = next(r["unit"] for r in board["units"] if r["status"] == "ranked")
    assert (built / "units" / f"{ranked}.html").is_file()
    out = tmp_path_factory.mktemp("audit") / "audit.json"
    pages = ",".join([*AUDITED, "unit: ranked"])
    proc = subprocess.run(
        loopback_netns_argv([sys.executable, str(AUDIT), str(built), str(out), "--pages", pages]),
        capture_output=True, text=True, timeout=1800, cwd=REPO_ROOT,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    data: list[dict[str, Any]] = json.loads(out.read_text())
    return data


def test_the_audit_finds_the_pages_readable_at_every_width(audit: list[dict[str, Any]]) -> None:
    """No overflow, no serious axe violation, no text cut in a cell, at 360, 768 and 1440 px in
    both schemes; and a phone sees a leaderboard row on its first screen."""
    visits = [v for v in audit if "page" in v]
    judged = {(v["page"], v["width"]) for v in visits}
    assert judged == {(p, w) for p in (*AUDITED, "unit: ranked") for w in (360, 768, 1440)}
    problems = [(v["page"], v["width"], v["scheme"], v["overflow_px"], v["serious"], v["cut_text"])
                for v in visits if v["overflow_px"] or v["serious"] or v["cut_text"]]  # fmt: skip
    assert problems == []
    (screen,) = [v["first_screen"] for v in audit if "first_screen" in v]
    assert screen["row_top_px"] is not None and screen["row_top_px"] < screen["height"], screen
    assert all(v["blocked"] == [] for v in audit if "blocked" in v)
