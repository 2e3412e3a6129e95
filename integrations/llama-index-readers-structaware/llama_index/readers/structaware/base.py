"""LlamaIndex readers: MinerU / Unstructured output -> one ``Document`` per parsed document.

``Document.id_`` is the ``doc_id``; ``text`` the body text in reading order (no furniture);
``metadata[DOCUMENT_METADATA_KEY]`` the whole ``ParsedDocument`` as JSON, excluded from embedding
and LLM text. Metadata survives ``IngestionPipeline`` and docstore persistence (a private attribute
would not), so ``StructureAwareNodeParser`` reads the blocks back and a document is parsed once.
Works standalone and as a ``SimpleDirectoryReader`` ``file_extractor``.
"""

from __future__ import annotations

import tempfile
import warnings
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Literal

from llama_index.core.bridge.pydantic import Field
from llama_index.core.readers.base import BasePydanticReader
from llama_index.core.schema import Document

#: Metadata key that carries the ``ParsedDocument`` JSON on a LlamaIndex ``Document``.
DOCUMENT_METADATA_KEY = "structaware_document"

#: Document-level metadata keys this reader writes (besides ``DOCUMENT_METADATA_KEY``).
DOC_KEYS = (
    "file_path",
    "file_name",
    "doc_id",
    "doc_name",
    "title",
    "parser",
    "parser_version",
    "input_format",
    "page_count",
)

# Only ``file_name`` and ``title`` help an LLM cite; nothing document-level belongs in an
# embedding (the unit's context string carries the structure, paper section 2.4).
_EXCLUDED_EMBED = [DOCUMENT_METADATA_KEY, *DOC_KEYS]
_EXCLUDED_LLM = [
    DOCUMENT_METADATA_KEY,
    "file_path",
    "doc_id",
    "doc_name",
    "parser",
    "parser_version",
    "input_format",
    "page_count",
]

ReadingOrder = Literal["auto", "parser", "layout"]
PathLike = str | Path


def document_from_parsed(parsed: Any, extra_info: dict[str, Any] | None = None) -> Document:
    """Wrap a :class:`~structaware_readers.models.ParsedDocument` in a LlamaIndex ``Document``.

    Args:
        parsed: the parsed document (blocks in reading order, 1-based pages, 0..1 bboxes).
        extra_info: metadata to merge in (e.g. ``SimpleDirectoryReader``'s file metadata); the
            reader's own keys win for ``doc_id``, ``parser`` and the document JSON, while a
            caller's ``file_path``/``file_name`` are kept.

    Returns:
        ``Document(id_=doc_id, text=body text, metadata={...})``; see the module docstring.
    """
    source = Path(parsed.source) if parsed.source else None
    metadata: dict[str, Any] = {
        "file_path": str(source) if source else "",
        "file_name": source.name if source else parsed.name,
    }
    metadata.update(extra_info or {})
    metadata.update(
        {
            "doc_id": parsed.doc_id,
            "doc_name": parsed.name,
            "title": parsed.title,
            "parser": parsed.parser,
            "parser_version": parsed.parser_version,
            "input_format": parsed.input_format,
            "page_count": parsed.page_count,
            DOCUMENT_METADATA_KEY: parsed.model_dump_json(),
        }
    )
    return Document(
        id_=parsed.doc_id,
        text=body_text(parsed),
        metadata=metadata,
        excluded_embed_metadata_keys=list(_EXCLUDED_EMBED),
        excluded_llm_metadata_keys=list(_EXCLUDED_LLM),
    )


def body_text(parsed: Any) -> str:
    """Body blocks' text in reading order, blank-line separated; a caption precedes its table/figure."""
    parts: list[str] = []
    for block in parsed.body_blocks():
        for piece in (block.caption, block.text, block.footnote):
            piece = (piece or "").strip()
            if piece and (not parts or parts[-1] != piece):
                parts.append(piece)
    return "\n\n".join(parts)


def parsed_from_document(document: Any) -> Any:
    """Read the ``ParsedDocument`` back from a ``Document`` produced by these readers.

    Raises:
        MalformedInputError: the document has no ``metadata[DOCUMENT_METADATA_KEY]`` (it was not
            loaded by ``MinerUReader``/``UnstructuredReader``) or the JSON does not validate;
            the error names the document's ``file_path`` (or id) and the metadata field.
    """
    from pydantic import ValidationError

    from structaware_readers.errors import MalformedInputError
    from structaware_readers.models import ParsedDocument

    where = document.metadata.get("file_path") or f"document {document.node_id}"
    raw = document.metadata.get(DOCUMENT_METADATA_KEY)
    field = f"metadata[{DOCUMENT_METADATA_KEY!r}]"
    if not isinstance(raw, str) or not raw:
        raise MalformedInputError(
            "missing: load the file with llama_index.readers.structaware.MinerUReader or "
            "UnstructuredReader so that the parsed blocks travel with the Document",
            path=where,
            field=field,
        )
    try:
        return ParsedDocument.model_validate_json(raw)
    except ValidationError as exc:
        raise MalformedInputError(f"not a ParsedDocument: {exc.errors()[0]['msg']}", path=where, field=field) from exc


def _as_paths(file_path: PathLike | Iterable[PathLike]) -> list[PathLike]:
    if isinstance(file_path, (str, Path)):
        return [file_path]
    return list(file_path)


