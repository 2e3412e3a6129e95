"""Typed errors raised by structaware readers, unit builders and retrievers.

Every error names the file (when there is one) and the field or step that failed,
so that a CLI can print one clear line: ``<file>: <field>: <what is wrong>``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol


class StructawareError(Exception):
    """Base class for every error this package raises on purpose."""

    def __init__(self, message: str, *, path: str | Path | None = None, field: str | None = None):
        self.path = str(path) if path is not None else None
        self.field = field
        self.message = message
        super().__init__(self.__str__())

    def __str__(self) -> str:
        parts = [p for p in (self.path, self.field) if p]
        return ": ".join([*parts, self.message])

    def __reduce__(self) -> tuple[object, ...]:
        # pickled with its attributes, whatever the subclass's __init__ takes (a parse worker
        # sends its errors to the ingest process: structaware_retrievers.index.parse_workers)
        # (``path`` is no __dict__ entry under ImportError, whose C struct has a slot of that name)
        return (_rebuild, (type(self), self.args, {**self.__dict__, "path": self.path}))


def _rebuild(cls: type[StructawareError], args: tuple[object, ...], state: dict[str, object]) -> StructawareError:
    err = cls.__new__(cls)
    Exception.__init__(err, *args)
    for name, value in state.items():
        setattr(err, name, value)
    return err


class InputNotFoundError(StructawareError, FileNotFoundError):
    """The input path does not exist or holds nothing this package can read."""


class UnknownFormatError(StructawareError, ValueError):
    """The input exists but its content matches no supported parser output format."""


class MalformedInputError(StructawareError, ValueError):
    """The input claims a known format but a required field is missing or has the wrong type."""


class UnsupportedFilterError(MalformedInputError):
    """A filter operator that cannot be evaluated inside Qdrant (a text match, a pattern): ``field`` is
    ``filter.<key>`` and the message names the operator (``structaware_retrievers.query.filters``)."""


class UnknownFilterError(MalformedInputError):
    """A filter that would match nothing by mistake: a key no unit of the index carries, or a value a
    closed-vocabulary key never takes (a unit type, a grade system, a strength). ``field`` is
    ``filter.<key>``; the message names the key or value and what it could be
    (``structaware_retrievers.query.filter_vocabulary``)."""


class EmptyDocumentError(StructawareError, ValueError):
    """Parsing succeeded but produced no body text: nothing could be indexed."""


class ParserUnavailableError(StructawareError, RuntimeError):
    """A parser (MinerU, Unstructured) is needed but not installed or failed to run."""


class MissingExtraError(ParserUnavailableError, ImportError):
    """An optional dependency is not installed; the message names the extra that brings it.

    The core distribution imports no parser and no framework; ``structaware[mineru]``,
    ``structaware[unstructured]`` and ``structaware[peers]`` add them.
    """

    def __init__(self, module: str, extra: str, purpose: str, *, path: str | Path | None = None):
        self.extra = extra
        super().__init__(
            f"{purpose} needs the '{module}' package: pip install 'structaware[{extra}]'", path=path, field=module
        )


class InputWarning(UserWarning):
    """Part of an input is damaged but the document is still read (a fallback was used).

    The message names the file and the field, like the errors: ``<file>: <field>: <what>``.
    Raised as a warning (``warnings.warn``), once per kind of damage and document.
    """

    def __init__(self, message: str, *, path: str | Path | None = None, field: str | None = None):
        self.path = str(path) if path is not None else None
        self.field = field
        super().__init__(": ".join([p for p in (self.path, field) if p] + [message]))


class IndexNotFoundError(StructawareError, LookupError):
    """A query named an index (folder, URL or collection) that does not exist or is empty."""


class StoreError(StructawareError, RuntimeError):
    """The vector store refused an operation or its configuration does not match."""


class PdfNotFoundError(InputNotFoundError):
    """A page picture of a unit needs the PDF its document was made from, and it is not at hand: the
    index was built from parser output alone (no PDF inside or beside it), the file moved, or it
    changed since it was indexed. The message names the file it needs and how to hand it over
    (``pdf=`` in Python, ``--pdf`` on the command line); ``path`` is the document's source."""


class ModelMismatchError(StoreError):
    """An index was built with another dense model than the one it is opened with (field ``dense.model_id``).

    ``fact`` says which model built it; the message adds the fix in the caller's terms: each face
    re-raises it with :meth:`with_fix` naming what its users pass (an ``embed_model``, an
    ``embedding``, ``--dense-model``...).

    Attributes:
        stored_model: the name of the model the index was built with (its config's ``model_name``).
        stored_id: that model's id.
        fact: the message without the fix.
    """

    def __init__(self, fact: str, fix: str, *, stored_model: str, stored_id: str, path: str | Path | None = None):
        self.fact = fact
        self.stored_model = stored_model
        self.stored_id = stored_id
        super().__init__(f"{fact} Fix: {fix}", path=path, field="dense.model_id")

    def with_fix(self, fix: str) -> ModelMismatchError:
        """The same error with another fix (in a face's terms)."""
        return ModelMismatchError(
            self.fact, fix, stored_model=self.stored_model, stored_id=self.stored_id, path=self.path
        )


class NotAFlowchartError(MalformedInputError):
    """The Mermaid source is a diagram of another type (``diagram_type``), not a flowchart."""

    def __init__(self, message: str, *, diagram_type: str, path: str | None = None, field: str | None = None):
        self.diagram_type = diagram_type
        super().__init__(message, path=path, field=field)


class OcrUnavailableError(ParserUnavailableError):
    """The OCR engine is installed but cannot run offline (its bundled weights are missing or unreadable)."""


class ModelUnavailableError(StructawareError, RuntimeError):
    """An embedding model cannot be loaded: files missing, checksum mismatch, or not cached offline."""


class _Failure(Protocol):
    """One failed input (:class:`structaware_retrievers.search.results.IngestFailure`)."""

    path: str
    error_type: str
    message: str


class IngestError(StructawareError, RuntimeError):
    """Raised by :meth:`IngestSummary.raise_for_errors` when some inputs failed."""

    def __init__(self, failures: list[_Failure]):
        self.failures = failures
        lines = "; ".join(f"{f.path}: {f.error_type}: {f.message}" for f in failures[:5])
        more = f" (+{len(failures) - 5} more)" if len(failures) > 5 else ""
        super().__init__(f"{len(failures)} input(s) failed: {lines}{more}", field="ingest")


class ModelsMissingError(ParserUnavailableError):
    """MinerU needs models it does not have on disk (a scan, or a text layer MinerU judges unreadable,
    under the model-free ``flash`` tier; any PDF under a model tier). The OCR route
    (:mod:`structaware_readers.load.pdf_route`) reads such a PDF itself when ``structaware[ocr]`` is installed."""


class UnreadableDocumentWarning(UserWarning):
    """A question document has no readable text (e.g. a scanned PDF): its questions count as misses."""
