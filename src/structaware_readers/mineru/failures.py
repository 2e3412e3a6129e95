"""MinerU's failure messages as the package's typed errors (:func:`mineru_failure`), shared by the local
route (``mineru-kit``, :mod:`structaware_readers.mineru.pdf`) and the ``mineru-api`` route
(:mod:`structaware_readers.mineru.api_client`)."""

from __future__ import annotations

from pathlib import Path

from structaware_readers.errors import MalformedInputError, ModelsMissingError, ParserUnavailableError, StructawareError

__all__ = ["INPUT_ERROR_CODES", "INPUT_ERROR_MARKERS", "ModelsMissingError", "mineru_failure"]

#: MinerU error codes that mean "the document itself cannot be read" (``mineru/errors.py``).
INPUT_ERROR_CODES = frozenset(
    {"file_corrupted", "file_encrypted", "file_type_unsupported", "file_too_large", "page_range_invalid"}
)
#: Message fragments of MinerU engine errors that mean the same (PDFium load errors and the like).
INPUT_ERROR_MARKERS = (
    "failed to load document",
    "unsupported file type",
    "data format error",
    "password",
    "encrypted",
)


def mineru_failure(
    message: str,
    *,
    path: str | Path | None,
    tier: str | None = None,
    code: str | None = None,
) -> StructawareError:
    """Map one MinerU failure message to the package's typed error (shared by local and API runs)."""
    text = " ".join(message.split()) or "MinerU failed without a message"
    field_name = f"mineru tier={tier}" if tier else "mineru"
    low = text.lower()
    if (code in INPUT_ERROR_CODES) or any(m in low for m in INPUT_ERROR_MARKERS):
        return MalformedInputError(f"MinerU cannot read this document: {text}", path=path, field=field_name)
    if "model repo" in low or "not ready under" in low or ("model" in low and "missing" in low):
        need = (
            "the PDF probably has no text layer (scanned) or an unreadable one (fonts without a Unicode map),"
            " and the model-free 'flash' tier then needs MinerU's OCR models; structaware reads such PDFs by OCR"
            " with pip install 'structaware[ocr]' (load_document), or"
            if (tier or "flash") == "flash"
            else f"tier '{tier}' needs MinerU's models;"
        )
        return ModelsMissingError(
            f"{text} -- {need} download them with `mineru-models-download`"
            " (or pass allow_model_download=True to a local run)",
            path=path,
            field=field_name,
        )
    return ParserUnavailableError(f"MinerU failed: {text}", path=path, field=field_name)
