"""Dense and sparse encoders for evidence units, with a persistent content-hash cache.

Both embed ``Unit.embedding_text()`` (context, newline, text) in batches and look each text up in an
:class:`EmbeddingCache` keyed by model id and content hash first, so an unchanged document runs no
model. :class:`DenseEncoder` (:mod:`.dense`) wraps any :class:`DenseModel` (:mod:`.fastembed_model`,
:mod:`.packaged_models`, :mod:`.language_routed`); :class:`SparseEncoder` (:mod:`.sparse`) gives the
term-frequency half of BM25, Qdrant applying the IDF half.
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
