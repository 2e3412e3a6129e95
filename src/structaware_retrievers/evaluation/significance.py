"""Paired significance tests of paper section 4.2: paired bootstrap and exact McNemar.

Both take per-query metric vectors of two methods over the *same* questions in the same order
(:func:`structaware_retrievers.evaluation.metrics.metric_vector`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np
from scipy.stats import binomtest

#: Resamples of the paired bootstrap (paper 4.2).
DEFAULT_RESAMPLES = 10_000
#: Fixed seed, so a run's p-values are reproducible.
DEFAULT_SEED = 20240229


@dataclass(frozen=True)
class BootstrapResult:
    """Paired bootstrap outcome."""

    delta: float
    p_value: float
    ci_low: float
    ci_high: float
    resamples: int

    def to_dict(self) -> dict[str, float | int]:
        return asdict(self)


@dataclass(frozen=True)
class McNemarResult:
    """Exact McNemar outcome on paired binary hits."""

    b: int
    c: int
    p_value: float

    def to_dict(self) -> dict[str, float | int]:
        return asdict(self)


def _paired(a: Sequence[float], b: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    if x.ndim != 1 or x.shape != y.shape:
        raise ValueError(f"paired vectors must be 1-D and of equal length, got {x.shape} and {y.shape}")
    if x.size == 0:
        raise ValueError("paired vectors are empty")
    return x, y


def paired_bootstrap(
    a: Sequence[float],
    b: Sequence[float],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> BootstrapResult:
    """Two-sided paired bootstrap test of ``mean(a) - mean(b)`` over ``resamples`` resamples of the queries
    (``p = min(1, 2 * min(P(d* <= 0), P(d* >= 0)))``; ``p = 0`` means ``p < 1 / resamples``). Raises ``ValueError``
    (empty, not 1-D or different lengths; ``resamples < 1``).
    """
    x, y = _paired(a, b)
    if resamples < 1:
        raise ValueError("resamples must be >= 1")
    d = x - y
    rng = np.random.default_rng(seed)
    n = d.size
    means = np.empty(resamples)
    step = max(1, 2_000_000 // n)  # bound memory: at most ~2M indices per batch
    for start in range(0, resamples, step):
        m = min(step, resamples - start)
        idx = rng.integers(0, n, size=(m, n))
        means[start : start + m] = d[idx].mean(axis=1)
    le = float(np.mean(means <= 0))
    ge = float(np.mean(means >= 0))
    p = min(1.0, 2.0 * min(le, ge))
    lo, hi = np.percentile(means, [2.5, 97.5])
    return BootstrapResult(float(d.mean()), p, float(lo), float(hi), resamples)


def mcnemar_exact(a_hits: Sequence[float | bool], b_hits: Sequence[float | bool]) -> McNemarResult:
    """Exact (binomial) McNemar test on paired binary outcomes. Raises ``ValueError``."""
    x, y = _paired([float(v) for v in a_hits], [float(v) for v in b_hits])
    if not (np.isin(x, (0.0, 1.0)).all() and np.isin(y, (0.0, 1.0)).all()):
        raise ValueError("McNemar needs binary (0/1) hit vectors")
    b = int(np.sum((x == 1) & (y == 0)))
    c = int(np.sum((x == 0) & (y == 1)))
    if b + c == 0:
        return McNemarResult(b, c, 1.0)
    return McNemarResult(b, c, float(binomtest(c, b + c, 0.5, alternative="two-sided").pvalue))


def format_p(p: float, resamples: int = DEFAULT_RESAMPLES) -> str:
    """``p`` for a table: ``"<0.001"`` below 0.001 (and below the bootstrap floor), else 3 decimals."""
    if p < max(1e-3, 1.0 / resamples):
        return "<0.001"
    return f"{p:.3f}"
