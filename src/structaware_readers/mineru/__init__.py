"""MinerU outputs of every format era -> :class:`~structaware_readers.models.ParsedDocument`."""

from __future__ import annotations

from structaware_readers.mineru.detect import FORMAT_PREFERENCE, detect_format
from structaware_readers.mineru.reader import parse_mineru_json, read_mineru

__all__ = ["FORMAT_PREFERENCE", "detect_format", "parse_mineru_json", "read_mineru"]
