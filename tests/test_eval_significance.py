"""Paired bootstrap and exact McNemar against hand-computed and scipy reference values (paper 4.2)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom

from structaware_retrievers.evaluation.significance import format_p, mcnemar_exact, paired_bootstrap


def test_mcnemar_b8_c2_hand_computed():
    # 8 queries only A hits, 2 only B hits, 5 both, 5 neither
    a = [1] * 8 + [0] * 2 + [1] * 5 + [0] * 5
    b = [0] * 8 + [1] * 2 + [1] * 5 + [0] * 5
    r = mcnemar_exact(a, b)
    assert (r.b, r.c) == (8, 2)
    # two-sided exact: 2 * P(X <= 2), X ~ Bin(10, 0.5) = 2 * (1 + 10 + 45) / 1024
    assert r.p_value == pytest.approx(112 / 1024)


def test_mcnemar_symmetric_and_degenerate():
    assert mcnemar_exact([1, 1, 0], [1, 1, 0]).p_value == 1.0  # no discordant pairs
    r = mcnemar_exact([True] * 6, [False] * 6)
    assert (r.b, r.c) == (6, 0)
    assert r.p_value == pytest.approx(2 * 0.5**6)
    # 4 vs 4 discordant: perfectly balanced
    assert mcnemar_exact([1] * 4 + [0] * 4, [0] * 4 + [1] * 4).p_value == pytest.approx(1.0)
    # matches the binomial reference for an asymmetric case (b=15, c=5)
    r = mcnemar_exact([1] * 15 + [0] * 5, [0] * 15 + [1] * 5)
    assert r.p_value == pytest.approx(min(1.0, 2 * binom.cdf(5, 20, 0.5)))
    with pytest.raises(ValueError, match="binary"):
        mcnemar_exact([0.5, 1], [0, 1])
    with pytest.raises(ValueError, match="equal length"):
        mcnemar_exact([1, 0], [1])


def test_bootstrap_identical_and_dominating():
    same = paired_bootstrap([0.2, 0.5, 1.0], [0.2, 0.5, 1.0])
    assert same.delta == 0.0 and same.p_value == 1.0
    better = paired_bootstrap([1, 1, 1, 1], [0, 0, 0.5, 0])
    assert better.delta == pytest.approx(0.875)
    assert better.p_value == 0.0  # every resampled difference is > 0
    assert format_p(better.p_value) == "<0.001"


def test_bootstrap_two_queries_matches_exact_distribution():
    # d = [1, 0]: a resample mean is 0 with probability 1/4, so p = 2 * 1/4 = 0.5
    r = paired_bootstrap([1, 0], [0, 0], resamples=10_000, seed=1)
    assert r.delta == 0.5
    assert r.p_value == pytest.approx(0.5, abs=0.03)
    assert r.ci_low == 0.0 and r.ci_high == 1.0


def test_bootstrap_against_normal_approximation():
    rng = np.random.default_rng(0)
    n = 400
    d = rng.normal(0.1, 1.0, size=n)
    r = paired_bootstrap(d, np.zeros(n), resamples=10_000, seed=3)
    z = d.mean() / (d.std(ddof=0) / math.sqrt(n))
    p_normal = math.erfc(abs(z) / math.sqrt(2))
    assert r.p_value == pytest.approx(p_normal, abs=0.02)
    assert r.ci_low < d.mean() < r.ci_high


def test_bootstrap_is_reproducible_and_validates():
    a, b = [1, 0, 1, 1, 0, 1], [0, 0, 1, 0, 1, 1]
    assert paired_bootstrap(a, b, seed=7) == paired_bootstrap(a, b, seed=7)
    with pytest.raises(ValueError, match="equal length"):
        paired_bootstrap([1, 2], [1])
    with pytest.raises(ValueError, match="empty"):
        paired_bootstrap([], [])
