"""OCR results on disk, so a PDF's pages are read once: ``<cache>/ocr/<doc_id>/<key>/p<page>.json``, and an image (an
algorithm figure's region) once: ``<cache>/ocr/images/<key>/<sha256 of its pixels>.json``.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path

from structaware_readers.ocr.engine import OcrLine

_FORMAT = 2
#: a horizontal rule on the page: ``(y, x0, x1)`` in 0..1 of the page, origin top-left
Rule = tuple[float, float, float]


class OcrCache:
    """Per-page OCR lines keyed by document id, engine name + version and dpi."""

    def __init__(self, root: str | Path | None = None) -> None:
        if root is None:
            from structaware_readers.mineru.pdf import default_cache_dir

            root = default_cache_dir()
        self.root = Path(root).expanduser()

    def _entry(self, doc_id: str, key: str, page: int) -> Path:
        safe = re.sub(r"[^A-Za-z0-9._+-]", "_", key)
        return self.root / "ocr" / doc_id / safe / f"p{page}.json"

    def _image_entry(self, digest: str, key: str) -> Path:
        safe = re.sub(r"[^A-Za-z0-9._+-]", "_", key)
        return self.root / "ocr" / "images" / safe / f"{digest}.json"

    def load_image(self, digest: str, key: str) -> list[OcrLine] | None:
        """The lines of the image whose pixels hash to ``digest`` (sha256 hex), read by ``key``; ``None`` on a miss."""
        found = self._load(self._image_entry(digest, key), 0)
        return None if found is None else found[0]

    def store_image(self, digest: str, key: str, lines: list[OcrLine]) -> None:
        """Keep the lines of the image whose pixels hash to ``digest``, read by ``key``."""
        self._store(self._image_entry(digest, key), lines, [], 0)

    def load(
        self, doc_id: str, key: str, page: int, rules_version: int = 0
    ) -> tuple[list[OcrLine], list[Rule] | None] | None:
        """The page's lines and horizontal rules (``None`` when found by another ``rules_version``), or ``None`` on a miss."""
        return self._load(self._entry(doc_id, key, page), rules_version)

    def _load(self, entry: Path, rules_version: int) -> tuple[list[OcrLine], list[Rule] | None] | None:
        try:
            data = json.loads(entry.read_text(encoding="utf-8"))
            if data.get("format") != _FORMAT:
                return None
            lines = [
                OcrLine(str(d["text"]), tuple(d["bbox"]), float(d["confidence"]), tuple(tuple(p) for p in d["polygon"]))
                for d in data["lines"]
            ]
            if data.get("rules_version", 0) != rules_version:
                return lines, None
            return lines, [tuple(r) for r in data["rules"]]
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def store(
        self, doc_id: str, key: str, page: int, lines: list[OcrLine], rules: list[Rule], rules_version: int = 0
    ) -> None:
        """Keep the page's lines and horizontal rules (atomically)."""
        self._store(self._entry(doc_id, key, page), lines, rules, rules_version)

    def _store(self, target: Path, lines: list[OcrLine], rules: list[Rule], rules_version: int) -> None:
        record = {
            "format": _FORMAT,
            "lines": [
                {
                    "text": ln.text,
                    "bbox": list(ln.bbox),
                    "confidence": ln.confidence,
                    "polygon": [list(p) for p in ln.polygon],
                }
                for ln in lines
            ],
            "rules": [list(r) for r in rules],
            "rules_version": rules_version,
        }
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(record, fh, ensure_ascii=False)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
