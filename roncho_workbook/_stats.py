"""The figures of a statistics row: one way to summarise a list of seconds for every probe.

A row says how many were measured in its own words (``n``, ``released``, ``of``); the
figures after them are always ``median_s``, ``p90_s``, ``min_s`` and ``max_s``, from
`spread`, so that tables of different questions read alike.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable


def median(values: Iterable[float]) -> float | None:
    """The median to the millisecond; None when there is nothing to take it of."""
    got = list(values)
    return round(statistics.median(got), 3) if got else None


def p90(values: list[float]) -> float:
    """The 90th percentile, inclusive of the ends (one value is its own p90)."""
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=10, method="inclusive")[8]


def spread(values: Iterable[float]) -> dict[str, float | None]:
    """``median_s``, ``p90_s`` (to the millisecond), ``min_s`` and ``max_s`` (as measured)
    of ``values``; each None when there are none."""
    got = sorted(values)
    return {
        "median_s": median(got),
        "p90_s": round(p90(got), 3) if got else None,
        "min_s": got[0] if got else None,
        "max_s": got[-1] if got else None,
    }