def _is_local_fs(fs: Any) -> bool:
    if fs is None:
        return True
    protocol = getattr(fs, "protocol", "file")
    protocols = (protocol,) if isinstance(protocol, str) else tuple(protocol)
    return "file" in protocols or "local" in protocols


class _StructawareReader(BasePydanticReader):
    """Shared loading loop: path(s) -> parse -> one ``Document`` each (see the module docstring)."""

    is_remote: bool = False
    reading_order: ReadingOrder = Field(
        default="auto",
        description="'auto', 'parser' or 'layout' (see structaware_readers.load.loader)",
    )

    def _parse(self, path: Path) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def _local_paths(self, paths: list[PathLike]) -> list[Path]:
        """The documents behind local ``paths`` (this reader takes each path as one document)."""
        return [Path(p) for p in paths]

    def lazy_load_data(
        self,
        file_path: PathLike | Iterable[PathLike],
        extra_info: dict[str, Any] | None = None,
        fs: Any | None = None,
    ) -> Iterator[Document]:
        """Yield one ``Document`` per document (per input path; a folder as the reader says). A local
        document's source (``file_path`` and its units' ``source``) is its absolute path.

        Args:
            file_path: one path or an iterable of paths (files, or MinerU output folders).
            extra_info: metadata merged into every ``Document`` (``SimpleDirectoryReader`` passes
                its file metadata here).
            fs: an ``fsspec`` filesystem; a non-local one is copied to a temporary folder first.

        Raises:
            InputNotFoundError, UnknownFormatError, MalformedInputError, EmptyDocumentError,
            ParserUnavailableError: from the package readers, naming the file and the field.
        """
        paths = _as_paths(file_path)
        if _is_local_fs(fs):
            for path in self._local_paths(paths):
                # the absolute path, as `structaware ingest` records it (a missing one is named as given)
                yield document_from_parsed(self._parse(path.resolve() if path.exists() else path), extra_info)
            return
        for path in paths:
            with tempfile.TemporaryDirectory(prefix="structaware-fs-") as tmp:
                local = Path(tmp) / Path(str(path)).name
                fs.get(str(path), str(local), recursive=fs.isdir(str(path)))
                parsed = self._parse(local)
                parsed = parsed.model_copy(update={"source": str(path)})
                yield document_from_parsed(parsed, extra_info)

    def load_data(
        self,
        file_path: PathLike | Iterable[PathLike],
        extra_info: dict[str, Any] | None = None,
        fs: Any | None = None,
    ) -> list[Document]:
        """List form of :meth:`lazy_load_data` (same arguments, same errors)."""
        return list(self.lazy_load_data(file_path, extra_info=extra_info, fs=fs))


class MinerUReader(_StructawareReader):
    """Read MinerU output (any format era: content_list, middle.json, zip, output folder) or a PDF.

    A PDF is parsed by running MinerU (``structaware_readers.mineru.read_mineru``); pointing the
    reader at an existing MinerU output folder or JSON is much faster. With
    ``SimpleDirectoryReader`` map only the primary output (e.g. ``".json"`` with
    ``required_exts=[".json"]`` and one file per document), or the ``.pdf``/``.zip`` files:
    a folder holding ``content_list.json`` and ``middle.json`` of the same document would
    otherwise be read twice.

    ``reading_order``: ``"auto"`` and ``"parser"`` keep MinerU's own order (MinerU computes a
    layout reading order); ``"layout"`` restores it from the bboxes (XY-cut).

    A local folder is taken as ``structaware ingest`` takes it: a MinerU output folder is one
    document, any other folder is searched for PDFs, MinerU outputs and zips
    (:func:`structaware_readers.common.inputs.scan_inputs`), and its other files are skipped with an
    ``InputWarning`` listing them.
    """

    def _local_paths(self, paths: list[PathLike]) -> list[Path]:
        from structaware_readers.common.inputs import scan_inputs
        from structaware_readers.errors import InputWarning

        scan = scan_inputs(paths)
        if scan.skipped:
            names = ", ".join(p.name for p in scan.skipped[:5]) + (
                f" (+{len(scan.skipped) - 5} more)" if len(scan.skipped) > 5 else ""
            )
            warnings.warn(
                InputWarning(
                    f"skipped {len(scan.skipped)} file(s) no reader takes: {names}", path=scan.skipped[0].parent
                ),
                stacklevel=3,
            )
        return scan.documents

    @classmethod
    def class_name(cls) -> str:
        return "StructawareMinerUReader"

    def _parse(self, path: Path) -> Any:
        from structaware_readers.load.loader import prepare_document
        from structaware_readers.mineru import read_mineru

        return prepare_document(read_mineru(path), self.reading_order)


class UnstructuredReader(_StructawareReader):
    """Read Unstructured output (elements JSON) or partition a raw file with Unstructured.

    Uses ``structaware_readers.unstructured.read_unstructured``. ``reading_order``:
    ``"parser"`` keeps Unstructured's order; ``"layout"`` restores it from the coordinates;
    ``"auto"`` restores it only for page-image formats (PDF, images), whose Unstructured order
    follows the PDF text stream and breaks on multi-column pages (as ``load_document`` does).
    """

    @classmethod
    def class_name(cls) -> str:
        return "StructawareUnstructuredReader"

    def _parse(self, path: Path) -> Any:
        from structaware_readers.load.loader import prepare_document
        from structaware_readers.unstructured import read_unstructured

        return prepare_document(read_unstructured(path), self.reading_order)
