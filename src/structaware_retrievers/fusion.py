"""Hybrid fusion defaults (no imports: the CLI reads them without loading any engine).

Chosen on the development benchmark (BENCHMARKS.md, "Retrieval (issue 15)"): Qdrant's weighted RRF
scores a unit ``sum(1 / (r / w + k - 1))`` over the dense and BM25 prefetches (``r`` its 1-based
rank there, ``w`` that prefetch's weight).
"""

#: the RRF constant ``k``
DEFAULT_RRF_K = 60
#: (dense, BM25) RRF weights
DEFAULT_WEIGHTS: tuple[float, float] = (1.0, 1.0)
#: candidates fetched per prefetch before fusion
DEFAULT_PREFETCH_LIMIT = 50
