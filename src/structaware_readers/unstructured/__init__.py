"""Unstructured output -> :class:`ParsedDocument`: the second parser route next to :mod:`..mineru`.

Each Unstructured category maps to one :class:`BlockKind` (``source_type`` keeps the category); coordinates
become 0..1 of the page with a top-left origin, pages are ``metadata.page_number`` (1-based), block ids
``p{page}-e{j}`` in Unstructured's order. Raw files need spaCy's ``en_core_web_sm`` and the format's
``unstructured`` extras; without them :class:`ParserUnavailableError` is raised before partitioning.
"""

from __future__ import annotations

from structaware_readers.unstructured.load import SPACY_MODEL, spacy_model_installed
from structaware_readers.unstructured.reader import read_unstructured

__all__ = ["SPACY_MODEL", "read_unstructured", "spacy_model_installed"]
