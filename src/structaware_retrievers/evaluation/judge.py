"""Judging retrieved units against a question's gold annotation (page, element, evidence text)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from structaware_readers.models import ParsedDocument, Unit
from structaware_retrievers.evaluation.baselines import block_pages, block_text
from structaware_retrievers.evaluation.metrics import (
    DEFAULT_BUDGETS,
    QueryOutcome,
    covers,
    outcome_from_flags,
    token_counts,
)
from structaware_retrievers.evaluation.questions import Question


def result_chars(unit: Unit) -> int:
    """Characters a result hands to the LLM: ``len(context + "\\n" + text)`` (``len(text)`` without context)."""
    return len(unit.embedding_text())


class Judge:
    """Decides page / element / evidence hits of retrieved units for benchmark questions."""

    def __init__(self, docs: Mapping[str, ParsedDocument]):
        self._blocks = {doc_id: {b.block_id: b for b in d.blocks} for doc_id, d in docs.items()}
        # ids of continuation parts merged into a block (``Block.extra_ids``) -> (block, their page)
        self._parts = {
            doc_id: {eid: (b, page) for b in d.blocks for eid, page in zip(b.extra_ids, b.extra_pages)}
            for doc_id, d in docs.items()
        }
        self._block_tokens: dict[tuple[str, str], Counter[str]] = {}
        self._unit_tokens: dict[tuple[str, str, str], Counter[str]] = {}
        self._gold: dict[str, list[Counter[str]]] = {}

    def gold_tokens(self, q: Question) -> list[Counter[str]]:
        """Token multisets of the question's gold texts (empty ones dropped)."""
        got = self._gold.get(q.qid)
        if got is None:
            got = [c for c in (token_counts(t) for t in q.gold_texts) if c]
            self._gold[q.qid] = got
        return got

    def _block_counts(self, doc_id: str, block_id: str) -> Counter[str] | None:
        key = (doc_id, block_id)
        got = self._block_tokens.get(key)
        if got is None:
            block = self._blocks.get(doc_id, {}).get(block_id)
            if block is None:
                return None
            got = token_counts(block_text(block))
            self._block_tokens[key] = got
        return got

    def source_element_tokens(self, unit: Unit, pages: Iterable[int]) -> Counter[str]:
        """Tokens of the unit's source blocks that lie on any of ``pages`` (1-based)."""
        wanted = set(pages)
        blocks = self._blocks.get(unit.doc_id, {})
        parts = self._parts.get(unit.doc_id, {})
        total: Counter[str] = Counter()
        seen: set[str] = set()
        for eid in unit.element_ids:
            b = blocks.get(eid)
            if b is not None:
                on_page = bool(wanted.intersection(block_pages(b)))
            elif eid in parts:
                b, page = parts[eid]
                on_page = page in wanted
            else:
                continue
            if not on_page or b.block_id in seen:
                continue
            seen.add(b.block_id)
            c = self._block_counts(unit.doc_id, b.block_id)
            if c:
                total.update(c)
        return total

    def _text_tokens(self, unit: Unit) -> Counter[str]:
        key = (unit.unit_id, unit.context, unit.text)
        got = self._unit_tokens.get(key)
        if got is None:
            got = token_counts(unit.embedding_text())
            if len(self._unit_tokens) > 200_000:
                self._unit_tokens.clear()
            self._unit_tokens[key] = got
        return got

    def judge(
        self,
        q: Question,
        gold_doc_id: str,
        results: Sequence[Unit],
        *,
        element_addressable: bool,
        budgets: Iterable[int] = DEFAULT_BUDGETS,
    ) -> QueryOutcome:
        """Judge ranked ``results`` (best first) for question ``q`` whose document is ``gold_doc_id``."""
        gold_pages = set(q.gold_pages)
        golds = self.gold_tokens(q)
        page_flags = [u.doc_id == gold_doc_id and bool(gold_pages.intersection(u.pages)) for u in results]
        if golds:
            evidence_flags = [p and covers(golds, self._text_tokens(u)) for p, u in zip(page_flags, results)]
            element_flags: list[bool] | None = None
            if element_addressable:
                element_flags = [
                    p and covers(golds, self.source_element_tokens(u, gold_pages)) for p, u in zip(page_flags, results)
                ]
            else:
                element_flags = [False] * len(results)
        else:
            evidence_flags = None
            element_flags = None
        return outcome_from_flags(
            q.qid,
            q.evidence_type,
            page_flags,
            element_flags,
            evidence_flags,
            [result_chars(u) for u in results],
            budgets=budgets,
        )

    def gold_in_any_block(self, q: Question, doc_id: str, kinds: Iterable[str] | None = None) -> bool:
        """Whether some single block of the gold pages (optionally only of the given kinds, e.g.
        ``{"table"}``) covers a gold text: can the parse address the evidence at all?"""
        golds = self.gold_tokens(q)
        if not golds:
            return False
        wanted = set(q.gold_pages)
        kinds = set(kinds) if kinds is not None else None
        for bid, b in self._blocks.get(doc_id, {}).items():
            if b.is_furniture or not wanted.intersection(block_pages(b)):
                continue
            if kinds is not None and b.kind.value not in kinds:
                continue
            c = self._block_counts(doc_id, bid)
            if c and covers(golds, c):
                return True
        return False
