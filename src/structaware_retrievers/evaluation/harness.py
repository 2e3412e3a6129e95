"""The evaluation harness: methods x retrievers x scopes on a question set (paper sections 3.3-4.4).

Entry point: :func:`run_eval`. For each unit-construction method (:mod:`.baselines`) the units of
every question document are indexed in their own :class:`~structaware_retrievers.index.StructureIndex`
collection, all sharing one dense and one sparse encoder (so a text embedded for one method is
reused from the encoders' content-hash cache by the others); then every question is searched with
every retriever (``bm25`` = sparse, ``dense``, ``hybrid`` = the index's default weighted RRF in
Qdrant) in two scopes:

* ``corpus``: the whole index (all question documents), a page hit needs the right document too;
* ``document``: a payload filter on the question's own ``doc_id``.

Results are judged by :class:`.judge.Judge` and summarised by :mod:`.metrics`; structure-aware
units are compared against each baseline with paired tests (:mod:`.significance`, paper 4.2).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from structaware_readers.errors import (
    EmptyDocumentError,
    InputNotFoundError,
    MissingExtraError,
    ParserUnavailableError,
    StoreError,
)
from structaware_readers.models import ParsedDocument, Unit
from structaware_retrievers.encoders import DenseEncoder, EmbeddingCache, SparseEncoder

from .baselines import METHODS, REFERENCE_METHOD, get_method
from .judge import Judge, result_chars
from .metrics import (
    DEFAULT_BUDGETS,
    DEFAULT_DEPTH,
    QueryOutcome,
    metric_vector,
    rank_table,
    summarize_by_type,
)
from .questions import Question, load_questions, resolve_document
from .significance import DEFAULT_RESAMPLES, mcnemar_exact, paired_bootstrap

#: Retriever name -> ``StructureIndex.query`` mode.
RETRIEVER_MODES = {"bm25": "sparse", "dense": "dense", "hybrid": "hybrid"}
DEFAULT_METHODS = ("flat", "heading", "page", "element", "struct", "struct_noctx")
DEFAULT_RETRIEVERS = ("bm25", "dense", "hybrid")
SCOPES = ("corpus", "document")
#: Metrics compared in the significance tests; hit metrics also get McNemar.
TESTED_METRICS = ("PH@1", "PH@5", "MRR_p", "EH@1", "EH@5", "MRR_e", "EvH@5", "MRR_ev")
_HIT_PREFIXES = ("PH@", "EH@", "EvH@")


class Searcher(Protocol):
    """Anything that returns ranked units for a query (our index per method, or a peer pipeline)."""

    def search(self, text: str, *, k: int, mode: str, doc_id: str | None) -> list[Unit]: ...


@dataclass
class EvalResult:
    """Everything one run measured.

    Attributes:
        config: the run's parameters (paths as strings, methods, retrievers, ks, depth, budgets...).
        questions: ``[(qid, evidence_type)]`` in evaluation order.
        outcomes: ``{(scope, retriever, method): [QueryOutcome per question]}``; a peer pipeline
            appears with its name as both retriever and method (``("corpus", "langchain", "langchain")``).
        element_addressable: per method key.
        unit_stats: per method: ``{"units": n, "mean_chars": x, "ceiling": {subset: share}}``
            (characters of context + text; ``ceiling``: share of questions whose gold text some unit
            on a gold page covers, the upper bound of EvH@k).
        gold_coverage: per evidence type, how many questions' gold text lies inside one block of
            the parse (any kind / a ``table`` block): can the parse address the evidence at all?
        significance: ``{scope: {retriever: {baseline: {subset: {metric: {...}}}}}}``; each
            metric holds ``bootstrap`` (delta, p, CI) and, for hit metrics, ``mcnemar`` (b, c, p).
        timings: seconds per phase.
    """

    config: dict[str, Any]
    questions: list[tuple[str, str]]
    outcomes: dict[tuple[str, str, str], list[QueryOutcome]]
    element_addressable: dict[str, bool]
    unit_stats: dict[str, dict[str, float]] = field(default_factory=dict)
    significance: dict[str, Any] = field(default_factory=dict)
    gold_coverage: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)

    def summaries(self) -> dict[str, dict[str, dict[str, dict[str, dict[str, Any]]]]]:
        """``{scope: {retriever: {method: {subset: metrics}}}}``; subsets are ``"all"`` and each
        evidence type (see :func:`.metrics.summarize`)."""
        out: dict[str, Any] = {}
        ks = tuple(self.config.get("ks", (1, 5, 10)))
        depth = int(self.config.get("depth", DEFAULT_DEPTH))
        for (scope, retriever, method), outs in self.outcomes.items():
            out.setdefault(scope, {}).setdefault(retriever, {})[method] = summarize_by_type(
                outs, ks=ks, element_addressable=self.element_addressable.get(method, False), depth=depth
            )
        return out

    def render(self) -> str:
        """The printed report (paper-style Table 2, Table 5, significance, peers)."""
        from .report import render_result

        return render_result(self)

    def to_json(self) -> dict[str, Any]:
        """JSON-safe dict: config, summaries, significance, unit stats and per-query ranks
        ``per_query[scope][retriever][method][qid] = {"page", "element", "evidence", "ctx"}``."""
        per_query: dict[str, Any] = {}
        for (scope, retriever, method), outs in self.outcomes.items():
            ranks = rank_table(outs)
            for o in outs:
                ranks[o.qid]["ctx"] = o.ctx_chars
            per_query.setdefault(scope, {}).setdefault(retriever, {})[method] = ranks
        return {
            "config": self.config,
            "questions": [{"qid": q, "evidence_type": t} for q, t in self.questions],
            "element_addressable": self.element_addressable,
            "unit_stats": self.unit_stats,
            "gold_coverage": self.gold_coverage,
            "summaries": self.summaries(),
            "significance": self.significance,
            "timings": self.timings,
            "per_query": per_query,
        }


# ----------------------------------------------------------------------------- documents


class UnreadableDocumentWarning(UserWarning):
    """A question document has no readable text (e.g. a scanned PDF): its questions count as misses."""


def load_question_documents(
    questions: Sequence[Question],
    docs: Path,
    parsed: Path | None = None,
    *,
    pdf_tables: bool = True,
    textless: dict[str, str] | None = None,
) -> dict[str, ParsedDocument]:
    """Load each document the questions reference, once, by file stem: ``{stem: ParsedDocument}``.

    ``parsed`` (pre-parsed MinerU outputs, ``<stem>.zip`` or ``<stem>/``) is searched before
    ``docs`` (PDFs or parser outputs), so a run over pre-parsed outputs needs no parsing.
    Documents are read with :func:`structaware_readers.loader.load_document`; with ``pdf_tables``
    a parsed output is handed its PDF ``docs/<stem>.pdf`` when there is one, so tables the parser
    left without cells get grids from the PDF's text layer (:mod:`structaware_readers.table_recovery`).

    Args:
        textless: when given, a document without a text layer the parser can read (no body text,
            ``EmptyDocumentError``; or a scanned PDF the parser cannot read without OCR models,
            ``ParserUnavailableError``) is left out and recorded here as ``{stem: reason}``
            instead of raising. A missing optional dependency (``MissingExtraError``) still raises.

    Raises:
        InputNotFoundError: a referenced document is in neither folder, or a folder is missing.
        (and the readers' typed errors for unreadable inputs).
    """
    from structaware_readers.loader import load_document

    for folder, name in ((docs, "docs"), (parsed, "parsed")):
        if folder is not None and not Path(folder).is_dir():
            raise InputNotFoundError("not a folder", path=folder, field=name)
    out: dict[str, ParsedDocument] = {}
    for q in questions:
        if q.doc_stem in out or (textless is not None and q.doc_stem in textless):
            continue
        path = resolve_document(q.doc_stem, [parsed, docs])
        pdf = Path(docs) / f"{q.doc_stem}.pdf"
        try:
            if not pdf_tables:
                out[q.doc_stem] = load_document(path, pdf=False)
            else:
                out[q.doc_stem] = load_document(path, pdf=pdf if pdf.is_file() and pdf != path else None)
        except MissingExtraError:
            raise
        except (EmptyDocumentError, ParserUnavailableError) as exc:
            if textless is None:
                raise
            textless[q.doc_stem] = str(exc)
    return out


# ----------------------------------------------------------------------------- searching


class IndexSearcher:
    """One method's units in a :class:`StructureIndex` collection; the same search code for all methods."""

    def __init__(self, index: Any):
        self.index = index
        #: the hits of the last :meth:`search` (for the product's own budget packing, policy ``pack``)
        self.last_hits: list[Any] = []

    def search(self, text: str, *, k: int, mode: str, doc_id: str | None) -> list[Unit]:
        """Top ``k`` results (best first), one unit per hit with the index's default table groups:
        a hit whose ``group`` holds other rows of its table is judged as the one unit the retrievers
        hand over for it (:func:`structaware_retrievers.evidence.hit_unit`). A BM25 query with no
        searchable term (only stop words) returns no result, i.e. counts as a miss."""
        from structaware_retrievers.evidence import hit_unit
        from structaware_retrievers.filters import SearchFilter

        flt = SearchFilter(doc_ids=[doc_id]) if doc_id is not None else None
        self.last_hits = []
        if mode == "sparse" and not self.index.sparse.embed_query(text).indices:
            return []  # the index would answer with its dense fallback: not BM25's result
        hits = self.index.query(text, k=k, mode=mode, filter=flt, prefetch_limit=max(50, k))
        self.last_hits = sorted(hits, key=lambda h: h.rank)
        return [hit_unit(h) for h in self.last_hits]


def packed_budget_hits(
    hits: Sequence[Any], doc_id: str, gold_pages: Sequence[int], budgets: Sequence[int]
) -> dict[int, bool]:
    """Policy ``pack``: whether ``StructureIndex.query(..., budget_chars=B)`` would hand over a unit of
    ``doc_id`` on a gold page, for each budget B (:func:`structaware_retrievers.evidence.fit_budget`
    over the same hits: skip what does not fit, drop group rows before hits)."""
    from structaware_retrievers.evidence import evidence_units, fit_budget

    wanted = set(gold_pages)
    return {
        b: any(u.doc_id == doc_id and wanted.intersection(u.pages) for _, u, _ in evidence_units(fit_budget(hits, b)))
        for b in budgets  # fmt: skip
    }


def _open_method_index(method: str, root: Path, dense: Any, sparse: Any, say: Callable[[str], None]) -> Any:
    """The method's index in ``root/<method>`` (``<method>.bm25-only`` with the placeholder dense
    encoder). An index there that was built with other encoders (its config does not match) is
    derived data of an earlier run: it is removed and rebuilt (the embedding cache stays)."""
    from structaware_retrievers.index import StructureIndex

    folder = root / (method if not isinstance(dense, NoDenseEncoder) else f"{method}.bm25-only")
    try:
        return StructureIndex(folder, collection=f"eval_{method}", dense=dense, sparse=sparse)
    except StoreError as exc:
        if not (folder / f"eval_{method}").is_dir():
            raise
        say(f"[{method}] rebuilding the evaluation index: {exc.message}")
        shutil.rmtree(folder / f"eval_{method}")
        return StructureIndex(folder, collection=f"eval_{method}", dense=dense, sparse=sparse)


class NoDenseEncoder(DenseEncoder):
    """Placeholder dense encoder for BM25-only runs: every text gets the same unit vector, no model
    is loaded, and no query uses the vector (sparse mode searches BM25 only). It lets a BM25-only
    run over a large corpus skip the dense model, the slow part of indexing."""

    def __init__(self, cache: EmbeddingCache | None = None):
        super().__init__(cache=cache)
        self.model_name = "structaware-eval/no-dense"
        self.model_id = "structaware-eval/no-dense@1"

    def _compute(self, texts: list[str]) -> list[Any]:
        v = np.zeros(self.dim, dtype=np.float32)
        v[0] = 1.0
        return [v] * len(texts)

    def embed_query(self, text: str) -> list[float]:
        raise RuntimeError("the BM25-only placeholder encoder cannot embed queries")


def _default_encoders(cache_dir: Path, *, need_dense: bool = True) -> tuple[DenseEncoder, SparseEncoder]:
    """The package's default encoders sharing one persistent embedding cache (SQLite, keyed by
    model id and content hash) under ``cache_dir``: a text embedded once is reused by every method
    and every later run with the same ``index_dir``. Without ``need_dense`` (BM25-only runs) the
    dense encoder is :class:`NoDenseEncoder`, which loads no model."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    cache = EmbeddingCache(cache_dir / "embeddings.sqlite")
    dense = DenseEncoder(cache=cache) if need_dense else NoDenseEncoder(cache=cache)
    return dense, SparseEncoder(cache=cache)


def _prewarm(encoders: Sequence[Any], texts: Sequence[str], say: Callable[[str], None], label: str) -> None:
    """Embed the distinct ``texts`` once, shortest first, into the encoders' caches before indexing.

    Batches of similar length pad less (the dense model pads a batch to its longest text), and
    texts already embedded for another method or an earlier run are cache hits."""
    uniq = sorted(set(texts), key=len)
    step = 1024
    t0 = time.perf_counter()
    for i in range(0, len(uniq), step):
        part = uniq[i : i + step]
        for enc in encoders:
            enc.embed_documents(part)
        done = min(i + step, len(uniq))
        say(f"[{label}] embedded {done}/{len(uniq)} distinct texts ({time.perf_counter() - t0:.0f}s)")


# ----------------------------------------------------------------------------- significance


def _significance(
    outcomes: dict[tuple[str, str, str], list[QueryOutcome]],
    element_addressable: dict[str, bool],
    scopes: Iterable[str],
    retrievers: Iterable[str],
    methods: Sequence[str],
    *,
    resamples: int,
    depth: int,
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if REFERENCE_METHOD not in methods:
        return out
    for scope in scopes:
        for retriever in retrievers:
            ref = outcomes.get((scope, retriever, REFERENCE_METHOD))
            if ref is None:
                continue
            for base in methods:
                other = outcomes.get((scope, retriever, base))
                if base == REFERENCE_METHOD or other is None:
                    continue
                subsets: dict[str, list[int]] = {"all": list(range(len(ref)))}
                for i, o in enumerate(ref):
                    subsets.setdefault(o.evidence_type, []).append(i)
                res: dict[str, Any] = {}
                for subset, idx in subsets.items():
                    a_out = [ref[i] for i in idx]
                    b_out = [other[i] for i in idx]
                    res[subset] = _compare(a_out, b_out, element_addressable.get(base, False), resamples, depth)
                out.setdefault(scope, {}).setdefault(retriever, {})[base] = res
    return out


def _compare(
    a: list[QueryOutcome], b: list[QueryOutcome], b_elements: bool, resamples: int, depth: int
) -> dict[str, Any]:
    res: dict[str, Any] = {"n": len(a)}
    for metric in TESTED_METRICS:
        if metric.startswith(("EH", "MRR_e")) and not b_elements:
            continue
        if metric.startswith(("EH", "EvH", "MRR_e")):
            pairs = [(x, y) for x, y in zip(a, b) if x.has_gold_text]
            if not pairs:
                continue
            aa, bb = [p[0] for p in pairs], [p[1] for p in pairs]
        else:
            aa, bb = a, b
        va, vb = metric_vector(aa, metric, depth), metric_vector(bb, metric, depth)
        entry: dict[str, Any] = {"bootstrap": paired_bootstrap(va, vb, resamples=resamples).to_dict()}
        if metric.startswith(_HIT_PREFIXES):
            entry["mcnemar"] = mcnemar_exact(va, vb).to_dict()
        res[metric] = entry
    return res


# ----------------------------------------------------------------------------- main entry


def run_eval(
    questions: Path,
    docs: Path,
    *,
    parsed: Path | None = None,
    methods: Sequence[str] = DEFAULT_METHODS,
    retrievers: Sequence[str] = DEFAULT_RETRIEVERS,
    ks: Sequence[int] = (1, 5, 10),
    json_out: Path | None = None,
    index_dir: Path | None = None,
    limit: int | None = None,
    scopes: Sequence[str] = SCOPES,
    peers: bool = False,
    depth: int = DEFAULT_DEPTH,
    budgets: Sequence[int] = DEFAULT_BUDGETS,
    resamples: int = DEFAULT_RESAMPLES,
    dense: Any = None,
    sparse: Any = None,
    progress: bool = False,
    log: Callable[[str], None] | None = None,
    pdf_tables: bool = True,
) -> EvalResult:
    """Evaluate unit-construction methods x retrievers x scopes on a question file.

    Args:
        questions: JSON-lines question file (:mod:`.questions`).
        docs: folder of the question documents (PDFs or parser outputs), matched by file stem.
        parsed: folder of pre-parsed MinerU outputs (``<stem>.zip`` or ``<stem>/``), searched first.
        methods: method keys of :data:`.baselines.METHODS` (``flat``, ``heading``, ``page``,
            ``element``, ``struct``, ``struct_noctx``).
        retrievers: any of ``bm25`` (sparse BM25, IDF in Qdrant), ``dense``, ``hybrid`` (the index's
            default fusion, :mod:`structaware_retrievers.fusion`).
        ks: cut-offs for PH@k / EH@k / EvH@k.
        json_out: write :meth:`EvalResult.to_json` here (per-query ranks included).
        index_dir: where the per-method index folders (``<index_dir>/<method>``) and the
            embedding caches (``<index_dir>/cache``) live; reusing it across runs skips
            re-embedding. ``None``: a temporary folder removed at the end.
        limit: evaluate only the first ``limit`` questions (file order); only their documents load.
        scopes: ``"corpus"`` and/or ``"document"``.
        peers: also run the LlamaIndex and LangChain default pipelines (:mod:`.peers`).
        depth: results retrieved per query (MRR counts first hits within it).
        budgets: context budgets in characters (Table 5).
        resamples: paired bootstrap resamples.
        dense, sparse: encoders to use (default: the package defaults, cached under ``index_dir``).
        progress: show a progress bar on stderr.
        log: called with one line per phase (e.g. ``print``), or ``None`` for silence.
        pdf_tables: hand each parsed output its PDF from ``docs`` (``<stem>.pdf``) so that tables the
            parser left without cells get grids from the PDF's text layer; ``False`` reads the
            parser output alone (such tables then get grids only from the parser's aligned text).

    Returns:
        an :class:`EvalResult`; ``result.render()`` gives the printed tables.

    Raises:
        InputNotFoundError / MalformedInputError / EmptyDocumentError: bad question file or a
            document that cannot be found or read (named in the message); no document has text.

    A document without readable text (no text layer, e.g. a scanned PDF under a parser tier
    without OCR) does not abort the run: an :class:`UnreadableDocumentWarning` is issued (and a
    ``warning:`` line logged), its questions count as misses in every method, and it is listed
    in ``result.config["textless_documents"]``.
        ValueError: unknown method, retriever or scope.
    """
    say = log or (lambda _msg: None)
    for m in methods:
        get_method(m.replace("-", "_"))
    methods = [m.replace("-", "_") for m in methods]
    for r in retrievers:
        if r not in RETRIEVER_MODES:
            raise ValueError(f"unknown retriever {r!r}; expected some of {sorted(RETRIEVER_MODES)}")
    for s in scopes:
        if s not in SCOPES:
            raise ValueError(f"unknown scope {s!r}; expected some of {list(SCOPES)}")
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    qs = load_questions(questions, limit=limit)
    textless: dict[str, str] = {}
    docs_by_stem = load_question_documents(
        qs, Path(docs), Path(parsed) if parsed else None, pdf_tables=pdf_tables, textless=textless
    )
    for stem, reason in textless.items():
        n = sum(q.doc_stem == stem for q in qs)
        message = f"{stem}: no readable text ({reason}); its {n} question(s) count as misses"
        warnings.warn(message, UnreadableDocumentWarning, stacklevel=2)
        say(f"warning: {message}")
    if not docs_by_stem:
        raise EmptyDocumentError("no question document has readable text", path=docs, field="docs")
    timings["load"] = time.perf_counter() - t0
    say(f"loaded {len(qs)} questions over {len(docs_by_stem)} documents in {timings['load']:.1f}s")
    judge = Judge({d.doc_id: d for d in docs_by_stem.values()})
    # a question on a text-less document has no gold document in the index: "" matches no unit
    gold_doc = {q.qid: docs_by_stem[q.doc_stem].doc_id if q.doc_stem in docs_by_stem else "" for q in qs}

    outcomes: dict[tuple[str, str, str], list[QueryOutcome]] = {}
    unit_stats: dict[str, dict[str, float]] = {}
    addressable = {m: METHODS[m].element_addressable for m in methods}
    with ExitStack() as stack:
        if index_dir is None:
            root = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="structaware-eval-")))
        else:
            root = Path(index_dir)
            root.mkdir(parents=True, exist_ok=True)
        if dense is None or sparse is None:
            need_dense = peers or any(r != "bm25" for r in retrievers)
            d_default, s_default = _default_encoders(root / "cache", need_dense=need_dense)
            stack.callback(d_default.cache.close)  # runs after every index is closed
            dense = dense if dense is not None else d_default
            sparse = sparse if sparse is not None else s_default
        for m in methods:
            t1 = time.perf_counter()
            method = METHODS[m]
            index = _open_method_index(m, root, dense, sparse, say)
            stack.callback(index.close)
            built = [(doc, method.build(doc)) for doc in docs_by_stem.values()]
            n_units = sum(len(units) for _, units in built)
            chars = sum(result_chars(u) for _, units in built for u in units)
            _prewarm([dense, sparse], [u.embedding_text() for _, units in built for u in units], say, m)
            for doc, units in built:
                index.add_document(doc, units)
            unit_stats[m] = {
                "units": n_units,
                "mean_chars": chars / n_units if n_units else 0.0,
                "ceiling": _ceiling(qs, judge, gold_doc, built),
            }
            timings[f"index:{m}"] = time.perf_counter() - t1
            say(f"[{m}] indexed {n_units} units in {timings[f'index:{m}']:.1f}s")
            searcher = IndexSearcher(index)
            t2 = time.perf_counter()
            _search_all(
                searcher, m, qs, gold_doc, judge, outcomes, scopes,
                [(r, RETRIEVER_MODES[r]) for r in retrievers],
                depth=depth, budgets=budgets, element_addressable=addressable[m], progress=progress,
            )
            timings[f"search:{m}"] = time.perf_counter() - t2
            say(f"[{m}] searched in {timings[f'search:{m}']:.1f}s")
        if peers:
            from .peers import PEERS

            for name, (factory, mode) in PEERS.items():
                t3 = time.perf_counter()
                searcher = factory(list(docs_by_stem.values()), dense=dense, sparse=sparse)
                addressable[name] = False
                unit_stats[name] = searcher.stats()
                peer_units = list(searcher.units.values())
                unit_stats[name]["ceiling"] = _ceiling(
                    qs, judge, gold_doc, [(d, [u for u in peer_units if u.doc_id == d.doc_id]) for d in docs_by_stem.values()]
                )
                _search_all(
                    searcher, name, qs, gold_doc, judge, outcomes, scopes, [(name, mode)],
                    depth=depth, budgets=budgets, element_addressable=False, progress=progress,
                )
                timings[f"peer:{name}"] = time.perf_counter() - t3
                say(f"[peer {name}] done in {timings[f'peer:{name}']:.1f}s")

    t4 = time.perf_counter()
    significance = _significance(
        outcomes, addressable, scopes, retrievers, methods, resamples=resamples, depth=depth
    )
    if peers and (("document", "hybrid", REFERENCE_METHOD) in outcomes or ("corpus", "hybrid", REFERENCE_METHOD) in outcomes):
        significance["peers"] = _peer_significance(outcomes, scopes, resamples, depth)
    timings["significance"] = time.perf_counter() - t4
    gold_cov = _gold_coverage(qs, judge, gold_doc)
    result = EvalResult(
        config={
            "questions": str(questions),
            "docs": str(docs),
            "parsed": str(parsed) if parsed else None,
            "methods": list(methods),
            "retrievers": list(retrievers),
            "scopes": list(scopes),
            "ks": list(ks),
            "depth": depth,
            "budgets": list(budgets),
            "resamples": resamples,
            "limit": limit,
            "peers": peers,
            "pdf_tables": pdf_tables,
            "n_questions": len(qs),
            "n_documents": len(docs_by_stem),
            "documents": {stem: d.doc_id for stem, d in docs_by_stem.items()},
            "textless_documents": dict(textless),
        },
        questions=[(q.qid, q.evidence_type) for q in qs],
        outcomes=outcomes,
        element_addressable=addressable,
        unit_stats=unit_stats,
        significance=significance,
        gold_coverage=gold_cov,
        timings=timings,
    )
    if json_out is not None:
        from .report import write_json

        write_json(result, Path(json_out))
    return result


def _search_all(
    searcher: Searcher,
    method: str,
    qs: Sequence[Question],
    gold_doc: dict[str, str],
    judge: Judge,
    outcomes: dict[tuple[str, str, str], list[QueryOutcome]],
    scopes: Sequence[str],
    retrievers: Sequence[tuple[str, str]],
    *,
    depth: int,
    budgets: Sequence[int],
    element_addressable: bool,
    progress: bool,
) -> None:
    from tqdm import tqdm

    combos = [(s, r, mode) for s in scopes for r, mode in retrievers]
    bar = tqdm(total=len(combos) * len(qs), desc=method, disable=not progress, file=sys.stderr)
    for scope, retriever, mode in combos:
        outs = []
        for q in qs:
            doc_id = gold_doc[q.qid]
            if not doc_id:  # its document has no readable text: a miss, nothing to search
                outs.append(judge.judge(q, doc_id, [], element_addressable=element_addressable, budgets=budgets))
                bar.update(1)
                continue
            units = searcher.search(q.question, k=depth, mode=mode, doc_id=doc_id if scope == "document" else None)
            out = judge.judge(q, doc_id, units, element_addressable=element_addressable, budgets=budgets)
            hits = getattr(searcher, "last_hits", None)  # peers have no hits: their packing is ``skip``
            out.budget_hits["pack"] = (
                packed_budget_hits(hits, doc_id, q.gold_pages, budgets)
                if hits is not None
                else dict(out.budget_hits["skip"])
            )
            outs.append(out)
            bar.update(1)
        outcomes[(scope, retriever, method)] = outs
    bar.close()


def _peer_significance(
    outcomes: dict[tuple[str, str, str], list[QueryOutcome]], scopes: Iterable[str], resamples: int, depth: int
) -> dict[str, Any]:
    """Struct-aware hybrid against each peer pipeline, per scope (PH@k and MRR_p, EvH)."""
    out: dict[str, Any] = {}
    for scope in scopes:
        ref = outcomes.get((scope, "hybrid", REFERENCE_METHOD))
        if ref is None:
            continue
        for (s, retriever, method), other in outcomes.items():
            if s != scope or method not in ("llamaindex", "langchain"):
                continue
            out.setdefault(scope, {})[method] = {"all": _compare(ref, other, False, resamples, depth)}
    return out


def _ceiling(
    qs: Sequence[Question], judge: Judge, gold_doc: dict[str, str], built: Sequence[tuple[ParsedDocument, list[Unit]]]
) -> dict[str, float]:
    """Evidence-hit ceiling of a method, per evidence type: the share of questions with gold text
    for which *some* unit of the method on a gold page covers the gold text with its own
    ``context + text``, i.e. the best EvH@k any retriever could reach with these units."""
    by_doc: dict[str, list[Unit]] = {doc.doc_id: units for doc, units in built}
    hits: dict[str, list[float]] = {}
    for q in qs:
        if not q.gold_texts:
            continue
        doc_id = gold_doc[q.qid]
        gold = set(q.gold_pages)
        cands = [u for u in by_doc.get(doc_id, []) if gold.intersection(u.pages)]
        outcome = judge.judge(q, doc_id, cands, element_addressable=False, budgets=())
        hit = 1.0 if outcome.evidence_rank is not None else 0.0
        for key in ("all", q.evidence_type):
            hits.setdefault(key, []).append(hit)
    return {k: sum(v) / len(v) for k, v in sorted(hits.items())}


def _gold_coverage(qs: Sequence[Question], judge: Judge, gold_doc: dict[str, str]) -> dict[str, Any]:
    """How often the parse can address the gold evidence at all: per evidence type, the share of
    questions with gold text whose evidence is covered by one block of the gold page (any kind),
    and by one ``table`` block."""
    stats: dict[str, dict[str, float]] = {}
    for q in qs:
        if not q.gold_texts:
            continue
        for key in ("all", q.evidence_type):
            s = stats.setdefault(key, {"n": 0, "any_block": 0, "table_block": 0})
            s["n"] += 1
            s["any_block"] += judge.gold_in_any_block(q, gold_doc[q.qid])
            s["table_block"] += judge.gold_in_any_block(q, gold_doc[q.qid], kinds={"table"})
    for s in stats.values():
        n = s["n"] or 1
        s["any_block_rate"] = s["any_block"] / n
        s["table_block_rate"] = s["table_block"] / n
    return stats
