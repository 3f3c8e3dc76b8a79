"""How sure a repeated round is: t-intervals, tiers and paired differences (standard library only).

- A model's mean total over its n repetitions has the two-sided 95% interval
  mean ± t(0.975, n − 1) · s / √n, s the sample standard deviation (no interval below n = 2).
- Tiers: a model ranks above another only when its interval lies wholly above the other's, so a
  model's tier is 1 + the number of models whose interval's low end is above its high end
  (models that overlap share a tier; one without an interval has none).
- Adjacent models in the ranking are compared on the repetitions both have, paired by
  repetition (the same frozen order position and the same day): the mean difference and its
  t-interval; the pair is separated when that interval lies wholly above zero.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

LEVEL = 0.95


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the regularized incomplete beta function (Lentz's method)."""
    tiny, qab, qap, qam = 1e-300, a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        for aa in (m * (b - m) * x / ((qam + m2) * (a + m2)),
                   -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):  # fmt: skip
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + aa / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def _incomplete_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b), the regularized incomplete beta function."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    front = math.exp(log_front + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: int) -> float:
    """P(T ≤ t) for Student's t with `df` degrees of freedom."""
    tail = 0.5 * _incomplete_beta(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


def t_quantile(p: float, df: int) -> float:
    """The `p` quantile of Student's t with `df` ≥ 1 degrees of freedom (bisection to 1e-12)."""
    if not 0.0 < p < 1.0 or df < 1:
        raise ValueError(f"t_quantile needs 0 < p < 1 and df >= 1, got p={p}, df={df}")
    low, high = -1e6, 1e6
    for _ in range(200):
        mid = (low + high) / 2.0
        if t_cdf(mid, df) < p:
            low = mid
        else:
            high = mid
        if high - low < 1e-12:
            break
    return (low + high) / 2.0


@dataclass(frozen=True)
class Interval:
    """A mean and its two-sided t-interval (low and high None below two values)."""

    mean: float
    low: float | None
    high: float | None
    n: int


def mean_interval(values: Sequence[float], level: float = LEVEL) -> Interval:
    """The mean of `values` with its t-interval at `level` (n − 1 degrees of freedom)."""
    if not values:
        raise ValueError("mean_interval needs at least one value")
    n, mean = len(values), statistics.fmean(values)
    if n < 2:
        return Interval(mean, None, None, n)
    half = t_quantile(0.5 + level / 2.0, n - 1) * statistics.stdev(values) / math.sqrt(n)
    return Interval(mean, mean - half, mean + half, n)


def tiers(intervals: Mapping[str, Interval]) -> dict[str, int | None]:
    """Each model's tier: 1 + how many models' intervals lie wholly above its own."""
    found: dict[str, int | None] = {}
    for key, own in intervals.items():
        if own.high is None:
            found[key] = None
            continue
        above = [
            other
            for name, other in intervals.items()
            if name != key and other.low is not None and other.low > own.high
        ]
        found[key] = 1 + len(above)
    return found


@dataclass(frozen=True)
class PairedDifference:
    """The upper model minus the lower one, repetition by repetition."""

    upper: str
    lower: str
    repetitions: list[int]
    difference: Interval

    @property
    def separated(self) -> bool:
        """The interval lies wholly above zero: the upper model is ahead beyond chance."""
        return self.difference.low is not None and self.difference.low > 0


def paired_difference(
    upper: str, lower: str, totals: Mapping[str, Mapping[int, float]]
) -> PairedDifference | None:
    """`upper` minus `lower` on the repetitions both have (None when they share none)."""
    shared = sorted(set(totals[upper]) & set(totals[lower]))
    if not shared:
        return None
    differences = [totals[upper][r] - totals[lower][r] for r in shared]
    return PairedDifference(upper, lower, shared, mean_interval(differences))
