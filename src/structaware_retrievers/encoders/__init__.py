"""Dense and sparse encoders for evidence units, with a persistent content-hash cache."""

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
