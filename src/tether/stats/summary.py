"""Mean and standard deviation with the SD convention stated alongside."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

SDConvention = Literal["sample", "population"]
SD_CONVENTIONS: tuple[str, ...] = ("sample", "population")


@dataclass(frozen=True)
class MeanSD:
    """A mean with its SD, the number of values, and which SD it is.

    ``convention`` is ``"sample"`` (divide by n - 1) or ``"population"`` (divide by n).
    ``str()`` gives e.g. ``"0.420 ± 0.120 (sample SD, n=10)"``.
    """

    mean: float
    sd: float
    n: int
    convention: str

    def format(self, digits: int = 3) -> str:
        """Render as ``mean ± sd (<convention> SD, n=<n>)`` with ``digits`` decimals."""
        return f"{self.mean:.{digits}f} ± {self.sd:.{digits}f} ({self.convention} SD, n={self.n})"

    def __str__(self) -> str:
        return self.format()


def mean_sd(values: Sequence[float], convention: SDConvention = "sample") -> MeanSD:
    """Mean and SD of ``values``.

    ``"sample"`` uses the n - 1 denominator (Bessel's correction) and gives sd = nan
    for a single value; ``"population"`` uses n and gives sd = 0.0 for one value.
    Empty input or NaN values raise ValueError.
    """
    if convention not in SD_CONVENTIONS:
        raise ValueError(f"convention must be one of {SD_CONVENTIONS}, got {convention!r}")
    xs = [float(v) for v in values]
    n = len(xs)
    if n == 0:
        raise ValueError("mean_sd needs at least one value")
    if any(math.isnan(x) for x in xs):
        raise ValueError("mean_sd got a NaN value")
    mean = math.fsum(xs) / n
    denom = n - 1 if convention == "sample" else n
    if denom == 0:
        sd = math.nan
    else:
        sd = math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / denom)
    return MeanSD(mean=mean, sd=sd, n=n, convention=convention)
