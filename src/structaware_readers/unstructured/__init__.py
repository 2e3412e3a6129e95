"""Unstructured output -> :class:`ParsedDocument`: the second parser route next to :mod:`..mineru`."""

from __future__ import annotations

from structaware_readers.unstructured.load import SPACY_MODEL, spacy_model_installed
from structaware_readers.unstructured.reader import read_unstructured

__all__ = ["SPACY_MODEL", "read_unstructured", "spacy_model_installed"]
