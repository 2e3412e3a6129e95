"""Loading Unstructured elements: a path to an elements JSON / NDJSON file, in-memory elements,
or a raw document partitioned here (offline requirements: see the package docstring)."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from structaware_readers import ids
from structaware_readers.common.inputs import existing_path
from structaware_readers.common.limits import MAX_JSON_BYTES, json_start, load_json, read_capped
from structaware_readers.errors import (
    EmptyDocumentError,
    MalformedInputError,
    MissingExtraError,
    ParserUnavailableError,
    UnknownFormatError,
)

__all__ = ["JSON_SUFFIXES", "SPACY_MODEL", "load_elements", "spacy_model_installed"]

#: The spaCy model Unstructured 0.27.x needs to classify text (``unstructured/nlp/tokenize.py``).
SPACY_MODEL = "en_core_web_sm"

JSON_SUFFIXES = {".json", ".ndjson", ".jsonl"}
#: Text documents that may start with "[" or "{" and are still documents, not elements JSON.
_TEXT_DOCUMENT_SUFFIXES = {".md", ".markdown", ".txt", ".text", ".html", ".htm", ".xml", ".csv", ".tsv", ".rst", ".org"}


def load_elements(
    src: str | Path | Iterable[Any], partition_kwargs: Mapping[str, Any] | None
) -> tuple[list[Any], str, str, str]:
    """(element dicts, source label, doc_id, parser version) for any accepted input of
    :func:`~structaware_readers.unstructured.reader.read_unstructured`. Raises ``InputNotFoundError``,
    ``ParserUnavailableError``.
    """
    if isinstance(src, (str, Path)):
        path = existing_path(src, missing="no such file")
        if path.is_dir():
            raise UnknownFormatError("a folder: pass one elements JSON file or document", path=path)
        if not path.is_file():  # a named pipe or a device: reading it could block forever
            raise UnknownFormatError("not a regular file (a named pipe, socket or device)", path=path, field="content")
        suffix = path.suffix.lower()
        if suffix in JSON_SUFFIXES or (suffix not in _TEXT_DOCUMENT_SUFFIXES and _starts_like_json(path)):
            return _read_json(path), str(src), ids.doc_id_from_file(path), ""
        dicts, version = _partition(path, partition_kwargs or {})
        return dicts, str(src), ids.doc_id_from_file(path), version
    if isinstance(src, Mapping) and isinstance(src.get("elements"), list):
        src = src["elements"]
    if isinstance(src, (bytes, bytearray, Mapping)) or not isinstance(src, Iterable):
        raise UnknownFormatError(f"expected a path or a list of elements, got {type(src).__name__}", path="<elements>")
    dicts = []
    for i, el in enumerate(src):
        if isinstance(el, Mapping):
            dicts.append(dict(el))
        elif callable(getattr(el, "to_dict", None)):
            dicts.append(el.to_dict())
        else:
            raise MalformedInputError(
                f"not an element or element dict: {type(el).__name__}", path="<elements>", field=f"[{i}]"
            )
    canonical = json.dumps(dicts, indent=4, sort_keys=True, default=str).encode("utf-8")
    filename = next(
        (
            d["metadata"]["filename"]
            for d in dicts
            if isinstance(d.get("metadata"), Mapping) and isinstance(d["metadata"].get("filename"), str)
        ),
        None,
    )
    return dicts, filename or "<elements>", ids.doc_id_from_bytes(canonical), ""


def _starts_like_json(path: Path) -> bool:
    with open(path, "rb") as fh:
        return json_start(fh, chunk=64)[:1] in (b"[", b"{")


def _read_json(path: Path) -> list[Any]:
    """The elements of a JSON or NDJSON file, within the input limits (:mod:`structaware_readers.common.limits`)."""
    with open(path, "rb") as fh:
        raw = read_capped(fh, MAX_JSON_BYTES, path=path)
    try:
        data: Any = load_json(raw, path=path)
    except MalformedInputError as exc:
        if not isinstance(exc.__cause__, json.JSONDecodeError):
            raise  # nesting or a number out of range: not a matter of NDJSON
        # NDJSON (elements_to_ndjson): one element per line
        try:
            data = [load_json(line, path=path) for line in raw.splitlines() if line.strip()]
        except (MalformedInputError, UnknownFormatError):
            raise UnknownFormatError(f"not JSON: {exc.message}", path=path) from exc
    if isinstance(data, Mapping) and isinstance(data.get("elements"), list):
        data = data["elements"]
    if not isinstance(data, list):
        raise UnknownFormatError("not a list of Unstructured elements", path=path, field="(root)")
    if not data:
        raise EmptyDocumentError("the elements list is empty", path=path, field="(root)")
    first = data[0]
    if not (isinstance(first, Mapping) and "type" in first and ("element_id" in first or "metadata" in first)):
        raise UnknownFormatError(
            "not an Unstructured elements JSON (first item has no type/element_id/metadata)", path=path, field="[0]"
        )
    return data


def _partition(path: Path, kwargs: Mapping[str, Any]) -> tuple[list[dict[str, Any]], str]:
    """Partition a raw file with ``unstructured`` (needs its spaCy model, see module docstring)."""
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("UNSTRUCTURED_DISABLE_NOTICE", "1")
    try:
        from unstructured.__version__ import __version__ as version
        from unstructured.partition.auto import partition
    except ImportError as exc:
        raise MissingExtraError(
            "unstructured", "unstructured", "partitioning a raw document (or pass an elements JSON)", path=path
        ) from exc
    if not spacy_model_installed():
        raise ParserUnavailableError(
            f"unstructured needs the spaCy model {SPACY_MODEL} 3.8.0 to partition documents and "
            "would try to download it; install its wheel from spaCy's model releases, or partition "
            "elsewhere and pass the elements JSON (elements_to_json)",
            path=path,
            field=SPACY_MODEL,
        )
    try:
        elements = partition(filename=str(path), **dict(kwargs))
    except Exception as exc:  # any parser failure becomes one typed error
        raise ParserUnavailableError(f"unstructured could not partition the file: {exc}", path=path) from exc
    if not elements:
        raise EmptyDocumentError("unstructured returned no element", path=path, field="elements")
    return [e.to_dict() for e in elements], str(version)


def spacy_model_installed() -> bool:
    """Whether the spaCy model Unstructured needs is installed the way ``spacy.load`` finds it
    (an installed distribution named ``en_core_web_sm`` that can be imported)."""
    try:
        importlib.metadata.distribution(SPACY_MODEL)
    except importlib.metadata.PackageNotFoundError:
        return False
    return importlib.util.find_spec(SPACY_MODEL) is not None
