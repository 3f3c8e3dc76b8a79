"""The score-versus-cost chart: a small hand-written static SVG, byte-for-byte deterministic."""

from __future__ import annotations

import math
from html import escape

from publish.views import Row

WIDTH, HEIGHT = 880, 520
LEFT, RIGHT, TOP, BOTTOM = 64, 200, 28, 56
TONES = {"eligible": "#1b7f4b", "capped": "#a15c00", "other": "#5f6b7a"}


def _nice_max(value: float) -> float:
    """A round axis maximum at or above `value` (1, 2, 2.5 or 5 times a power of ten)."""
    if value <= 0:
        return 1.0
    power = 10 ** math.floor(math.log10(value))
    for step in (1, 2, 2.5, 5, 10):
        if value <= step * power:
            return step * power
    return 10 * power


def _n(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def score_cost_svg(rows: list[Row], cutoff: float | None = None) -> str:
    """Total score (y, 0-100) against gateway cost in USD (x) for every scored row."""
    points = [
        r for r in rows if r.group == "scored" and r.total is not None and r.cost_usd is not None
    ]
    x_max = _nice_max(max((r.cost_usd or 0.0 for r in points), default=1.0) * 1.1)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(value: float) -> float:
        return LEFT + plot_w * value / x_max

    def y(value: float) -> float:
        return TOP + plot_h * (1 - value / 100)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" role="img" aria-labelledby="t d" '
        'font-family="system-ui, -apple-system, Segoe UI, Roboto, sans-serif" font-size="12">',
        '<title id="t">Total score versus gateway cost</title>',
        f'<desc id="d">{len(points)} scored units; higher and further left is better.</desc>',
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>',
    ]
    for tick in range(0, 101, 20):
        out.append(
            f'<line x1="{LEFT}" x2="{LEFT + plot_w}" y1="{_n(y(tick))}" y2="{_n(y(tick))}" '
            'stroke="#e3e7ec"/>'
        )
        out.append(
            f'<text x="{LEFT - 8}" y="{_n(y(tick) + 4)}" text-anchor="end" fill="#5f6b7a">'
            f"{tick}</text>"
        )
    for i in range(6):
        value = x_max * i / 5
        out.append(
            f'<line x1="{_n(x(value))}" x2="{_n(x(value))}" y1="{TOP}" y2="{TOP + plot_h}" '
            'stroke="#eef1f4"/>'
        )
        out.append(
            f'<text x="{_n(x(value))}" y="{TOP + plot_h + 18}" text-anchor="middle" '
            f'fill="#5f6b7a">${value:.2f}</text>'
        )
    out.append(
        f'<text x="{LEFT + plot_w / 2:.0f}" y="{HEIGHT - 12}" text-anchor="middle" '
        'fill="#33404d">Gateway cost of the scored session (USD)</text>'
    )
    out.append(
        f'<text transform="translate(16 {TOP + plot_h / 2:.0f}) rotate(-90)" '
        'text-anchor="middle" fill="#33404d">Total score (of 100)</text>'
    )
    out.append(
        f'<line x1="{LEFT}" x2="{LEFT + plot_w}" y1="{_n(y(49))}" y2="{_n(y(49))}" '
        'stroke="#a15c00" stroke-dasharray="5 4"/>'
    )
    out.append(
        f'<text x="{LEFT + plot_w + 6}" y="{_n(y(49) + 4)}" fill="#a15c00">gate cap 49</text>'
    )
    if cutoff is not None:
        out.append(
            f'<line x1="{LEFT}" x2="{LEFT + plot_w}" y1="{_n(y(cutoff))}" '
            f'y2="{_n(y(cutoff))}" stroke="#1b7f4b" stroke-dasharray="2 3"/>'
        )
        out.append(
            f'<text x="{LEFT + plot_w + 6}" y="{_n(y(cutoff) + 4)}" fill="#1b7f4b">'
            f"advancement line {_n(cutoff)}</text>"
        )
    for row in sorted(points, key=lambda r: (-(r.total or 0), r.unit)):
        tone = TONES["capped"] if row.capped else TONES["eligible" if row.eligible else "other"]
        cx, cy = x(row.cost_usd or 0.0), y(row.total or 0.0)
        fill = "#ffffff" if row.provisional else tone
        label = escape(row.display_name or row.model_key)
        out.append(
            f"<g><title>{label}: {_n(row.total or 0)} points, ${row.cost_usd:.2f}</title>"
            f'<circle cx="{_n(cx)}" cy="{_n(cy)}" r="6" fill="{fill}" stroke="{tone}" '
            'stroke-width="2"/>'
            f'<text x="{_n(cx + 9)}" y="{_n(cy + 4)}" fill="#1f2933">{label}</text></g>'
        )
    legend_y = TOP + 8
    for text, tone, fill in (
        ("eligible", TONES["eligible"], TONES["eligible"]),
        ("gate-capped", TONES["capped"], TONES["capped"]),
        ("provisional (hollow)", TONES["other"], "#ffffff"),
    ):
        out.append(
            f'<circle cx="{WIDTH - RIGHT + 36}" cy="{legend_y + 60}" r="5" fill="{fill}" '
            f'stroke="{tone}" stroke-width="2"/>'
        )
        out.append(
            f'<text x="{WIDTH - RIGHT + 46}" y="{legend_y + 64}" fill="#33404d">{text}</text>'
        )
        legend_y += 18
    out.append("</svg>")
    return "\n".join(out) + "\n"
