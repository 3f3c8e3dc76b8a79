"""The site knows rounds: the rounds page, every model across rounds and a round ranked by model.

The demo round's real evidence (site_fixture.py) plus `demo-round-1`: the demo's real leaderboard
rows relabelled as three repetitions per model, its model-leaderboard.json from the real
aggregation (`add_repeated_round`).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from site_fixture import REPEATED_ROUND, copy_evidence, shared_site
from test_site_render import LEAKS, PLACEHOLDERS, text, visible

from publish.render import render_site
from publish.views import DIMENSIONS, SHORT_LABELS, fmt_points
from records.evidence.scoring import Leaderboard
from records.io import RecordError, read_record, write_record
from records.layout import round_paths
from records.round import Round
from scoring.aggregate import aggregate_round

pytestmark = [pytest.mark.slow, pytest.mark.opencode, pytest.mark.browser]


@pytest.fixture(scope="module")
def rounds(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """(own round, evidence folder) holding the demo round and demo-round-1, plus a folder
    without leaderboard.json (not a round with results yet); shared, so never changed."""
    round_id, evidence, _ = shared_site(tmp_path_factory)
    return round_id, evidence


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return shared_site(tmp_path_factory)[2]


def board_of(folder: Path, round_id: str) -> Leaderboard:
    return read_record(round_paths(round_id, folder).leaderboard, Leaderboard)


def sections(html: str) -> dict[str, str]:
    """round id -> its section of the rounds page."""
    parts = re.split(r'<h2 id="round-([a-z0-9-]+)"', html.split("</article>")[0])
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def table_rows(html: str, table_id: str) -> list[dict[str, str]]:
    """{data-label: visible text} of each body row of the table `table_id`."""
    table = html.split(f'id="{table_id}"')[1].split("</table>")[0].split("<tbody>")[1]
    return [dict(visible(f"<table><tr{row}</table>").cells) for row in table.split("<tr")[1:]]


def names(html: str, table_id: str) -> list[str]:
    table = html.split(f'id="{table_id}"')[1].split("</table>")[0]
    return re.findall(r'<th scope="row"[^>]*>.*?<code>([^<]+)</code>', table)


def test_rounds_page_lists_every_round_with_its_standing(
    built: Path, rounds: tuple[str, Path]
) -> None:
    round_id, folder = rounds
    found = sections(text(built, "rounds.html"))
    assert list(found) == [round_id, REPEATED_ROUND]  # the own round first; round-0 has none
    for rid, section in found.items():
        board = board_of(folder, rid)
        seen = " ".join(visible(section).parts)
        assert f"{board.standing} — {board.standing_reason}" in seen, rid
        assert "Demo round (scripted models)" in seen, rid
        repetitions = 3 if rid == REPEATED_ROUND else 1
        assert f"{repetitions} per model" in seen, rid
    assert "this site's round" in found[round_id]
    assert "this site's round" not in found[REPEATED_ROUND]
    assert f"SITEOS_ROUND={REPEATED_ROUND} doit site" in found[REPEATED_ROUND]


def test_single_round_lists_its_scored_units_and_counts(
    built: Path, rounds: tuple[str, Path]
) -> None:
    round_id, folder = rounds
    board = board_of(folder, round_id)
    section = sections(text(built, "rounds.html"))[round_id]
    rows = table_rows(section, f"units-{round_id}")
    scored = [r for r in board.units if r.status in ("ranked", "gate_failed")]
    assert len(rows) == len(scored)
    assert all(r["th"].endswith(u.unit) for r, u in zip(rows, scored, strict=True))
    for row, unit in zip(rows, scored, strict=True):
        assert row["Total"] == fmt_points(unit.total)
        assert row["Rank"] == (str(unit.rank) if unit.rank is not None else "—")
        assert ("gate-capped" in row["Status"]) == (unit.status == "gate_failed")
    invalid = sum(r.status == "invalid" for r in board.units)
    assert f"{len(board.not_testable)} not testable · {invalid} invalid" in section


def test_repeated_round_shows_the_model_leaderboards_values(
    built: Path, rounds: tuple[str, Path]
) -> None:
    folder = rounds[1]
    path = round_paths(REPEATED_ROUND, folder).model_leaderboard
    data: dict[str, Any] = json.loads(path.read_text())
    section = sections(text(built, "rounds.html"))[REPEATED_ROUND]
    rows = table_rows(section, f"models-{REPEATED_ROUND}")
    assert names(section, f"models-{REPEATED_ROUND}") == [m["model_key"] for m in data["models"]]
    statuses = {m["status"] for m in data["models"]}
    assert statuses == {"ranked", "ineligible", "incomplete"}  # the fixture covers all three
    for row, model in zip(rows, data["models"], strict=True):
        assert row["Mean"] == fmt_points(model["mean_total"])
        assert row["Median"] == fmt_points(model["median_total"])
        low, high = fmt_points(model["min_total"]), fmt_points(model["max_total"])
        assert row["Min–max"] == f"{low}–{high}"
        assert row["Spread"] == fmt_points(model["spread"])
        assert row["Rank"] == (str(model["rank"]) if model["rank"] is not None else "—")
        assert row["Tier"].startswith(str(model["tier"]) if model["tier"] is not None else "—")
        assert " ".join(model["tier_note"].split()) in " ".join(row["Tier"].split())  # in words
        low, high = model["interval_low"], model["interval_high"]
        shown = "—" if low is None else f"{fmt_points(low)}–{fmt_points(high)}"
        assert row["95% interval"].startswith(shown), model["model_key"]
        assert ("cut at the bound" in row["95% interval"]) == model["interval_clipped"]
        assert high is None or high <= 100
        for rep in model["repetitions"]:
            shown = fmt_points(rep["total"]) if rep["total"] is not None else rep["status"]
            assert f"r{rep['repetition']} {shown}" in row["Repetitions"], model["model_key"]
        assert f"{model['valid']} valid · {model['invalid']} invalid" in row["Counts"]
        assert f"{model['gate_failed']} gate-failed" in row["Counts"]
        advances = "advances" in row["Status"]
        assert advances == model["advancement"]["advanced"], model["model_key"]
        for key, _, points in DIMENSIONS:
            mean = model["dimension_means"][key]
            assert row[f"{SHORT_LABELS[key]} /{points}"] == fmt_points(mean), key
    seen = " ".join(visible(section).parts)
    for rule in data["rules"].values():
        assert " ".join(rule.split()) in seen
    assert "a model ranks above another only when its 95% interval lies wholly above" in seen
    assert "SITEOS_ROUND" in section and "units/" not in section  # no unit pages of that round


def test_a_model_page_lists_every_round(built: Path, rounds: tuple[str, Path]) -> None:
    round_id, folder = rounds
    data = json.loads(round_paths(REPEATED_ROUND, folder).model_leaderboard.read_text())
    model = data["models"][0]
    html = text(built, f"models/{model['model_key']}.html")
    rows = table_rows(html, "rounds")
    assert re.findall(r'href="\.\./rounds\.html#round-([a-z0-9-]+)"', html) == [
        round_id,
        REPEATED_ROUND,
    ]
    own, repeated = rows
    unit = next(u for u in board_of(folder, round_id).units if u.model_key == model["model_key"])
    assert own["Total"] == fmt_points(unit.total) and own["Repetitions"] == "1"
    assert f'href="../units/{unit.unit}.html"' in html  # the own round's unit page
    assert repeated["Mean"] == fmt_points(model["mean_total"])
    assert repeated["Median"] == fmt_points(model["median_total"])
    assert repeated["Min–max"].startswith(
        f"{fmt_points(model['min_total'])}–{fmt_points(model['max_total'])}"
    )
    assert repeated["Repetitions"] == "3" and repeated["Rank"] == str(model["rank"])


def test_every_model_of_every_round_has_a_page(built: Path, rounds: tuple[str, Path]) -> None:
    round_id, folder = rounds
    keys = set()
    for rid in (round_id, REPEATED_ROUND):
        board = board_of(folder, rid)
        keys |= {u.model_key for u in board.units} | {n.model_key for n in board.not_testable}
    pages = {p.stem for p in (built / "models").glob("*.html")} - {"index"}
    assert pages == keys
    index = text(built, "models/index.html")
    assert all(f'href="{key}.html"' in index for key in keys)
    untestable = board_of(folder, round_id).not_testable[0].model_key
    rows = table_rows(text(built, f"models/{untestable}.html"), "rounds")
    assert len(rows) == 2 and all(r["Status"].startswith("not testable") for r in rows)
    leaderboard = text(built, "leaderboard.html")
    for unit in board_of(folder, round_id).units:
        assert f'href="models/{unit.model_key}.html"' in leaderboard, unit.unit


def test_own_model_leaderboard_comes_first_and_downloads(
    rounds: tuple[str, Path], tmp_path: Path
) -> None:
    """A round with its own model-leaderboard.json (here the real aggregation of the demo's
    own board) shows the model ranking before the unit table and offers the file as it is."""
    round_id, source = rounds
    folder = copy_evidence(source, tmp_path / "evidence")
    paths = round_paths(round_id, folder)
    write_record(paths.model_leaderboard, aggregate_round(paths, 1))
    site = render_site(Round.load(round_id, folder), tmp_path / "build")
    html = text(site, "leaderboard.html")
    assert 0 < html.index('id="models"') < html.index('id="leaderboard"')
    models = json.loads(paths.model_leaderboard.read_text())["models"]
    assert names(html, "models") == [m["model_key"] for m in models]
    for rep in (r for m in models for r in m["repetitions"]):
        assert f'href="units/{rep["unit"]}.html"' in html  # each repetition links its unit
    copy = site / "downloads" / "model-leaderboard.json"
    assert copy.read_bytes() == paths.model_leaderboard.read_bytes()
    assert 'href="downloads/model-leaderboard.json"' in text(site, "downloads.html")
    assert leaks(site, ["leaderboard.html", "rounds.html"]) == []


def leaks(site: Path, pages: list[str]) -> list[str]:
    """What test_site_render forbids on every page: Python reprs, None, empty labelled cells."""
    found = []
    for page in pages:
        seen = visible(text(site, page))
        found += [f"{page}: {m.group(0)!r}" for m in LEAKS.finditer(" ".join(seen.parts))]
        found += [
            f"{page}: {label} cell {cell!r}"
            for label, cell in seen.cells
            if cell in PLACEHOLDERS or (not cell and label not in ("td", "th"))
        ]
    return found


def test_round_pages_say_nothing_unreadable(built: Path) -> None:
    models = sorted(f"models/{p.name}" for p in (built / "models").glob("*.html"))
    assert leaks(built, ["rounds.html", "leaderboard.html", *models]) == []


def thin_copy(source: Path, target: Path, round_id: str) -> Path:
    """The own round linked (read only), the other round's folder a real copy to break."""
    target.mkdir()
    (target / round_id).symlink_to(source / round_id, target_is_directory=True)
    shutil.copyfile(source / "controls.json", target / "controls.json")
    shutil.copytree(source / REPEATED_ROUND, target / REPEATED_ROUND)
    return target


@pytest.mark.parametrize(
    ("relative", "content", "needle"),
    [
        (f"{REPEATED_ROUND}/leaderboard.json", '{"round_id": "demo-round-1"}', "field units"),
        (f"{REPEATED_ROUND}/model-leaderboard.json", "{not json", "not valid JSON"),
        ("no-such-round/leaderboard.json", "COPY", "has no round file"),
    ],
)
def test_malformed_other_round_is_named(
    rounds: tuple[str, Path], tmp_path: Path, relative: str, content: str, needle: str
) -> None:
    round_id, source = rounds
    folder = thin_copy(source, tmp_path / "evidence", round_id)
    target = folder / relative
    target.parent.mkdir(exist_ok=True)
    if content == "COPY":
        shutil.copyfile(source / REPEATED_ROUND / "leaderboard.json", target)
    else:
        target.write_text(content)
    with pytest.raises(RecordError) as caught:
        render_site(Round.load(round_id, folder), tmp_path / "build")
    assert str(target) in str(caught.value) and needle in str(caught.value)
    assert not (tmp_path / "build" / "site").exists()
