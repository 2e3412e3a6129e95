"""Hybrid fusion and result defaults, stated once for every face (no imports: the CLI reads them without loading any
engine; :class:`~structaware_retrievers.search.options.SearchOptions` carries them). Qdrant's weighted RRF scores a
unit ``sum(1 / (r / w + k - 1))`` over the dense and BM25 prefetches (``r`` its 1-based rank there, ``w`` that
prefetch's weight).
"""

#: the RRF constant ``k``
DEFAULT_RRF_K = 2
#: (dense, BM25) RRF weights
DEFAULT_WEIGHTS: tuple[float, float] = (0.1, 1.0)
#: candidates fetched per prefetch before fusion
DEFAULT_PREFETCH_LIMIT = 50

#: RRF weight of the third prefetch a question that asks for a grade adds (BM25 among ``recommendation`` units,
#: :mod:`structaware_retrievers.query.intent`); 0 turns it off. Chosen on the development guidelines' grade
#: questions (docs/benchmarks/rerank.md, "Questions that ask for a grade"): 0.5 lost table and section answers.
DEFAULT_GRADE_FOCUS = 0.3

#: rows of one table merged into one hit (the best row plus up to this many - 1 other matched rows
#: of its table; 1 = every row its own hit). Grouping was chosen on the development benchmark
#: (docs/benchmarks/retrieval.md, "Retrieval that beats chunking"): hits of other tables and sections move up
#: instead of a table's near-identical rows filling the top k. A row joins only when it is not paragraph-long
#: (:data:`GROUP_LONG_ROW_CHARS`), rows past the second only when short (:data:`GROUP_SHORT_ROW_CHARS`).
DEFAULT_GROUP_SIZE = 3

#: a matched row joins a group only when its line (``results.row_line``) is at most this many characters, the
#: size of a section part (``UnitOptions.max_section_chars``): a longer row (a guideline's key points and doses
#: in one row, 1,000-1,500 characters) is a unit's worth of evidence: set aside, it comes back as a hit of its own
#: after the others (``evidence.group_table_rows``). Measured in docs/benchmarks/publishers.md, "Shorter top-5
#: context".
GROUP_LONG_ROW_CHARS = 600

#: a matched row past a group's second joins it only when its line (``results.row_line``: its cells, the
#: way a group row is handed over) is at most this many characters: a filing's figures row (a total and
#: its parts, asked together) costs little context, a guideline's paragraph-long row much
#: (docs/benchmarks/cpg-retrieval.md).
GROUP_SHORT_ROW_CHARS = 200

#: the calibrated relevance (``SearchHit.relevance``, :mod:`structaware_retrievers.search.calibration`) below
#: which a hit is "not in this library": every face drops hits (and table-group rows) under it unless
#: given another ``min_score`` (0 keeps every hit). Fitted on the development guidelines
#: (docs/benchmarks/calibration.md): 92.5% of 40 off-topic questions (English and Chinese) get no hit
#: at or above it, while 97.9% of the development guidelines' questions keep their gold hit.
DEFAULT_MIN_SCORE = 0.5
