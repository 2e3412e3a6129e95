"""Hybrid fusion and result defaults: the one default of every face (no imports: the CLI reads them
without loading any engine).

``StructureIndex.query``, the engine layer (``VectorStore.query``), the CLI, ``structaware serve``,
MCP, both retrievers and both framework vector stores take their RRF ``k``, (dense, BM25) weights
and prefetch depth from here, and each takes ``rrf_k=``/``weights=``/``prefetch_limit=`` (CLI:
``--rrf-k``/``--weights``/``--prefetch``) to override them. The values are chosen on the
development sets (the ``dense`` work of issue 23 owns them).

Chosen on the development benchmark (docs/benchmarks/retrieval.md, "Retrieval that beats chunking"): Qdrant's
weighted RRF scores a unit ``sum(1 / (r / w + k - 1))`` over the dense and BM25 prefetches (``r``
its 1-based rank there, ``w`` that prefetch's weight). The reference paper's RRF (section 2.4,
k = 60, equal weights) put hybrid search below BM25 alone on the development benchmark (Page Hit@5
0.762 vs 0.828 with the default dense model): BM25 is the stronger retriever on these documents and
the dense model is blind to numbers, so the dense list counts a tenth (its rank r weighs like BM25's
rank 10 r) and k is 2, which keeps BM25's clear first places first (a question naming a value finds
the row holding it) while the dense list reorders the close ones (hybrid 0.834). ``rrf_k=60,
weights=(1, 1)`` gives the paper's fusion back.

The default dense model searches English questions with MiniLM and Chinese/Japanese/Korean ones
with USE multilingual (:mod:`~structaware_retrievers.encoders.language_routed`): English rankings,
and so these values' figures on English sets, are MiniLM's exactly. On the Chinese guidelines
(``cpg_zh``, 21 text-layer questions) BM25 alone already has every gold page in its top 5, and at
these values hybrid equals BM25 there; a larger dense weight (0.2-0.7 at k = 2) moves one more
question to rank 1 but was not adopted without English evidence (docs/benchmarks/dense.md).
"""

#: the RRF constant ``k``
DEFAULT_RRF_K = 2
#: (dense, BM25) RRF weights
DEFAULT_WEIGHTS: tuple[float, float] = (0.1, 1.0)
#: candidates fetched per prefetch before fusion
DEFAULT_PREFETCH_LIMIT = 50

#: rows of one table merged into one hit (the best row plus up to this many - 1 other matched rows
#: of its table; 1 = every row its own hit). Grouping was chosen on the development benchmark
#: (docs/benchmarks/retrieval.md, "Retrieval that beats chunking"): hits of other tables and sections move up
#: instead of a table's near-identical rows filling the top k. Rows past the second join only when they
#: are short (:data:`GROUP_SHORT_ROW_CHARS`).
DEFAULT_GROUP_SIZE = 3

#: a matched row past a group's second joins it only when its line (``results.row_line``: its cells, the
#: way a group row is handed over) is at most this many characters: a filing's figures row (a total and
#: its parts, asked together) costs little context, a guideline's paragraph-long row much. Measured on
#: both kinds at once (docs/benchmarks/cpg-retrieval.md, "Sessions 4 and 5"): a third row of any length
#: costs the clinical guidelines 350 characters of top-5 context per question for no page or element
#: found, while OHR-Bench finance loses 14 evidence hits without it; measured on the row's text (with
#: its column headers, up to 700 characters on a 10-Q) instead of its cells, it kept 3 such hits out.
GROUP_SHORT_ROW_CHARS = 200

#: the calibrated relevance (``SearchHit.relevance``, :mod:`structaware_retrievers.search.calibration`) below
#: which a hit is "not in this library": every face drops hits (and table-group rows) under it unless
#: given another ``min_score`` (0 keeps every hit). Fitted on the development guidelines
#: (docs/benchmarks/calibration.md): 92.5% of 40 off-topic questions (English and Chinese) get no hit
#: at or above it, while 97.9% of the development guidelines' questions keep their gold hit.
DEFAULT_MIN_SCORE = 0.5

