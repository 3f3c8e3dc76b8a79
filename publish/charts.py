"""The score-versus-cost chart: a hand-written SVG, byte-for-byte deterministic.

Cost runs on a log axis (unit costs span orders of magnitude), score on a linear 0-100 axis. The
Pareto frontier joins the eligible units that no other eligible unit beats on both score and
cost. Colours are CSS classes (`sb-c-*`): the site's stylesheet gives them light and dark values
when the SVG is inline; the standalone file carries its own light defaults.
"""

from __future__ import annotations

import math
from html import escape

from publish.views import Row, fmt_cost, fmt_points
from records.rubric import GATE_CAP, MAX_TOTAL

WIDTH, HEIGHT = 880, 520
LEFT, RIGHT, TOP, BOTTOM = 64, 150, 28, 56

STANDALONE_STYLE = (
    "<style>.sb-c-bg{fill:#fff}.sb-c-text{fill:#1d232b}.sb-c-muted{fill:#4d5866}"
    ".sb-c-grid{stroke:#d5dbe2}.sb-c-ok{fill:#17693e;stroke:#17693e}"
    ".sb-c-warn{fill:#8a4f00;stroke:#8a4f00}.sb-c-other{fill:#4d5866;stroke:#4d5866}"
    ".sb-c-hollow{fill:#fff}.sb-c-front{stroke:#17693e;fill:none}"
    ".sb-c-cap{stroke:#8a4f00}.sb-c-line{stroke:#17693e}</style>"
)


def _n(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def plotted(rows: list[Row]) -> list[Row]:
    """Scored rows with a total and a positive, known cost (a log axis cannot show $0)."""
    return [
        r
        for r in rows
        if r.group == "scored" and r.total is not None and r.cost_usd is not None and r.cost_usd > 0
    ]


def frontier(rows: list[Row]) -> list[Row]:
    """Eligible rows no other eligible row beats on both total (higher) and cost (lower)."""
    eligible = sorted(
        (r for r in plotted(rows) if r.eligible), key=lambda r: (r.cost_usd, -(r.total or 0))
    )
    best = -1.0
    out = []
    for row in eligible:
        if (row.total or 0) > best:
            out.append(row)
            best = row.total or 0
    return out


def _ticks(low: float, high: float) -> list[float]:
    """1-2-5 ticks over up to two decades, powers of ten beyond (labels must not collide)."""
    ticks = []
    steps = (1, 2, 5) if high / low <= 100 else (1,)
    for power in range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1):
        for step in steps:
            value = step * 10.0**power
            if low <= value <= high:
                ticks.append(value)
    return ticks


def _money(value: float) -> str:
    """An axis label: $0.001, $0.02, $1, $10."""
    return f"${value:.{max(0, -math.floor(math.log10(value)))}f}"


CHAR_W, LINE_H = 7.4, 16  # a label's width per character and its line height, in SVG units


Box = tuple[float, float, float, float]  # x0, x1, y0, y1


def text_box(x: float, y: float, text: str) -> Box:
    """Where a left-anchored label with its baseline at `y` lies."""
    return (x, x + CHAR_W * len(text), y - 15, y)


def place_labels(
    points: list[tuple[float, float, str]], taken: list[Box]
) -> list[tuple[float, float, str]]:
    """(x, y, anchor) for each point's label, in the given order: right of its point, or left of
    it near the right edge, moved up or down a line at a time until it overlaps neither a label
    placed before it nor a `taken` box (the legend, the line labels). Deterministic: the same
    points always get the same places."""
    placed = list(taken)
    out = []
    for cx, cy, text in points:
        width = CHAR_W * len(text)
        left = cx + 9 + width > WIDTH - 4
        x0 = cx - 9 - width if left else cx + 9
        for step in range(0, 40):
            dy = (step + 1) // 2 * LINE_H * (1 if step % 2 else -1)
            box = text_box(x0, cy + dy + 4, text)
            clear = all(box[1] <= b[0] or box[0] >= b[1] or box[3] <= b[2] or box[2] >= b[3]
                        for b in placed)  # fmt: skip
            if clear and box[2] >= TOP - 10 and box[3] <= HEIGHT - BOTTOM + 10:
                break
        placed.append(box)
        out.append((cx - 9 if left else cx + 9, cy + dy + 4, "end" if left else "start"))
    return out


def _tone(row: Row) -> str:
    return "sb-c-warn" if row.capped else ("sb-c-ok" if row.eligible else "sb-c-other")


