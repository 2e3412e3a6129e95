"""Unstructured output -> :class:`ParsedDocument`: the second parser route next to :mod:`..mineru`.

Entry points: ``read_unstructured(src, *, name=None, partition_kwargs=None)`` takes ``Element``
objects, element dicts, an elements JSON/NDJSON file, or a raw file partitioned here;
``spacy_model_installed()`` tells whether raw files can be partitioned offline.

Each Unstructured category maps to one :class:`BlockKind` (``Title`` -> HEADING, ``ListItem`` runs ->
one LIST block, ``Table``/``TableChunk`` -> TABLE with a grid, ``FigureCaption`` -> the caption of
its figure or table, ``CompositeElement`` -> its ``orig_elements``); ``source_type`` keeps the
category. Coordinates become 0..1 of the page with a top-left origin (``PointSpace`` and
``RelativeCoordinateSystem`` are flipped); pages are ``metadata.page_number`` (1-based, 1 when
absent); block ids are ``p{page}-e{j}`` in Unstructured's output order.

Raw files need spaCy's ``en_core_web_sm`` and the format's ``unstructured`` extras; without them
:class:`ParserUnavailableError` is raised before partitioning, never an empty result.

Modules: :mod:`.load` (inputs, partitioning), :mod:`.records` (validation, ``orig_elements``,
coordinates), :mod:`.blocks`, :mod:`.hierarchy` (heading levels), :mod:`.tables`, :mod:`.captions`,
:mod:`.reader`.
"""

from __future__ import annotations

from structaware_readers.unstructured.load import SPACY_MODEL, spacy_model_installed
from structaware_readers.unstructured.reader import read_unstructured

__all__ = ["SPACY_MODEL", "read_unstructured", "spacy_model_installed"]
