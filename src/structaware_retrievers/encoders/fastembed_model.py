"""Dense models in fastembed's formats (ONNX Runtime, CPU): the way to use any fastembed catalogue model or local ONNX
folder, and the bundled all-MiniLM-L6-v2 int8 export.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from structaware_readers.errors import InputNotFoundError, MalformedInputError
from structaware_retrievers.encoders import model_assets
from structaware_retrievers.encoders.model_assets import ModelUnavailableError
from structaware_retrievers.encoders.onnx_text import (
    DEFAULT_MAX_BATCH_TOKENS,
    OnnxMeanPoolEmbedder,
    token_budget_batches,
)

if TYPE_CHECKING:  # numpy is imported where it is used: a CLI query process needs none (encoders.query_child)
    import numpy as np

__all__ = ["DYNAMIC_INT8_ID_SUFFIX", "FastembedModel"]

#: Appended to the ``model_id`` of a model run with dynamic int8 products (its vectors differ).
DYNAMIC_INT8_ID_SUFFIX = "+dynamic-int8"

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


class FastembedModel:
    """A :class:`~structaware_retrievers.encoders.DenseModel` in fastembed's formats, from ``model_path`` (an ONNX
    folder), ``model_name`` (a fastembed catalogue model) or the bundled all-MiniLM-L6-v2 int8 (384-d, English).
    ``max_batch_tokens`` bounds the padded tokens of one call. Raises ``InputNotFoundError``, ``ModelUnavailableError``
    (not cached offline, checksum mismatch), ``MalformedInputError``.
    """

    def __init__(
        self,
        model_name: str | None = None,
        model_path: str | Path | None = None,
        *,
        batch_size: int = 64,
        threads: int | None = None,
        dim: int | None = None,
        languages: Iterable[str] | None = None,
        max_batch_tokens: int = DEFAULT_MAX_BATCH_TOKENS,
        dynamic_int8: bool | None = None,
    ) -> None:
        if max_batch_tokens < 1:
            raise MalformedInputError(f"must be >= 1, got {max_batch_tokens}", field="max_batch_tokens")
        self.languages: frozenset[str] | None = frozenset(languages) if languages is not None else None
        self.batch_size = batch_size
        self.max_batch_tokens = max_batch_tokens
        self.threads = threads
        #: ONNX Runtime's weight pre-packing (default and local-folder models; see
        #: :class:`OnnxMeanPoolEmbedder`): set ``False`` before the first use in a process that embeds one query.
        self.prepack = True
        self._model: Any = None
        self._load_lock = threading.Lock()
        self._custom: dict[str, Any] | None = None
        self.model_path: Path | None = None
        #: ids of indexes this model reads and writes as its own (the float32 products' id of a dynamic int8 run)
        self.compatible_model_ids: tuple[str, ...] = ()

        if model_path is not None:
            folder = Path(model_path).expanduser()
            if not folder.is_dir():
                raise InputNotFoundError("dense model folder does not exist", path=folder, field="model_path")
            for need in ("tokenizer.json", "tokenizer_config.json"):
                if not (folder / need).is_file():
                    raise InputNotFoundError(f"dense model folder lacks {need}", path=folder, field=need)
            onnx_rel = _find_onnx(folder)
            catalogue = _fastembed_catalogue() if model_name else {}  # importing fastembed costs ~1 s
            if model_name and model_name.lower() in catalogue:
                self.model_name = model_name
                self.dim = dim or catalogue[model_name.lower()]
            else:
                self.model_name = model_name or f"local/{folder.resolve().name}"
                self.dim = dim or self._read_dim(folder)
                self._custom = {"model_file": onnx_rel}
            self._source = "folder"
            self.model_path = folder
            digest = model_assets.file_digest(folder / onnx_rel)
            self.model_id = f"{self.model_name}@{digest[:12]}"
        elif model_name is None or model_name == model_assets.DEFAULT_DENSE_MODEL:
            self._source = "default"
            self.model_name = model_assets.DEFAULT_DENSE_MODEL
            self.dim = model_assets.DEFAULT_DENSE_DIM
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
            self.dim = dim or catalogue[model_name.lower()]
            self.model_id = model_name
        self.dynamic_int8 = bool(dynamic_int8 if dynamic_int8 is not None else self._source == "default")
        if self.dynamic_int8 and self._source != "default" and self._custom is None:
            raise MalformedInputError(
                "fastembed catalogue models run on fastembed, which does not quantise them; name a local"
                " folder by model_path= alone (mean pooling) to run it with dynamic int8",
                field="dynamic_int8",
            )
        if self.dynamic_int8:
            self.compatible_model_ids = (self.model_id,)
            self.model_id += DYNAMIC_INT8_ID_SUFFIX

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

    def load(self) -> Any:
        """The engine (created on first use): an ``OnnxMeanPoolEmbedder`` or a fastembed ``TextEmbedding``."""
        if self._model is None:
            with self._load_lock:
                if self._model is None:
                    self._model = self._load()
        return self._model

    def _load(self) -> Any:
        kwargs: dict[str, Any] = {"threads": self.threads}
        name = self.model_name
        try:
            if self._source == "default" or self._custom is not None:
                lean = OnnxMeanPoolEmbedder(
                    model_assets.default_model_dir() if self._source == "default" else self.model_path,  # type: ignore[arg-type]
                    self._custom["model_file"] if self._custom is not None else "model.onnx",
                    model_key=self.model_id,
                    threads=self.threads,
                    optimized_dir=model_assets.cache_dir() / "models" / "optimized",
                    max_batch_tokens=self.max_batch_tokens,
                    prepack=self.prepack,
                    dynamic_int8=self.dynamic_int8,
                )
                lean.session  # noqa: B018 - load now, so a broken model fails here as ModelUnavailableError
                return lean
            from fastembed import TextEmbedding

            if self._source == "folder":
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
            hint = ""
            if self._source == "catalogue":
                hint = (
                    f". Offline, a fastembed model must already be in the cache"
                    f" ({model_assets.cache_dir() / 'fastembed'}); or pass model_path= to a local ONNX folder"
                )
            raise ModelUnavailableError(f"cannot load dense model: {exc}{hint}", field=f"model_name={name}") from exc

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        """``(len(texts), dim)`` float32 unit-length rows (fastembed's passage embedding), in
        batches of at most ``max_batch_tokens`` padded tokens and ``batch_size`` texts."""
        import numpy as np

        engine = self.load()
        if isinstance(engine, OnnxMeanPoolEmbedder):  # batches by tokens itself
            return np.vstack(list(engine.embed(texts, batch_size=self.batch_size)))
        inner = engine.model  # fastembed pads to the longest text: the attention mask has the lengths
        inner._ensure_tokenizer()
        lengths = [sum(e.attention_mask) for e in inner.tokenizer.encode_batch(texts)]
        out: list[Any] = [None] * len(texts)
        for batch in token_budget_batches(lengths, self.max_batch_tokens, self.batch_size):
            for i, v in zip(batch, engine.embed([texts[i] for i in batch], batch_size=len(batch)), strict=True):
                out[i] = np.asarray(v, dtype=np.float32)
        return np.vstack(out)

    def embed_query(self, text: str) -> np.ndarray:
        """``(dim,)`` float32 unit-length query vector (fastembed's ``query_embed``)."""
        import numpy as np

        return np.asarray(next(iter(self.load().query_embed(text))), dtype=np.float32)
