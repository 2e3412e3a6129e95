"""BM25 sparse vectors whose IDF half is applied by Qdrant (``Modifier.IDF``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import NamedTuple

from structaware_readers.errors import MalformedInputError
from structaware_readers.ids import content_hash
from structaware_retrievers.encoders.cache import CachedEncoder, EmbeddingCache
from structaware_retrievers.encoders.tokenize import LABEL_WORDS, Bm25Tokenizer

# numpy is imported where it is used: a CLI query process needs none (encoders.query_child)

__all__ = ["NO_BM25_TERMS", "TIE_SPAN", "SparseEncoder", "SparseVector", "tie_broken"]

#: Why a BM25-only search (``mode="sparse"``) of a question with no BM25 term cannot answer.
NO_BM25_TERMS = (
    "the question has no BM25 term (only stop words or punctuation), so a BM25-only search has nothing"
    " to match; search in hybrid or dense mode"
)


class SparseVector(NamedTuple):
    """A sparse vector: parallel lists of unique token ids (``0 <= id < 2**32``) and weights."""

    indices: list[int]
    values: list[float]


def _pack_sparse(v: SparseVector) -> bytes:
    import numpy as np

    return np.asarray(v.indices, dtype="<u4").tobytes() + np.asarray(v.values, dtype="<f4").tobytes()


def _unpack_sparse(b: bytes) -> SparseVector:
    import numpy as np

    n = len(b) // 8
    idx = np.frombuffer(b[: 4 * n], dtype="<u4")
    val = np.frombuffer(b[4 * n :], dtype="<f4")
    return SparseVector(idx.tolist(), val.tolist())


#: Relative width of the per-point factor :func:`tie_broken` puts on a stored BM25 vector.
TIE_SPAN = 1e-3


def tie_broken(vectors: Sequence[SparseVector], point_ids: Sequence[str]) -> list[SparseVector]:
    """Each stored BM25 vector with all its weights scaled by ``1 + TIE_SPAN * f``, ``f`` in [0, 1) fixed by its point id.

    Units whose BM25 scores are equal (table rows that differ only in words the question lacks) come back from Qdrant
    in the order of its own layout, which differs between two builds of the same units; the prefetch then cuts them
    at another place and RRF turns that order into other fused scores. With the factor, equal scores become distinct
    in the same way in every build (up to float32 resolution, about one in 8,000 of the span), and no score moves by
    more than 0.1 %. Applied where points are written, never to a query vector or to the embedding cache.
    """
    import numpy as np

    out: list[SparseVector] = []
    for v, pid in zip(vectors, point_ids, strict=True):
        f = int(content_hash(str(pid))[:8], 16) / 2**32
        values = np.asarray(v.values, dtype=np.float64) * (1.0 + TIE_SPAN * f)
        out.append(SparseVector(list(v.indices), values.astype(np.float32).tolist()))
    return out


class SparseEncoder(CachedEncoder):
    """BM25 sparse vectors whose IDF half is applied by Qdrant (``Modifier.IDF``), so IDF follows the live collection.

    A document token weighs ``tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avg_len))`` (``avg_len`` in tokens), a
    query token 1.0. ``model_id`` encodes every setting that changes document vectors, so an index refuses an
    encoder that would write other vectors.
    """

    VERSION = "2"

    def __init__(
        self,
        *,
        k1: float = 1.2,
        b: float = 0.75,
        avg_len: float = 256.0,
        cache: EmbeddingCache | None = None,
    ) -> None:
        super().__init__(cache)
        if k1 < 0:
            raise MalformedInputError(f"must be >= 0, got {k1}", field="k1")
        if not 0.0 <= b <= 1.0:
            raise MalformedInputError(f"must be within [0, 1], got {b}", field="b")
        if avg_len <= 0:
            raise MalformedInputError(f"must be > 0, got {avg_len}", field="avg_len")
        self.k1, self.b, self.avg_len = float(k1), float(b), float(avg_len)
        self._tokenizer = Bm25Tokenizer()
        stop_key = content_hash("\n".join(sorted(self._tokenizer.stop)))[:8]
        label_key = content_hash("\n".join(sorted(LABEL_WORDS)))[:8]
        self.model_name = "structaware-bm25"
        self.model_id = (
            f"structaware-bm25/v{self.VERSION}:en=snowball,zh=jieba-search,stop={stop_key},labels={label_key}"
            f":k1={k1:g},b={b:g},avg_len={avg_len:g}"
        )

    def tokenize(self, text: str) -> list[str]:
        """Text -> normalised tokens (with repeats, in order), as described in the class docstring."""
        return self._tokenizer(text)

    @staticmethod
    def token_id(token: str) -> int:
        """Stable id of a token: ``abs(mmh3.hash(token))`` (fits an unsigned 32-bit index)."""
        import mmh3

        return abs(mmh3.hash(token))

    def _doc_vector(self, text: str) -> SparseVector:
        import numpy as np

        tokens = self.tokenize(text)
        if not tokens:
            return SparseVector([], [])
        tf = Counter(self.token_id(t) for t in tokens)
        norm = self.k1 * (1.0 - self.b + self.b * len(tokens) / self.avg_len)
        ids = sorted(tf)
        weights = np.array([tf[i] * (self.k1 + 1.0) / (tf[i] + norm) for i in ids], dtype=np.float32)
        return SparseVector(ids, weights.tolist())  # float32, as Qdrant and the cache store them

    def _compute(self, texts: list[str]) -> list[SparseVector]:
        return [self._doc_vector(t) for t in texts]

    def _encode(self, item: SparseVector) -> bytes:
        return _pack_sparse(item)

    def _decode(self, blob: bytes) -> SparseVector:
        return _unpack_sparse(blob)

    def embed_documents(self, texts: Sequence[str]) -> list[SparseVector]:
        """BM25 term-frequency vectors for documents (cached); a text with no tokens gives an empty vector."""
        return self._embed_cached(texts)

    def embed_query(self, text: str) -> SparseVector:
        """Query vector: weight 1.0 per unique token. Empty when no token survives (all stop words)."""
        ids = sorted({self.token_id(t) for t in self.tokenize(text)})
        return SparseVector(ids, [1.0] * len(ids))

    def __repr__(self) -> str:
        return f"SparseEncoder(k1={self.k1:g}, b={self.b:g}, avg_len={self.avg_len:g})"
