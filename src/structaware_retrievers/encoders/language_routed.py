"""One dense vector that reads English and Chinese: an English model and a multilingual model side by side.

:class:`LanguageRoutedModel` embeds every passage with both models and stores the two unit-length
vectors concatenated and scaled to unit length, ``[e(t), m(t)] / sqrt(2)``, in the index's one
dense vector. A query is embedded by the model(s) of its language and the other half is zeroed
or scaled down:

* a query mostly in Chinese, Japanese or Korean (:func:`~.tokenize.cjk_share` >= 0.3, the share
  :meth:`DenseEncoder.covers` uses): ``[0, m(q)]``, so its cosine with a passage ranks exactly as
  the multilingual model's ``m(q) . m(t)``;
* any other query: ``[e(q), beta * m(q)]`` (normalised), which ranks as
  ``e(q) . e(t) + beta * m(q) . m(t)``: the English model's similarity, with ``beta`` of the
  multilingual one (``beta = 0``: the English model alone).

So Qdrant's one dense prefetch is a language-aware dense search: the English model, strong on English
passages and blind to Chinese, answers English questions; the multilingual model answers CJK ones.
A passage in the other language than the query scores low on the half that speaks the query's
language, which keeps an English question's hits English in a mixed index. Nothing in the store
changes (one named vector, ``dim = d_e + d_m``); the weighting happens in the query vector.

Each half is a :class:`~.dense.DenseEncoder` with its own content-hash cache entries (under its
own model id), so vectors a single-model index already embedded are reused, and the concatenation
itself is never stored twice (:class:`DenseEncoder` leaves the caching to the halves).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Protocol

from .tokenize import cjk_share

if TYPE_CHECKING:
    import numpy as np

    from .cache import EmbeddingCache


class _Half(Protocol):
    """What this module uses of each half: a :class:`~.dense.DenseEncoder` (named structurally, so
    that ``dense.py``, which builds the default preset from this module, is not imported back)."""

    model_name: str
    model_id: str
    dim: int
    languages: frozenset[str] | None
    computed: int
    cache: EmbeddingCache | None
    backend: Any

    @property
    def model(self) -> Any: ...

    def embed_array(self, texts: list[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> Any: ...


__all__ = ["CJK_QUERY_SHARE", "LanguageRoutedModel"]

#: a query whose letters are at least this share CJK is searched by the multilingual half alone
CJK_QUERY_SHARE = 0.3


class LanguageRoutedModel:
    """An English and a multilingual :class:`DenseEncoder` in one vector, the query's language
    choosing which half searches (see the module docstring).

    Args:
        english: the English model (e.g. ``DenseEncoder("all-MiniLM-L6-v2-int8")``).
        multilingual: a model that covers the other languages (e.g. ``DenseEncoder("use-multilingual-v3")``).
        english_query_share: ``beta``, the weight of the multilingual half in a non-CJK query's
            vector (the English half weighs 1); 0 searches English queries with the English model alone.
        name: the preset name (``model_name``).

    Attributes:
        model_id: ``<name>@<english id>+<multilingual id>``: the passage vectors depend on both
            models only (``english_query_share`` changes queries, not the index).
        languages: the union of the halves' languages (``None``: one half is multilingual/unknown).

    Raises:
        MalformedInputError: ``english_query_share`` is negative or not finite.
    """

    def __init__(
        self,
        english: _Half,
        multilingual: _Half,
        *,
        english_query_share: float = 0.0,
        name: str | None = None,
    ) -> None:
        from structaware_readers.errors import MalformedInputError

        if not (isinstance(english_query_share, (int, float)) and 0 <= english_query_share < math.inf):
            raise MalformedInputError(
                f"must be a number >= 0, got {english_query_share!r}", field="english_query_share"
            )
        self.english = english
        self.multilingual = multilingual
        self.english_query_share = float(english_query_share)
        self.model_name = name or f"{english.model_name}+{multilingual.model_name}"
        self.model_id = f"{self.model_name}@{english.model_id}+{multilingual.model_id}"
        self.dim = english.dim + multilingual.dim
        langs = (english.languages, multilingual.languages)
        self.languages: frozenset[str] | None = None if None in langs else frozenset().union(*langs)  # type: ignore[arg-type]

    @property
    def computed(self) -> int:
        """Texts run through a model so far (the larger count of the two halves)."""
        return max(self.english.computed, self.multilingual.computed)

    def load(self) -> Any:
        """Load the English half's model (most queries are English; the multilingual half loads on
        its first use, a CJK query or a passage): what ``DenseEncoder.model`` loads ahead of a query."""
        return self.english.model

    @property
    def prepack(self) -> bool:
        """``prepack`` of the halves' ONNX models (False: faster to load for one query)."""
        return all(getattr(h.backend, "prepack", True) for h in (self.english, self.multilingual))

    @prepack.setter
    def prepack(self, value: bool) -> None:
        for half in (self.english, self.multilingual):
            if hasattr(half.backend, "prepack"):
                half.backend.prepack = value

    def use_cache(self, cache: EmbeddingCache | None) -> None:
        """Give both halves the cache (each keeps its vectors under its own model id)."""
        self.english.cache = cache
        self.multilingual.cache = cache

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        both = np.hstack([self.english.embed_array(texts), self.multilingual.embed_array(texts)])
        return (both / math.sqrt(2.0)).astype(np.float32, copy=False)

    def embed_query(self, text: str) -> np.ndarray:
        import numpy as np

        if cjk_share(text) >= CJK_QUERY_SHARE:
            e = np.zeros(self.english.dim, dtype=np.float32)
            m = np.asarray(self.multilingual.embed_query(text), dtype=np.float32)
        else:  # the multilingual model is not even loaded for English queries when beta is 0
            e = np.asarray(self.english.embed_query(text), dtype=np.float32)
            m = np.zeros(self.multilingual.dim, dtype=np.float32)
            if self.english_query_share:
                m += self.english_query_share * np.asarray(self.multilingual.embed_query(text), dtype=np.float32)
        q = np.concatenate([e, m])
        return q / max(float(np.linalg.norm(q)), 1e-12)
