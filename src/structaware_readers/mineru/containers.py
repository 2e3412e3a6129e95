"""Find the MinerU JSON to read inside a file, an output folder or a zip, by content.

Every ``*.json`` candidate (folders searched :data:`MAX_DEPTH` deep) is detected by content; model
outputs are skipped from their first bytes. The candidate whose format comes first in
:data:`~structaware_readers.mineru.detect.FORMAT_PREFERENCE` wins; ties must be method folders of one
run (``auto`` before ``vlm``), and candidates from different documents raise
:class:`UnknownFormatError`. Each file is read once.
"""

from __future__ import annotations

import os
import re
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from structaware_readers.common.limits import MAX_JSON_BYTES, MAX_ZIP_BYTES, load_json, read_capped
from structaware_readers.errors import (
    InputNotFoundError,
    MalformedInputError,
    UnknownFormatError,
)
from structaware_readers.mineru.detect import FORMAT_PREFERENCE, detect_format

#: How many folder levels below the given folder are searched for MinerU JSON files.
MAX_DEPTH = 3
_PEEK = 65536
_MODEL_MARK = re.compile(rb'"schema"\s*:\s*"docvortex\.model"|"layout_dets"\s*:')
#: Largest zip member read (uncompressed bytes, as the zip header states); larger members are skipped.
MAX_MEMBER_BYTES = MAX_JSON_BYTES
#: Names of the per-method folders MinerU writes under ``<out>/<name>/``.
METHOD_DIR_RE = re.compile(r"^(auto|ocr|txt|vlm|office|pipeline|hybrid(_\w+)?|vlm_\w+)$", re.IGNORECASE)


@dataclass
class Candidate:
    """One readable MinerU JSON: its parsed value, detected format, bytes and where it was found.

    ``label`` names the file in messages (``folder/auto/x_middle.json`` or ``out.zip!middle_json.json``);
    ``parent`` is its folder (relative to the container) and ``depth`` the folder depth.
    """

    data: Any
    format: str
    raw: bytes
    label: str
    parent: str
    depth: int


def parse_json_bytes(raw: bytes, *, label: str) -> Any:
    """Decode UTF-8 (BOM and leading whitespace allowed) JSON bytes within the input limits
    (:func:`structaware_readers.common.limits.load_json`). Raises ``MalformedInputError``, ``UnknownFormatError``.
    """
    return load_json(raw, path=label)


def load_json_file(path: Path) -> Candidate:
    """Read one JSON file and detect its format (errors name the file)."""
    with open(path, "rb") as fh:
        raw = read_capped(fh, MAX_JSON_BYTES, path=path)
    data = parse_json_bytes(raw, label=str(path))
    fmt = detect_format(data, path=str(path))
    return Candidate(data=data, format=fmt, raw=raw, label=str(path), parent="", depth=0)


def scan_folder(folder: Path) -> Candidate:
    """Pick the MinerU JSON to read in an output folder (see the module docstring). Raises ``InputNotFoundError``,
    ``UnknownFormatError``.
    """
    found: list[Candidate] = []
    skipped: list[str] = []
    base = len(folder.parts)
    for root, dirs, files in os.walk(folder):
        rp = Path(root)
        depth = len(rp.parts) - base
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d.lower() != "images" and depth < MAX_DEPTH)
        for fn in sorted(files):
            if not fn.lower().endswith(".json"):
                continue
            fp = rp / fn
            if not fp.is_file():  # a named pipe or device would block or never end
                skipped.append(f"{fp.relative_to(folder)} (not a regular file)")
                continue
            with open(fp, "rb") as fh:
                head = fh.read(_PEEK)
                if _MODEL_MARK.search(head):
                    skipped.append(f"{fp.relative_to(folder)} (model output)")
                    continue
                raw = head + read_capped(fh, MAX_JSON_BYTES - len(head), path=fp)
            cand = _try_candidate(raw, label=str(fp), parent=str(rp.relative_to(folder)), depth=depth, skipped=skipped)
            if cand is not None:
                found.append(cand)
    return _choose(found, container=str(folder), skipped=skipped)


