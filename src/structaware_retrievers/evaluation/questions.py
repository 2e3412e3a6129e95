"""Benchmark questions: loading the JSON-lines question files and resolving their documents."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from structaware_readers.errors import EmptyDocumentError, InputNotFoundError, MalformedInputError

#: Evidence type given to questions whose file has no ``evidence_type``.
UNSPECIFIED = "unspecified"


@dataclass(frozen=True)
class Question:
    """One evidence question with its gold annotation: ``doc_stem`` finds the document (``"pdfs/X.pdf"`` -> ``"X"``),
    ``gold_pages`` are sorted and 1-based, ``extra`` holds every other field of the JSON line.
    """

    qid: str
    question: str
    doc: str
    doc_stem: str
    gold_pages: tuple[int, ...]
    gold_texts: tuple[str, ...] = ()
    evidence_type: str = UNSPECIFIED
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


def doc_stem(doc: str) -> str:
    """File stem of a question's ``doc`` field: ``"pdfs/3M_2018_10K.pdf"`` -> ``"3M_2018_10K"``."""
    name = doc.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    for suffix in (".pdf", ".zip", ".json", ".md"):
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return name


def _parse_line(obj: Any, path: Path, lineno: int) -> Question:
    where = f"line {lineno}"
    if not isinstance(obj, dict):
        raise MalformedInputError(f"{where}: expected a JSON object", path=path)

    def need_str(key: str) -> str:
        value = obj.get(key)
        if not isinstance(value, str) or not value.strip():
            raise MalformedInputError(f"{where}: missing or empty string", path=path, field=key)
        return value

    qid = need_str("qid")
    question = need_str("question")
    doc = need_str("doc")
    pages = obj.get("gold_pages")
    if (
        not isinstance(pages, list)
        or not pages
        or not all(isinstance(p, int) and not isinstance(p, bool) and p >= 1 for p in pages)
    ):
        raise MalformedInputError(
            f"{where} (qid {qid}): expected a non-empty list of 1-based page numbers, got {pages!r}",
            path=path,
            field="gold_pages",
        )
    gold = obj.get("gold_text")
    if gold is None:
        texts: tuple[str, ...] = ()
    elif isinstance(gold, str):
        texts = (gold,) if gold.strip() else ()
    elif isinstance(gold, list) and all(isinstance(t, str) for t in gold):
        texts = tuple(t for t in gold if t.strip())
    else:
        raise MalformedInputError(
            f"{where} (qid {qid}): expected a string or a list of strings", path=path, field="gold_text"
        )
    etype = obj.get("evidence_type")
    if isinstance(etype, list) and all(isinstance(t, str) for t in etype):
        etype = "+".join(dict.fromkeys(t.strip() for t in etype if t.strip()))
    elif etype is not None and not isinstance(etype, str):
        raise MalformedInputError(
            f"{where} (qid {qid}): expected a string or a list of strings", path=path, field="evidence_type"
        )
    known = {"qid", "question", "doc", "gold_pages", "gold_text", "evidence_type"}
    return Question(
        qid=qid,
        question=question,
        doc=doc,
        doc_stem=doc_stem(doc),
        gold_pages=tuple(sorted(set(pages))),
        gold_texts=texts,
        evidence_type=etype or UNSPECIFIED,
        extra={k: v for k, v in obj.items() if k not in known},
    )


def load_questions(path: str | Path, *, limit: int | None = None) -> list[Question]:
    """Read a JSON-lines question file (blank lines ignored), keeping file order. Raises ``InputNotFoundError``,
    ``MalformedInputError``, ``EmptyDocumentError``.
    """
    p = Path(path)
    if not p.is_file():
        raise InputNotFoundError("question file not found", path=p)
    out: list[Question] = []
    seen: set[str] = set()
    with p.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise MalformedInputError(f"line {lineno}: not valid JSON ({exc.msg})", path=p) from exc
            q = _parse_line(obj, p, lineno)
            if q.qid in seen:
                raise MalformedInputError(f"line {lineno}: duplicate qid {q.qid!r}", path=p, field="qid")
            seen.add(q.qid)
            out.append(q)
            if limit is not None and len(out) >= limit:
                break
    if not out:
        raise EmptyDocumentError("no questions in file", path=p)
    return out


_DOC_SUFFIXES = (".zip", ".json", ".pdf")


def resolve_document(stem: str, folders: Iterable[Path | None]) -> Path:
    """Find the input for a document stem in the given folders, first folder first. Raises ``InputNotFoundError``."""
    tried: list[str] = []
    for folder in folders:
        if folder is None:
            continue
        folder = Path(folder)
        candidates = [folder / f"{stem}{_DOC_SUFFIXES[0]}", folder / stem]
        candidates += [folder / f"{stem}{s}" for s in _DOC_SUFFIXES[1:]]
        for c in candidates:
            if c.exists():
                return c
        tried.append(str(folder))
    raise InputNotFoundError(f"no parsed output or PDF for document {stem!r} in {tried}", field="doc")
