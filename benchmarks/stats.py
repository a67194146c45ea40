"""Small statistics and table helpers shared by the benchmarks (standard library only)."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Summary:
    """Median and spread of a set of samples (one sample per round or per run)."""

    median: float
    low: float
    high: float
    n: int

    @classmethod
    def of(cls, samples: Sequence[float]) -> Summary:
        if not samples:
            return cls(float("nan"), float("nan"), float("nan"), 0)
        return cls(statistics.median(samples), min(samples), max(samples), len(samples))

    def show(self, digits: int = 0, unit: str = "") -> str:
        """``median [min-max]``; the spread is the whole range over the rounds."""
        if self.n == 0:
            return "n/a"
        fmt = f"{{:,.{digits}f}}"
        if self.n == 1:
            return fmt.format(self.median) + unit
        return f"{fmt.format(self.median)}{unit} [{fmt.format(self.low)}-{fmt.format(self.high)}]"


def ratio(a: float, b: float) -> str:
    if not b or a != a or b != b:
        return "n/a"
    return f"{a / b:.2f}x"


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A Markdown table, columns padded so it also reads well in a terminal."""
    widths = [len(h) for h in header]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(cell))

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    sep = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([line(header), sep, *(line(r) for r in rows)])


def verdict(ok: bool | None) -> str:
    return "n/a" if ok is None else ("MET" if ok else "MISSED")
