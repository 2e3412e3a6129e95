"""The documents of a question set, read once each (:func:`load_question_documents`), for
:func:`.harness.run_eval`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from structaware_readers.errors import (
    EmptyDocumentError,
    InputNotFoundError,
    MissingExtraError,
    ParserUnavailableError,
    UnreadableDocumentWarning,
)
from structaware_readers.models import ParsedDocument
from structaware_retrievers.evaluation.questions import Question, resolve_document

__all__ = ["UnreadableDocumentWarning", "load_question_documents"]


def load_question_documents(
    questions: Sequence[Question],
    docs: Path,
    parsed: Path | None = None,
    *,
    pdf_tables: bool = True,
    textless: dict[str, str] | None = None,
) -> dict[str, ParsedDocument]:
    """Load each document the questions reference, once, by file stem: ``{stem: ParsedDocument}``. Raises
    ``InputNotFoundError``.
    """
    from structaware_readers.load.loader import load_document

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
