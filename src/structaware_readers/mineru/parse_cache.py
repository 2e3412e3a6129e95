"""The cache of MinerU results on disk (:class:`ParseCache`), keyed by the PDF's content hash, the
tier and the MinerU version, so a second ingest of the same PDF does not run MinerU again
(:func:`structaware_readers.mineru.pdf.parse_pdf`). Its folder is :func:`default_cache_dir`."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

from structaware_readers.common.user_cache import cache_dir, write_replace

__all__ = ["CACHE_FORMAT", "ParseCache", "default_cache_dir"]

#: Version of the entry layout below.
CACHE_FORMAT = 1


def default_cache_dir() -> Path:
    """``$STRUCTAWARE_CACHE_DIR``, else the platform's user cache folder for ``structaware``
    (:func:`structaware_readers.common.user_cache.cache_dir`)."""
    return cache_dir()


class ParseCache:
    """MinerU results on disk: ``<root>/mineru/<doc_id>/<tier>-<version>.json`` (+ ``.zip``)."""

    def __init__(self, root: str | Path | None = None) -> None:
        self.root = Path(root).expanduser() if root is not None else default_cache_dir()

    def entry(self, doc_id: str, tier: str, version: str) -> Path:
        """Path of the JSON entry for this key (it may not exist)."""
        safe = re.sub(r"[^A-Za-z0-9._+-]", "_", f"{tier}-{version}")
        return self.root / "mineru" / doc_id / f"{safe}.json"

    def load(self, doc_id: str, tier: str, version: str) -> dict[str, Any] | None:
        """The cached middle JSON, or ``None`` on a miss."""
        entry = self.entry(doc_id, tier, version)
        try:
            data = json.loads(entry.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        ok = isinstance(data, dict) and data.get("format") == CACHE_FORMAT and data.get("doc_id") == doc_id
        middle = data.get("middle_json") if ok else None
        return middle if isinstance(middle, dict) else None

    def store(
        self,
        doc_id: str,
        tier: str,
        version: str,
        middle_json: dict[str, Any],
        *,
        package: bytes | None = None,
        pdf: Path | None = None,
        route: str = "local",
    ) -> Path:
        """Write one entry (and the zip package when given); return the JSON entry's path."""
        entry = self.entry(doc_id, tier, version)
        record = {
            "format": CACHE_FORMAT,
            "doc_id": doc_id,
            "tier": tier,
            "mineru_version": version,
            "route": route,
            "pdf_name": pdf.name if pdf else "",
            "middle_json": middle_json,
        }
        if package is not None:
            write_replace(entry.with_suffix(".zip"), package)
        write_replace(entry, json.dumps(record, ensure_ascii=False).encode("utf-8"))
        return entry

    def copy_zip(self, doc_id: str, tier: str, version: str, target: Path) -> bool:
        """Copy the cached zip package to ``target``; ``False`` when none was kept."""
        package = self.entry(doc_id, tier, version).with_suffix(".zip")
        if not package.is_file():
            return False
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(package, target)
        return True
