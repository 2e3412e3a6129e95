"""``StructureAwareLoader``: a LangChain document loader that yields one ``Document`` per evidence unit."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from langchain_core.document_loaders import BaseLoader
from langchain_core.documents import Document

from langchain_structaware.documents import unit_to_document
from structaware_readers.errors import InputWarning, MalformedInputError

if TYPE_CHECKING:
    from structaware_readers.units.options import UnitOptions

ReadingOrder = Literal["auto", "parser", "layout"]


class StructureAwareLoader(BaseLoader):
    """Load PDFs or parser outputs as structure-aware evidence units (paper section 2.3).

    Each yielded ``Document`` is one unit: ``id`` = unit id, ``page_content`` = context + newline +
    text, and flat metadata with every key of ``langchain_structaware.documents.METADATA_KEYS``
    (``page`` is **1-based**; ``PyPDFLoader``'s is 0-based).

    Args:
        file_path: one path or several, as ``structaware ingest`` takes them: a PDF, a MinerU output
            (JSON of any era, output folder or zip), an Unstructured elements JSON, a raw file
            Unstructured can partition, or a folder of those (searched recursively,
            :func:`structaware_readers.common.inputs.scan_inputs`; its other files are skipped with an
            ``InputWarning`` listing them, and kept in :attr:`skipped_files`). Each input is
            recognised by content (``structaware_readers.load.loader.load_document``; a PDF is parsed
            by MinerU).
        reading_order: ``"auto"``, ``"parser"`` or ``"layout"`` (see ``structaware_readers.load.loader``).
        unit_options: ``structaware_readers.units.UnitOptions`` (or a dict of its fields).

    Warns (on iteration):
        InputWarning: a folder held files no reader takes (a ``.txt``, a ``.docx``), naming them.

    Raises (on iteration):
        InputNotFoundError, UnknownFormatError, MalformedInputError, EmptyDocumentError,
        ParserUnavailableError: from the readers and the unit builder, naming the file and field.
    """

    def __init__(
        self,
        file_path: str | Path | Iterable[str | Path],
        *,
        reading_order: ReadingOrder = "auto",
        unit_options: UnitOptions | Mapping[str, Any] | None = None,
    ) -> None:
        if reading_order not in ("auto", "parser", "layout"):
            raise MalformedInputError(
                f"must be 'auto', 'parser' or 'layout', not {reading_order!r}", field="reading_order"
            )
        self.file_paths = [file_path] if isinstance(file_path, (str, Path)) else list(file_path)
        self.reading_order = reading_order
        self.unit_options = unit_options
        #: Files of the given folders no reader takes, known once loading has started.
        self.skipped_files: list[Path] = []

    def _options(self) -> UnitOptions | None:
        from structaware_readers.units import UnitOptions

        if self.unit_options is None or isinstance(self.unit_options, UnitOptions):
            return self.unit_options
        return UnitOptions(**dict(self.unit_options))

    def lazy_load(self) -> Iterator[Document]:
        """Yield the units of each document in turn, in unit order (reading order within a document).

        Lazy per file: a file's documents are yielded as soon as that file is read and its units
        built, before the next file is opened; the memory held is one file's units (the parsed file
        is let go once its units are built, each unit once its document is handed out)."""
        from structaware_readers.common.inputs import scan_inputs
        from structaware_readers.load.loader import load_document
        from structaware_readers.units import build_units

        options = self._options()
        scan = scan_inputs(self.file_paths)
        self.skipped_files = scan.skipped
        if scan.skipped:
            names = ", ".join(p.name for p in scan.skipped[:5]) + (
                f" (+{len(scan.skipped) - 5} more)" if len(scan.skipped) > 5 else ""
            )
            warnings.warn(
                InputWarning(
                    f"skipped {len(scan.skipped)} file(s) no reader takes: {names}", path=scan.skipped[0].parent
                ),
                stacklevel=2,
            )
        for path in scan.documents:
            # the absolute path, as `structaware ingest` records it (a missing one is named as given)
            doc = load_document(path.resolve() if path.exists() else path, reading_order=self.reading_order)
            units = build_units(doc, options)
            del doc  # the parsed file is not kept while its units are handed out or the next file is read
            units.reverse()  # handed out from the end: each unit is let go once its document is yielded
            while units:
                yield unit_to_document(units.pop())
