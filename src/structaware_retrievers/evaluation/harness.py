"""The evaluation harness: methods x retrievers x scopes on a question set (the reference paper, 3.3-4.4)."""

from __future__ import annotations

import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from structaware_readers.errors import EmptyDocumentError
from structaware_readers.models import ParsedDocument, Unit
from structaware_retrievers.evaluation.baselines import METHODS, REFERENCE_METHOD, get_method
from structaware_retrievers.evaluation.comparisons import peer_significance, significance_tables
from structaware_retrievers.evaluation.documents import UnreadableDocumentWarning, load_question_documents
from structaware_retrievers.evaluation.judge import Judge, result_chars
from structaware_retrievers.evaluation.metrics import DEFAULT_BUDGETS, DEFAULT_DEPTH, QueryOutcome
from structaware_retrievers.evaluation.questions import Question, load_questions
from structaware_retrievers.evaluation.results import EvalResult
from structaware_retrievers.evaluation.searchers import (
    MethodSearcher,
    NoDenseEncoder,
    Searcher,
    default_encoders,
    open_method_index,
    packed_budget_hits,
    prewarm,
)
from structaware_retrievers.evaluation.significance import DEFAULT_RESAMPLES

__all__ = [
    "DEFAULT_METHODS",
    "DEFAULT_RETRIEVERS",
    "RETRIEVER_MODES",
    "SCOPES",
    "EvalResult",
    "NoDenseEncoder",
    "UnreadableDocumentWarning",
    "load_question_documents",
    "packed_budget_hits",
    "run_eval",
]

#: Retriever name -> ``StructureIndex.query`` mode.
RETRIEVER_MODES = {"bm25": "sparse", "dense": "dense", "hybrid": "hybrid"}
DEFAULT_METHODS = ("flat", "heading", "page", "element", "struct", "struct_noctx")
DEFAULT_RETRIEVERS = ("bm25", "dense", "hybrid")
SCOPES = ("corpus", "document")


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
    rerank: Any = None,
) -> EvalResult:
    """Evaluate unit-construction methods x retrievers x scopes on a question file; return an :class:`EvalResult`.

    ``docs`` and ``parsed`` are folders matched by file stem; ``ks`` the cut-offs of PH@k / EH@k / EvH@k;
    ``budgets`` context budgets in characters; ``index_dir`` keeps per-method indexes and caches (``None``: a
    temporary folder). A document without readable text warns and its questions count as misses. Raises
    ``InputNotFoundError``, ``MalformedInputError``, ``EmptyDocumentError``, ``ValueError`` (unknown method,
    retriever or scope).
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
            d_default, s_default = default_encoders(root / "cache", need_dense=need_dense)
            stack.callback(d_default.cache.close)  # runs after every index is closed
            dense = dense if dense is not None else d_default
            sparse = sparse if sparse is not None else s_default
        for m in methods:
            t1 = time.perf_counter()
            method = METHODS[m]
            index = open_method_index(m, root, dense, sparse, say)
            stack.callback(index.close)
            built = [(doc, method.build(doc)) for doc in docs_by_stem.values()]
            n_units = sum(len(units) for _, units in built)
            chars = sum(result_chars(u) for _, units in built for u in units)
            prewarm([dense], [u.embedding_text() for _, units in built for u in units], say, m)
            prewarm([sparse], [u.search_text() for _, units in built for u in units], say, m)
            for doc, units in built:
                index.add_document(doc, units)
            # as ``StructureIndex.ingest`` does at its end (points of equal BM25 score rank alike in every build
            # whatever the layout: ``encoders.sparse.tie_broken``)
            index.optimize()
            unit_stats[m] = {
                "units": n_units,
                "mean_chars": chars / n_units if n_units else 0.0,
                "ceiling": _ceiling(qs, judge, gold_doc, built),
            }
            timings[f"index:{m}"] = time.perf_counter() - t1
            say(f"[{m}] indexed {n_units} units in {timings[f'index:{m}']:.1f}s")
            searcher = MethodSearcher(index, rerank=rerank)
            t2 = time.perf_counter()
            _search_all(
                searcher,
                m,
                qs,
                gold_doc,
                judge,
                outcomes,
                scopes,
                [(r, RETRIEVER_MODES[r]) for r in retrievers],
                depth=depth,
                budgets=budgets,
                element_addressable=addressable[m],
                progress=progress,
            )
            timings[f"search:{m}"] = time.perf_counter() - t2
            say(f"[{m}] searched in {timings[f'search:{m}']:.1f}s")
        if peers:
            from structaware_retrievers.evaluation.peers import PEERS

            for name, (factory, mode) in PEERS.items():
                t3 = time.perf_counter()
                searcher = factory(list(docs_by_stem.values()), dense=dense, sparse=sparse)
                addressable[name] = False
                unit_stats[name] = searcher.stats()
                peer_units = list(searcher.units.values())
                unit_stats[name]["ceiling"] = _ceiling(
                    qs,
                    judge,
                    gold_doc,
                    [(d, [u for u in peer_units if u.doc_id == d.doc_id]) for d in docs_by_stem.values()],
                )
                _search_all(
                    searcher,
                    name,
                    qs,
                    gold_doc,
                    judge,
                    outcomes,
                    scopes,
                    [(name, mode)],
                    depth=depth,
                    budgets=budgets,
                    element_addressable=False,
                    progress=progress,
                )
                timings[f"peer:{name}"] = time.perf_counter() - t3
                say(f"[peer {name}] done in {timings[f'peer:{name}']:.1f}s")

    t4 = time.perf_counter()
    significance = significance_tables(
        outcomes, addressable, scopes, retrievers, methods, resamples=resamples, depth=depth
    )
    if peers and (
        ("document", "hybrid", REFERENCE_METHOD) in outcomes or ("corpus", "hybrid", REFERENCE_METHOD) in outcomes
    ):
        significance["peers"] = peer_significance(outcomes, scopes, resamples, depth)
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
        from structaware_retrievers.evaluation.report import write_json

        write_json(result.to_json(), Path(json_out))
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
