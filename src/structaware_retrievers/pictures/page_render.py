"""PDF pages as images (pypdfium2), with small caches for repeated pictures. A page is rendered as displayed
(``/Rotate`` applied), the frame unit bboxes use (0..1, origin top-left), so a bbox maps to pixels as ``x * width``,
``y * height``.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from structaware_readers.common.limits import render_scale
from structaware_readers.errors import MalformedInputError

if TYPE_CHECKING:
    from PIL import Image

    from structaware_retrievers.pictures.source_pdf import PdfSource

__all__ = ["PDFIUM_LOCK", "PageRenderer", "default_renderer"]

#: Held around every call into PDFium in this process.
PDFIUM_LOCK = threading.RLock()


def _pdfium() -> Any:
    import pypdfium2  # a core dependency, imported on first use: a query never needs it

    return pypdfium2


class PageRenderer:
    """Renders pages of PDFs, keeping the last ``max_documents`` open and ``max_pages`` rendered."""

    def __init__(self, max_documents: int = 4, max_pages: int = 8) -> None:
        self.max_documents = max_documents
        self.max_pages = max_pages
        self._docs: OrderedDict[tuple, Any] = OrderedDict()
        self._pages: OrderedDict[tuple, Image.Image] = OrderedDict()

    def render(self, pdf: PdfSource, page: int, scale: float) -> Image.Image:
        """1-based ``page`` of ``pdf`` as an RGB image, ``scale`` pixels per PDF point (72 dpi = 1; less for a page
        whose image would exceed :data:`~structaware_readers.common.limits.MAX_RENDER_PIXELS`: the image's own size
        says which). Raises ``MalformedInputError``.
        """
        with PDFIUM_LOCK:
            key, doc = self._document(pdf)
            if not 1 <= page <= len(doc):
                raise MalformedInputError(
                    f"page {page} is beyond this PDF's {len(doc)} pages: it is not the PDF the unit was read from",
                    path=_label(pdf),
                    field="page",
                )
            pkey = (key, page, round(scale, 4))
            image = self._pages.get(pkey)
            if image is None:
                handle = doc[page - 1]
                try:
                    image = handle.render(scale=render_scale(*handle.get_size(), scale)).to_pil().convert("RGB")
                finally:
                    handle.close()
                self._pages[pkey] = image
                while len(self._pages) > self.max_pages:
                    self._pages.popitem(last=False)
            self._pages.move_to_end(pkey)
            return image.copy()

    def _document(self, pdf: PdfSource) -> tuple[tuple, Any]:
        key = _key(pdf)
        doc = self._docs.get(key)
        if doc is None:
            pdfium = _pdfium()
            try:
                doc = pdfium.PdfDocument(pdf if isinstance(pdf, bytes) else os.fspath(pdf))
            except pdfium.PdfiumError as exc:
                raise MalformedInputError(f"PDFium cannot open it: {exc}", path=_label(pdf), field="pdf") from None
            self._docs[key] = doc
            while len(self._docs) > self.max_documents:
                _, old = self._docs.popitem(last=False)
                old.close()
        self._docs.move_to_end(key)
        return key, doc

    def close(self) -> None:
        """Close every open document and drop the rendered pages."""
        with PDFIUM_LOCK:
            for doc in self._docs.values():
                doc.close()
            self._docs.clear()
            self._pages.clear()


def _key(pdf: PdfSource) -> tuple:
    if isinstance(pdf, bytes):
        return ("bytes", hashlib.sha1(pdf).hexdigest())  # noqa: S324 - a cache key, not security
    path = Path(pdf).resolve()
    st = path.stat()
    return (os.fspath(path), st.st_size, st.st_mtime_ns)


def _label(pdf: PdfSource) -> str:
    return f"<{len(pdf)} bytes of PDF>" if isinstance(pdf, bytes) else os.fspath(pdf)


_DEFAULT: PageRenderer | None = None


def default_renderer() -> PageRenderer:
    """The process's shared :class:`PageRenderer` (what :func:`evidence_image` uses by default),
    closed when the interpreter exits."""
    global _DEFAULT
    with PDFIUM_LOCK:
        if _DEFAULT is None:
            # pypdfium2 first: its exit handler closes what is still open with a warning on stderr
            # ("... was still open and will be closed now"); exit handlers run last-registered first,
            # so the shared renderer closes its documents before that one looks
            _pdfium()
            _DEFAULT = PageRenderer()
            atexit.register(_DEFAULT.close)
        return _DEFAULT
