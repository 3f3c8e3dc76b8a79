"""The score-versus-cost chart: labels never overprint one another or the legend, the cost axis
is logarithmic, and the same rows always give the same bytes."""

from __future__ import annotations

import re

from publish.charts import CHAR_W, HEIGHT, WIDTH, place_labels, score_cost_svg, text_box
from publish.views import Row


def row(unit: str, total: float, cost: float, name: str) -> Row:
    return Row(
        unit=unit, model_key=unit, display_name=name, company="", route="r", code=None,
        status="ranked", total=total, raw_total=total, breakdown={}, capped=False,
        provisional=False, eligible=True, advances=False, rank=None, elapsed_seconds=60.0,
        cost_usd=cost, tokens=None, stop_status="completed", validity="valid",
        invalid_reasons=[], failure_class="none", explanations=[],
    )  # fmt: skip


def overlaps(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return not (a[1] <= b[0] or a[0] >= b[1] or a[3] <= b[2] or a[2] >= b[3])


def boxes(svg: str) -> list[tuple[float, float, float, float]]:
    """Each point label's box, as drawn (its anchor says which side of x the text runs)."""
    found = []
    for x, y, anchor, text in re.findall(
        r'<text class="sb-c-text" x="([\d.]+)" y="([\d.]+)" text-anchor="(start|end)">([^<]+)<',
        svg,
    ):
        width = CHAR_W * len(text)
        left = float(x) - width if anchor == "end" else float(x)
        found.append((left, left + width, float(y) - 15, float(y)))
    return found


def test_close_points_get_labels_that_do_not_overlap() -> None:
    rows = [row(f"u{i}", 70 - i * 0.5, 0.25 + i * 0.001, f"Model number {i}") for i in range(5)]
    rows.append(row("far", 68, 9.0, "A model with a rather long display name"))
    svg = score_cost_svg(rows, cutoff=60.0)
    drawn = boxes(svg)
    assert len(drawn) == 6
    assert not [(a, b) for i, a in enumerate(drawn) for b in drawn[i + 1 :] if overlaps(a, b)]
    assert all(b[0] >= 0 and b[1] <= WIDTH and b[2] >= 0 and b[3] <= HEIGHT for b in drawn)
    assert "log scale" in svg and ">$0.1<" in svg and ">$10<" in svg  # decades, not even steps
    assert score_cost_svg(rows, cutoff=60.0) == svg


def test_a_label_keeps_clear_of_what_is_already_drawn() -> None:
    legend = text_box(700, 100, "eligible")
    ((x, y, anchor),) = place_labels([(690.0, 96.0, "Model")], [legend])
    label = text_box(x, y, "Model") if anchor == "start" else text_box(x - 5 * CHAR_W, y, "Model")
    assert not overlaps(label, legend)