def scan_zip(path: Path) -> Candidate:
    """Pick the MinerU JSON to read inside a zip (same rules as :func:`scan_folder`). Raises ``MalformedInputError``,
    ``InputNotFoundError``, ``UnknownFormatError``.
    """
    found: list[Candidate] = []
    skipped: list[str] = []
    budget = MAX_ZIP_BYTES
    try:
        with zipfile.ZipFile(path) as zf:
            for info in sorted(zf.infolist(), key=lambda i: i.filename):
                name = info.filename
                pp = PurePosixPath(name)
                if info.is_dir() or not name.lower().endswith(".json"):
                    continue
                if any(part.lower() == "images" or part.startswith(".") for part in pp.parts[:-1]):
                    continue
                if len(pp.parts) - 1 > MAX_DEPTH:
                    continue
                label = f"{path}!{name}"
                if info.file_size > MAX_MEMBER_BYTES:
                    skipped.append(f"{name} (larger than {MAX_MEMBER_BYTES} bytes)")
                    continue
                try:
                    with zf.open(info) as fh:
                        head = fh.read(min(_PEEK, budget))
                        if _MODEL_MARK.search(head):
                            skipped.append(f"{name} (model output)")
                            budget -= len(head)
                            continue
                        raw = head + read_capped(fh, budget - len(head), path=label)
                except MalformedInputError:
                    raise MalformedInputError(
                        f"the zip's JSON members decompress to more than {MAX_ZIP_BYTES} bytes (zip-bomb guard)",
                        path=path,
                        field=f"zip!{name}",
                    ) from None
                except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError) as exc:
                    raise MalformedInputError(f"corrupt zip member: {exc}", path=path, field=f"zip!{name}") from exc
                except (RuntimeError, NotImplementedError) as exc:  # encrypted; unsupported method
                    raise MalformedInputError(f"unreadable zip member: {exc}", path=path, field=f"zip!{name}") from exc
                budget -= len(raw)
                cand = _try_candidate(raw, label=label, parent=str(pp.parent), depth=len(pp.parts) - 1, skipped=skipped)
                if cand is not None:
                    found.append(cand)
    except (zipfile.BadZipFile, NotImplementedError) as exc:  # a central directory zipfile cannot read
        raise MalformedInputError(f"corrupt zip: {exc}", path=path, field="zip") from exc
    return _choose(found, container=str(path), skipped=skipped)


def _try_candidate(raw: bytes, *, label: str, parent: str, depth: int, skipped: list[str]) -> Candidate | None:
    try:
        data = parse_json_bytes(raw, label=label)
        fmt = detect_format(data, path=label)
    except (UnknownFormatError, MalformedInputError) as exc:
        skipped.append(f"{label}: {exc.message}")
        return None
    return Candidate(data=data, format=fmt, raw=raw, label=label, parent=parent, depth=depth)


def _choose(found: list[Candidate], *, container: str, skipped: list[str]) -> Candidate:
    if not found:
        detail = "; ".join(skipped[:5]) if skipped else "no .json files"
        raise InputNotFoundError(f"no readable MinerU JSON found ({detail})", path=container)
    rank = {f: i for i, f in enumerate(FORMAT_PREFERENCE)}
    best_rank = min(rank[c.format] for c in found)
    best = sorted((c for c in found if rank[c.format] == best_rank), key=lambda c: (c.depth, c.parent, c.label))
    parents = sorted({c.parent for c in best})
    if len(best) > 1:
        same_run = (
            len(parents) == len(best)
            and len({str(Path(p).parent) for p in parents}) == 1
            and all(METHOD_DIR_RE.match(Path(p).name) for p in parents)
        )
        if not same_run:
            names = ", ".join(c.label for c in best[:4])
            raise UnknownFormatError(
                f"holds {len(best)} MinerU {best[0].format} files of different documents ({names}); pass one of them",
                path=container,
                field="content",
            )
    return best[0]


__all__ = [
    "MAX_DEPTH",
    "MAX_MEMBER_BYTES",
    "METHOD_DIR_RE",
    "Candidate",
    "load_json_file",
    "parse_json_bytes",
    "scan_folder",
    "scan_zip",
]
