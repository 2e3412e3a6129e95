"""One dense vector that reads English and Chinese: an English and a multilingual model side by side."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Protocol

from structaware_readers.errors import MalformedInputError
from structaware_retrievers.encoders.tokenize import cjk_share

if TYPE_CHECKING:
    import numpy as np

    from structaware_retrievers.encoders.cache import EmbeddingCache


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


__all__ = ["CJK_QUERY_SHARE", "LanguageRoutedModel", "no_cjk_half"]

#: a query whose letters are at least this share CJK is searched by the multilingual half alone
CJK_QUERY_SHARE = 0.3
#: what a routed model's id adds to the old id (every passage through both models)
_ROUTED_ID_SUFFIX = "+cjk-free-passages-english-only"


def no_cjk_half(dim: int) -> np.ndarray:
    """The multilingual half of a passage without a CJK letter when passages are routed: a fixed unit
    vector of alternating signs, ``(+1, -1, +1, ...) / sqrt(dim)``, float32, shape ``(dim,)``."""
    import numpy as np

    signs = np.where(np.arange(dim) % 2 == 0, 1.0, -1.0)
    return (signs / math.sqrt(dim)).astype(np.float32)


class LanguageRoutedModel:
    """An English and a multilingual :class:`DenseEncoder` in one vector; the query's language picks the half.

    ``english_query_share`` is the weight of the multilingual half in a non-CJK query (0: the English model alone);
    ``route_passages`` embeds a passage without CJK letters by the English model alone. Raises
    ``MalformedInputError`` (negative or non-finite share, or routed passages with a share above 0).
    """

    def __init__(
        self,
        english: _Half,
        multilingual: _Half,
        *,
        english_query_share: float = 0.0,
        name: str | None = None,
        route_passages: bool | None = None,
    ) -> None:
        if not (isinstance(english_query_share, (int, float)) and 0 <= english_query_share < math.inf):
            raise MalformedInputError(
                f"must be a number >= 0, got {english_query_share!r}", field="english_query_share"
            )
        self.english = english
        self.multilingual = multilingual
        self.english_query_share = float(english_query_share)
        if route_passages is None:
            route_passages = self.english_query_share == 0
        elif route_passages and self.english_query_share:
            raise MalformedInputError(
                "must be False when english_query_share > 0 (English queries then read the"
                " multilingual half of English passages)",
                field="route_passages",
            )
        self.route_passages = bool(route_passages)
        self.model_name = name or f"{english.model_name}+{multilingual.model_name}"
        both = f"{self.model_name}@{english.model_id}+{multilingual.model_id}"
        self.model_id = both + _ROUTED_ID_SUFFIX if self.route_passages else both
        # the halves' own compatible ids (MiniLM's float32 products under dynamic int8), routed or not
        english_ids = (english.model_id, *sorted(getattr(english, "compatible_ids", ())))
        ids = []
        for eid in english_ids:
            plain = f"{self.model_name}@{eid}+{multilingual.model_id}"
            ids += [plain + _ROUTED_ID_SUFFIX, plain] if self.route_passages else [plain]
        self.compatible_model_ids: tuple[str, ...] = tuple(i for i in dict.fromkeys(ids) if i != self.model_id)
        self.dim = english.dim + multilingual.dim
        langs = (english.languages, multilingual.languages)
        union = None if None in langs else frozenset().union(*langs)  # type: ignore[arg-type]
        self.languages: frozenset[str] | None = union

    @property
    def computed(self) -> int:
        """Texts run through a model so far (the larger count of the two halves)."""
        return max(self.english.computed, self.multilingual.computed)

    def load(self) -> Any:
        """Load the English half's model (most queries are English; the multilingual half loads on
        its first use, a CJK query or a passage): what ``DenseEncoder.model`` loads ahead of a query."""
        return self.english.model

    def load_for(self, text: str) -> None:
        """Load the half or halves that :meth:`embed_query` of ``text`` uses (a CJK question: the
        multilingual half alone), so a process that knows its question early loads no other model."""
        if cjk_share(text) >= CJK_QUERY_SHARE:
            self.multilingual.model  # noqa: B018 - loads the model
            return
        self.english.model  # noqa: B018
        if self.english_query_share:
            self.multilingual.model  # noqa: B018

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
        """``(len(texts), d_e + d_m)`` float32 unit rows ``[e(t), m(t)] / sqrt(2)``; ``m(t)`` is
        :func:`no_cjk_half` for a text without a CJK letter when passages are routed."""
        import numpy as np

        english = self.english.embed_array(texts)
        if self.route_passages:
            cjk = [i for i, t in enumerate(texts) if cjk_share(t) > 0]
            multilingual = np.tile(no_cjk_half(self.multilingual.dim), (len(texts), 1))
            if cjk:
                multilingual[cjk] = self.multilingual.embed_array([texts[i] for i in cjk])
        else:
            multilingual = self.multilingual.embed_array(texts)
        both = np.hstack([english, multilingual])
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
