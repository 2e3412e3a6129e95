"""The OCR engine interface: a page image in, text lines with boxes and confidences out.

Every OCR consumer goes through :class:`OcrEngine`, so an engine can be swapped. The default is
RapidOCR (PP-OCRv6 small, Chinese and English, on ONNX Runtime), whose weights ship in its wheel:
it works offline and raises ``OcrUnavailableError`` rather than download a model (extra ``ocr``).
A line's ``bbox`` is ``(x0, y0, x1, y1)`` in 0..1 of the image, origin top-left, the hull of the
detector's quadrilateral (kept in ``polygon``). The engine loads on first use, once per process
(:func:`default_engine`); calls are serialised; :func:`set_default_threads` gives a parse worker
one thread.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from structaware_readers.errors import MissingExtraError, OcrUnavailableError

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    from PIL import Image

BBox = tuple[float, float, float, float]

#: Lines the recogniser is less sure of than this are kept but flagged (:attr:`OcrLine.low_confidence`).
LOW_CONFIDENCE = 0.8
#: Lines below this recogniser score are dropped as noise (specks, rules, texture read as text).
MIN_CONFIDENCE = 0.3
#: The extra that brings the default engine.
OCR_EXTRA = "ocr"
#: PyPI distribution (import package ``rapidocr``) of the default engine.
RAPIDOCR_DIST = "rapidocr"


@dataclass(frozen=True)
class OcrLine:
    """One line of text read from an image: ``bbox`` and ``polygon`` in 0..1 of the image, origin top-left;
    ``confidence`` 0..1.
    """

    text: str
    bbox: BBox
    confidence: float
    polygon: tuple[tuple[float, float], ...] = ()

    @property
    def low_confidence(self) -> bool:
        """``True`` when the recogniser's score is below :data:`LOW_CONFIDENCE`."""
        return self.confidence < LOW_CONFIDENCE

    @property
    def height(self) -> float:
        return self.bbox[3] - self.bbox[1]

    @property
    def center_y(self) -> float:
        return (self.bbox[1] + self.bbox[3]) / 2


@runtime_checkable
class OcrEngine(Protocol):
    """What every OCR engine offers."""

    #: a short name recorded with what it read (e.g. ``"rapidocr PP-OCRv6 small"``)
    name: str

    @property
    def version(self) -> str: ...

    def read(self, image: Image.Image | np.ndarray) -> list[OcrLine]: ...


class RapidOcrEngine:
    """RapidOCR with its bundled PP-OCRv6 small models (see the module docstring)."""

    name = "rapidocr PP-OCRv6 small"
    #: structaware's reading around the engine (tall lines read both ways up); part of every cache key
    revision = 2

    def __init__(self, *, min_confidence: float = MIN_CONFIDENCE, threads: int | None = None) -> None:
        self.min_confidence = min_confidence
        self.threads = threads
        self._engine: Any = None
        self._lock = threading.Lock()

    @property
    def version(self) -> str:
        """``rapidocr`` distribution version (``""`` when it is not installed)."""
        try:
            return metadata.version(RAPIDOCR_DIST)
        except metadata.PackageNotFoundError:
            return ""

    def _load(self) -> Any:
        if self._engine is not None:
            return self._engine
        try:
            import rapidocr
            from rapidocr import EngineType, LangDet, LangRec, ModelType, OCRVersion, RapidOCR
        except ImportError as exc:
            raise MissingExtraError(RAPIDOCR_DIST, OCR_EXTRA, "Reading pages without a text layer (OCR)") from exc
        models = Path(rapidocr.__file__).parent / "models"
        det, rec = models / "PP-OCRv6_det_small.onnx", models / "PP-OCRv6_rec_small.onnx"
        missing = [p.name for p in (det, rec) if not p.is_file()]
        if missing:
            raise OcrUnavailableError(
                f"the installed rapidocr {self.version} does not ship {', '.join(missing)} in its package;"
                " structaware never downloads OCR weights: install a rapidocr wheel that bundles them"
                " (pip install 'structaware[ocr]')",
                field=RAPIDOCR_DIST,
            )
        threads = -1 if self.threads is None else int(self.threads)
        params = {
            "Global.log_level": "error",
            "Global.text_score": self.min_confidence,
            "Global.use_cls": False,  # pages are rendered upright; the angle classifier costs ~10 %
            "Det.engine_type": EngineType.ONNXRUNTIME,
            "Det.lang_type": LangDet.CH,
            "Det.model_type": ModelType.SMALL,
            "Det.ocr_version": OCRVersion.PPOCRV6,
            "Det.model_path": str(det),
            "Rec.engine_type": EngineType.ONNXRUNTIME,
            "Rec.lang_type": LangRec.CH,
            "Rec.model_type": ModelType.SMALL,
            "Rec.ocr_version": OCRVersion.PPOCRV6,
            "Rec.model_path": str(rec),
            "EngineConfig.onnxruntime.intra_op_num_threads": threads,
        }
        try:
            self._engine = RapidOCR(params=params)
        except Exception as exc:  # a broken install: name it instead of a deep traceback
            raise OcrUnavailableError(f"rapidocr {self.version} failed to load: {exc}", field=RAPIDOCR_DIST) from exc
        return self._engine

    def read(self, image: Image.Image | np.ndarray) -> list[OcrLine]:
        """Read ``image`` (RGB ``PIL.Image`` or ``uint8`` ``(h, w, 3)`` RGB array); lines as :class:`OcrLine`. Raises
        ``MissingExtraError``, ``ValueError``.
        """
        arr = _as_bgr_array(image)
        with self._lock:
            engine = self._load()
            out = engine(
                arr, use_det=True, use_cls=False, use_rec=True
            )  # explicit: RapidOCR keeps the last call's switches
        boxes, txts, scores = getattr(out, "boxes", None), getattr(out, "txts", None), getattr(out, "scores", None)
        if boxes is None or txts is None:
            return []
        h, w = arr.shape[:2]
        lines: list[OcrLine] = []
        for quad, text, score in zip(boxes, txts, scores or ()):
            text, score = str(text).strip(), float(score)
            if _is_tall(quad):
                text, score = self._read_upward(arr, quad, text, score)
            if not text or score < self.min_confidence:
                continue
            pts = tuple((_clamp(float(x) / w), _clamp(float(y) / h)) for x, y in quad)
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            lines.append(OcrLine(text, (min(xs), min(ys), max(xs), max(ys)), round(score, 4), pts))
        return lines

    def _read_upward(self, arr: np.ndarray, quad: Any, text: str, score: float) -> tuple[str, float]:
        """The better reading of a tall line: as RapidOCR read it, or turned to read upwards."""
        import numpy as np

        xs, ys = [float(x) for x, _ in quad], [float(y) for _, y in quad]
        x0, x1 = max(0, int(min(xs))), min(arr.shape[1], int(round(max(xs))))
        y0, y1 = max(0, int(min(ys))), min(arr.shape[0], int(round(max(ys))))
        if x1 - x0 < 2 or y1 - y0 < 2:
            return text, score
        turned = np.ascontiguousarray(np.rot90(arr[y0:y1, x0:x1], k=-1))
        with self._lock:
            out = self._load()(turned, use_det=False, use_cls=False, use_rec=True)
        txts, scores = getattr(out, "txts", None), getattr(out, "scores", None)
        if not txts or not scores:
            return text, score
        alt, alt_score = str(txts[0]).strip(), float(scores[0])
        return (alt, alt_score) if alt and alt_score > score else (text, score)


