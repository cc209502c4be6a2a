"""Shares of a choice with their 95% confidence interval, and the order effect of a preference test.

The interval is Wilson's score interval for each concept's share (one concept against all the others), which
stays inside 0-100% and is sensible for small panels and for a concept nobody chose (0 of n has a lower bound of
0 and an upper bound above 0), for any number of concepts. Lyssna gives one only for two options.

The order effect: a preference test shows its concepts in an order drawn per participant (stored with the
review, `Review.options_order`). For each position a concept was shown in, how often it was chosen there: a
concept chosen far more often when shown first than when shown last points to an order effect rather than a
preference.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

Z95 = 1.959963984540054  # the 97.5th percentile of the standard normal distribution


@dataclass(frozen=True)
class Interval:
    low: float
    high: float


def wilson(successes: int, n: int, z: float = Z95) -> Interval | None:
    """Wilson's score interval of the share successes / n (None when n is 0: there is no share)."""
    if n <= 0:
        return None
    if not 0 <= successes <= n:
        raise ValueError(f"{successes} of {n} is not a share")
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    # 0 of n and n of n have exact bounds (0 and 1); rounding would leave them a hair off.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return Interval(low, high)


@dataclass(frozen=True)
class Share:
    key: str
    count: int
    share: float  # 0-1 of the total (0 when there is none)
    interval: Interval | None


def shares(counts: Mapping[str, int], keys: Sequence[str]) -> list[Share]:
    """Each of `keys` (every concept or option, chosen or not) with its count, share and interval, in the order
    given; counts of keys not listed are left out of the total too."""
    total = sum(max(0, counts.get(k, 0)) for k in keys)
    return [
        Share(
            key=k,
            count=max(0, counts.get(k, 0)),
            share=(max(0, counts.get(k, 0)) / total) if total else 0.0,
            interval=wilson(max(0, counts.get(k, 0)), total),
        )
        for k in keys
    ]


@dataclass(frozen=True)
class OrderCell:
    shown: int  # how many participants saw this concept at this position
    chosen: int  # ... and chose it
    share: float  # chosen / shown (0 when never shown there)


def order_table(reviews: Iterable[tuple[Sequence[str], str | None]], keys: Sequence[str]) -> list[dict[str, OrderCell]]:
    """For each position (1st, 2nd, ...) and each concept: how often it was shown there and chosen there.

    `reviews` gives each review's shown order (concept keys) and the concept it chose (None: no choice)."""
    positions = len(keys)
    shown = [dict.fromkeys(keys, 0) for _ in range(positions)]
    chosen = [dict.fromkeys(keys, 0) for _ in range(positions)]
    for order, choice in reviews:
        for position, key in enumerate(order[:positions]):
            if key in shown[position]:
                shown[position][key] += 1
                if key == choice:
                    chosen[position][key] += 1
    return [
        {k: OrderCell(shown[p][k], chosen[p][k], chosen[p][k] / shown[p][k] if shown[p][k] else 0.0) for k in keys}
        for p in range(positions)
    ]


def chosen_at(table: list[dict[str, OrderCell]]) -> list[int]:
    """How many choices fell on each position, whatever the concept (a flat line: no order effect)."""
    return [sum(cell.chosen for cell in row.values()) for row in table]
