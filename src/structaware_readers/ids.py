"""Deterministic identifiers: document ids from content hashes, unit ids as UUIDv5.

Qdrant accepts only unsigned integers or UUIDs as point ids, so unit ids are UUID strings.
The same input bytes always give the same ``doc_id`` and the same unit ids, which makes
ingest idempotent (re-ingesting overwrites the same points).
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterable
from pathlib import Path

#: Namespace for all structaware UUIDv5 ids (fixed forever: changing it renames every unit).
UNIT_NAMESPACE = uuid.UUID("6f0b8d1e-3c2a-5b7e-9a41-2d7c5e8f1a03")

DOC_ID_HEX_CHARS = 16


def doc_id_from_bytes(data: bytes) -> str:
    """First 16 hex characters of SHA-256 over ``data``."""
    return hashlib.sha256(data).hexdigest()[:DOC_ID_HEX_CHARS]


def doc_id_from_file(path: str | Path) -> str:
    """:func:`doc_id_from_bytes` over a file's content, read in 1 MiB blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:DOC_ID_HEX_CHARS]


def unit_id(doc_id: str, unit_type: str, ordinal: int, element_ids: Iterable[str], extra: str = "") -> str:
    """UUIDv5 over the document id, unit type, position in the document and source elements."""
    key = "|".join([doc_id, unit_type, str(ordinal), ",".join(element_ids), extra])
    return str(uuid.uuid5(UNIT_NAMESPACE, key))


def content_hash(text: str) -> str:
    """SHA-256 hex of UTF-8 text: the key of the embedding caches."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
