"""How sure a repeated round is: t-intervals, tiers and paired differences (standard library only).

- A model's mean total over its n repetitions has the two-sided 95% interval
  mean ± t(0.975, n − 1) · s / √n, s the sample standard deviation (no interval below n = 2).
- Tiers: a model ranks above another only when its interval lies wholly above the other's, so a
  model's tier is 1 + the number of models whose interval's low end is above its high end
  (models that overlap share a tier; one without an interval has none).
- Adjacent models in the ranking are compared on the repetitions both have, paired by
  repetition (the same frozen order position and the same day): the mean difference and its
  t-interval; the pair is separated when that interval lies wholly above zero.
- Bounds: a t-interval is symmetric and knows nothing of the score's range, so with few runs it
  can reach past it (a mean of 79 with a wide spread: 54.8 to 103.6 on a 100-point scale). Each
  interval is cut at the bounds of what it measures (a total 0-100, a difference of two totals
  -100 to 100) and marked `clipped`; no score beyond a bound is possible, so the cut part holds
  no value the mean could take (`bounded`).
- Planning: the repetitions a pair would need to separate, were its observed mean difference
  and spread to hold (`repetitions_to_separate`), and the smallest difference a set of paired
  runs could have told from zero (`smallest_detectable`: the interval's half-width).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

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
    """A mean and its two-sided t-interval (low and high None below two values); `clipped` when
    it was cut at the bounds of what it measures (`bounded`)."""

    mean: float
    low: float | None
    high: float | None
    n: int
    clipped: bool = False
    half_width: float | None = None
    """The t-interval's half-width before any cut (None below two values)."""


TOTAL_BOUNDS = (0.0, 100.0)
"""A 100-point total."""
DIFFERENCE_BOUNDS = (-100.0, 100.0)
"""One 100-point total minus another."""
INTERVAL_METHOD = (
    "two-sided 95% Student t-interval of the mean (n - 1 degrees of freedom), cut at the "
    "bounds of what it measures (a total 0-100, a difference of two totals -100 to 100) and "
    "marked clipped when cut: no score beyond a bound is possible"
)


def bounded(interval: Interval, bounds: tuple[float, float]) -> Interval:
    """`interval` cut at `bounds` (low, high); `clipped` when it reached past either."""
    if interval.low is None or interval.high is None:
        return interval
    low, high = max(interval.low, bounds[0]), min(interval.high, bounds[1])
    if (low, high) == (interval.low, interval.high):
        return interval
    return replace(interval, low=low, high=high, clipped=True)


def mean_interval(
    values: Sequence[float], level: float = LEVEL, bounds: tuple[float, float] | None = None
) -> Interval:
    """The mean of `values` with its t-interval at `level` (n − 1 degrees of freedom), cut at
    `bounds` when given."""
    if not values:
        raise ValueError("mean_interval needs at least one value")
    n, mean = len(values), statistics.fmean(values)
    if n < 2:
        return Interval(mean, None, None, n)
    half = t_quantile(0.5 + level / 2.0, n - 1) * statistics.stdev(values) / math.sqrt(n)
    found = Interval(mean, mean - half, mean + half, n, half_width=half)
    return bounded(found, bounds) if bounds is not None else found


def repetitions_to_separate(
    differences: Sequence[float], level: float = LEVEL, most: int = 1000
) -> int | None:
    """A planning figure: the fewest paired runs whose t-interval would lie wholly off zero if
    the observed mean difference and spread held (at least the two an interval needs). None when
    no number would (no mean difference) or none can be estimated (fewer than two differences, or
    no spread and no difference), or when it would take more than `most`."""
    if len(differences) < 2:
        return None
    mean, spread = abs(statistics.fmean(differences)), statistics.stdev(differences)
    if mean == 0:
        return None
    if spread == 0:
        return 2
    for n in range(2, most + 1):
        if t_quantile(0.5 + level / 2.0, n - 1) * spread / math.sqrt(n) < mean:
            return n
    return None


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
    differences: list[float]

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
    interval = mean_interval(differences, bounds=DIFFERENCE_BOUNDS)
    return PairedDifference(upper, lower, shared, interval, differences)