def _is_tall(quad: Any) -> bool:
    """A detector quadrilateral (pixels) at least 1.5 times as tall as it is wide: the threshold at which
    RapidOCR turns the crop before recognising it."""
    xs, ys = [float(x) for x, _ in quad], [float(y) for _, y in quad]
    return (max(ys) - min(ys)) >= 1.5 * max(1.0, max(xs) - min(xs))


def _clamp(v: float) -> float:
    return 0.0 if v < 0.0 else 1.0 if v > 1.0 else v


def _as_bgr_array(image: Any) -> Any:
    """RGB PIL image or RGB ``uint8`` array -> contiguous BGR array (what OpenCV-based engines read)."""
    import numpy as np

    if hasattr(image, "convert") and hasattr(image, "size"):  # PIL.Image.Image
        image = np.asarray(image.convert("RGB"))
    if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3 or image.size == 0:
        shape = getattr(image, "shape", None)
        raise ValueError(f"an OCR image must be RGB with shape (height, width, 3), got {type(image).__name__} {shape}")
    if image.dtype != np.uint8:
        raise ValueError(f"an OCR image must be uint8, got {image.dtype}")
    return np.ascontiguousarray(image[:, :, ::-1])


_default: OcrEngine | None = None
_default_threads: int | None = None
_default_lock = threading.Lock()


def default_engine() -> OcrEngine:
    """The process's shared default engine (:class:`RapidOcrEngine`), created on first call.

    Creating it imports nothing; the models load on its first :meth:`~OcrEngine.read`.
    """
    global _default
    with _default_lock:
        if _default is None:
            _default = RapidOcrEngine(threads=_default_threads)
        return _default


def set_default_threads(threads: int | None) -> None:
    """ONNX Runtime intra-op threads of the process's default engine (:func:`default_engine`); ``None`` (the default)
    lets it use every core. A parse worker sets 1 (module docstring). Raises ``ValueError``.
    """
    global _default_threads
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
        raise ValueError(f"threads must be None or a positive integer, not {threads!r}")
    with _default_lock:
        _default_threads = threads
        if isinstance(_default, RapidOcrEngine) and _default._engine is None:
            _default.threads = threads


__all__ = [
    "LOW_CONFIDENCE",
    "MIN_CONFIDENCE",
    "OCR_EXTRA",
    "OcrEngine",
    "OcrLine",
    "OcrUnavailableError",
    "RapidOcrEngine",
    "default_engine",
    "set_default_threads",
]
