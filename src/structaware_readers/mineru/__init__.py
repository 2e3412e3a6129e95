"""MinerU outputs of every format era -> :class:`~structaware_readers.models.ParsedDocument`.

Public API::

    read_mineru(path, *, name=None) -> ParsedDocument          # JSON file, output folder, zip or PDF
    parse_mineru_json(data, *, source, doc_id, name, input_format=None) -> ParsedDocument
    detect_format(data) -> str                                  # see FORMAT_PREFERENCE

One module per format: :mod:`.content_list` (v1, magic-pdf 0.x .. 4.x), :mod:`.content_list_v2`
(3.x+), :mod:`.structured_content` (4.x), :mod:`.middle_pdf_info` (middle.json <= 3.x),
:mod:`.middle_docvortex` (4.x ``docvortex.middle``); :mod:`.containers` finds the file to read in
a folder or zip, :mod:`.assemble` merges continued tables and builds the document. Running MinerU
on a PDF lives in :mod:`.pdf` and the remote API client in :mod:`.api_client`.
"""

from __future__ import annotations

from structaware_readers.mineru.detect import FORMAT_PREFERENCE, detect_format
from structaware_readers.mineru.reader import parse_mineru_json, read_mineru

__all__ = ["FORMAT_PREFERENCE", "detect_format", "parse_mineru_json", "read_mineru"]