def score_cost_svg(rows: list[Row], cutoff: float | None = None, standalone: bool = True) -> str:
    """Total score (y) against gateway cost in USD on a log axis (x) for every scored row."""
    points = plotted(rows)
    costs = [r.cost_usd or 1.0 for r in points] or [0.1, 10.0]
    low = 10.0 ** math.floor(math.log10(min(costs)))
    high = 10.0 ** math.ceil(math.log10(max(costs) * 1.0001))
    if high <= low:
        high = low * 10
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(value: float) -> float:
        return LEFT + plot_w * (math.log10(value) - math.log10(low)) / math.log10(high / low)

    def y(value: float) -> float:
        return TOP + plot_h * (1 - value / MAX_TOTAL)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        'class="sb-chart-svg" role="img" aria-labelledby="sb-chart-t sb-chart-d" '
        'font-family="system-ui, -apple-system, Segoe UI, Roboto, sans-serif" font-size="13">',
        '<title id="sb-chart-t">Total score versus gateway cost (log scale)</title>',
        f'<desc id="sb-chart-d">{len(points)} scored units with a known cost; higher and further '
        "left is better; the line joins the Pareto frontier of eligible units.</desc>",
    ]
    if standalone:
        out.append(STANDALONE_STYLE)
        out.append(f'<rect class="sb-c-bg" width="{WIDTH}" height="{HEIGHT}"/>')
    for tick in range(0, int(MAX_TOTAL) + 1, 20):
        out.append(
            f'<line class="sb-c-grid" x1="{LEFT}" x2="{LEFT + plot_w}" y1="{_n(y(tick))}" '
            f'y2="{_n(y(tick))}"/><text class="sb-c-muted" x="{LEFT - 8}" '
            f'y="{_n(y(tick) + 4)}" text-anchor="end">{tick}</text>'
        )
    for value in _ticks(low, high):
        out.append(
            f'<line class="sb-c-grid" x1="{_n(x(value))}" x2="{_n(x(value))}" y1="{TOP}" '
            f'y2="{TOP + plot_h}"/><text class="sb-c-muted" x="{_n(x(value))}" '
            f'y="{TOP + plot_h + 18}" text-anchor="middle">{_money(value)}</text>'
        )
    out.append(
        f'<text class="sb-c-text" x="{LEFT + plot_w / 2:.0f}" y="{HEIGHT - 12}" '
        'text-anchor="middle">Gateway cost of the scored session (USD, log scale)</text>'
        f'<text class="sb-c-text" transform="translate(16 {TOP + plot_h / 2:.0f}) rotate(-90)" '
        f'text-anchor="middle">Total score (of {MAX_TOTAL:g})</text>'
    )
    out.append(
        f'<line class="sb-c-cap" x1="{LEFT}" x2="{LEFT + plot_w}" y1="{_n(y(GATE_CAP))}" '
        f'y2="{_n(y(GATE_CAP))}" stroke-dasharray="5 4"/><text class="sb-c-warn" '
        f'x="{LEFT + plot_w + 6}" y="{_n(y(GATE_CAP) + 4)}">gate cap {GATE_CAP:g}</text>'
    )
    if cutoff is not None:
        out.append(
            f'<line class="sb-c-line" x1="{LEFT}" x2="{LEFT + plot_w}" y1="{_n(y(cutoff))}" '
            f'y2="{_n(y(cutoff))}" stroke-dasharray="2 3"/><text class="sb-c-ok" '
            f'x="{LEFT + plot_w + 6}" y="{_n(y(cutoff) + 4)}">advancement {_n(cutoff)}</text>'
        )
    front = frontier(rows)
    if len(front) > 1:
        path = " ".join(f"{_n(x(r.cost_usd or 1))},{_n(y(r.total or 0))}" for r in front)
        out.append(
            f'<polyline class="sb-c-front" points="{path}" stroke-width="2">'
            "<title>Pareto frontier: no eligible unit is both cheaper and better</title>"
            "</polyline>"
        )
    legend = [("eligible", "sb-c-ok", ""), ("gate-capped", "sb-c-warn", ""),
              ("provisional", "sb-c-other", " sb-c-hollow")]  # fmt: skip
    taken = [text_box(WIDTH - RIGHT + 20, TOP + 64 + 20 * i, "  " + t) for i, (t, _, _) in
             enumerate(legend)]  # fmt: skip
    taken.append(text_box(LEFT + plot_w + 6, y(GATE_CAP) + 4, f"gate cap {GATE_CAP:g}"))
    if cutoff is not None:
        taken.append(text_box(LEFT + plot_w + 6, y(cutoff) + 4, f"advancement {_n(cutoff)}"))
    ordered = sorted(points, key=lambda r: (-(r.total or 0), r.unit))
    centres = [(x(r.cost_usd or 1.0), y(r.total or 0.0), r.label) for r in ordered]
    for row, (cx, cy, _), (lx, ly, anchor) in zip(
        ordered, centres, place_labels(centres, taken), strict=True
    ):
        tone = _tone(row)
        fill = " sb-c-hollow" if row.provisional else ""
        label = escape(row.label)
        state = "eligible" if row.eligible else ("gate-capped" if row.capped else "ineligible")
        out.append(
            f"<g><title>{label}: {fmt_points(row.total)} points, {fmt_cost(row.cost_usd)}, "
            f"{state}{', provisional' if row.provisional else ''}</title>"
            f'<circle class="{tone}{fill}" cx="{_n(cx)}" cy="{_n(cy)}" r="6" stroke-width="2"/>'
            f'<text class="sb-c-text" x="{_n(lx)}" y="{_n(ly)}" text-anchor="{anchor}">'
            f"{label}</text></g>"
        )
    legend_y = TOP + 60
    for text, tone, hollow in legend:
        out.append(
            f'<circle class="{tone}{hollow}" cx="{WIDTH - RIGHT + 26}" cy="{legend_y}" r="5" '
            f'stroke-width="2"/><text class="sb-c-text" x="{WIDTH - RIGHT + 36}" '
            f'y="{legend_y + 4}">{text}</text>'
        )
        legend_y += 20
    out.append("</svg>")
    return "\n".join(out) + "\n"
