"""A lean ONNX Runtime text embedder for mean-pooled sentence-transformers models in a local folder."""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
import threading
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from structaware_retrievers.encoders.model_assets import ModelUnavailableError

if TYPE_CHECKING:  # numpy is imported where it is used: a CLI query process needs none (encoders.query_child)
    import numpy as np

__all__ = [
    "ALLOW_SPINNING",
    "DEFAULT_MAX_BATCH_TOKENS",
    "OnnxMeanPoolEmbedder",
    "quantize_dynamic_int8",
    "token_budget_batches",
]

log = logging.getLogger(__name__)

#: Padded tokens per ONNX Runtime call (texts x longest text in the batch): 16 texts of 256 word
#: pieces, or 128 table rows of 32: bounds the peak memory of ingest (BENCHMARKS.md).
DEFAULT_MAX_BATCH_TOKENS = 4096
#: ONNX Runtime's session config key for busy-waiting intra-op threads; set to ``"0"`` on every session.
ALLOW_SPINNING = "session.intra_op.allow_spinning"

_GRAPH = "model.onnx"  # the saved optimised graph, in its own folder of the cache
_WEIGHTS = "model.data"  # its weights as ONNX external data, memory-mapped when loaded


def token_budget_batches(lengths: Sequence[int], max_tokens: int, max_count: int | None = None) -> list[list[int]]:
    """Group indices of ``lengths`` (tokens per text) into batches of at most ``max_tokens`` padded tokens
    (``len(batch) * max(lengths in batch)``) and at most ``max_count`` texts.
    """
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    batches: list[list[int]] = []
    cur: list[int] = []
    for i in order:
        n = max(1, lengths[i])  # ascending: the new text is the longest of the batch
        full = max_count is not None and len(cur) >= max_count
        if cur and (full or (len(cur) + 1) * n > max_tokens):
            batches.append(cur)
            cur = []
        cur.append(i)
    if cur:
        batches.append(cur)
    return batches


def quantize_dynamic_int8(source: Path, out_dir: Path) -> Path:
    """Write ``source`` (an ONNX graph) quantised dynamically to ``out_dir/quantized.onnx``; return that path. Raises
    ``ModelUnavailableError``.
    """
    try:
        import onnx  # noqa: F401 - the quantiser's own dependency: fail here with its name
    except ImportError as exc:
        raise ModelUnavailableError(
            "quantising the dense model (dynamic int8) needs the 'onnx' package: pip install onnx",
            path=source,
            field="onnx",
        ) from exc
    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic

    folded = out_dir / "folded.onnx"
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    so.log_severity_level = 3
    so.optimized_model_filepath = str(folded)
    ort.InferenceSession(str(source), so, providers=["CPUExecutionProvider"])
    quantized = out_dir / "quantized.onnx"
    quant_log = logging.getLogger()  # the quantiser advises "pre-processing" on the root logger: not ours to show
    level = quant_log.level
    quant_log.setLevel(max(level, logging.ERROR))
    try:
        quantize_dynamic(folded, quantized, per_channel=True, weight_type=QuantType.QInt8)
    finally:
        quant_log.setLevel(level)
    folded.unlink(missing_ok=True)
    return quantized


def _max_context(folder: Path) -> int:
    cfg = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
    limits = [
        v
        for v in (cfg.get("model_max_length"), cfg.get("max_length"))
        if isinstance(v, int) and not isinstance(v, bool) and 0 < v < 1_000_000
    ]
    if not limits:
        raise ValueError(f"{folder / 'tokenizer_config.json'}: no usable model_max_length or max_length")
    return min(limits)


class OnnxMeanPoolEmbedder:
    """Mean-pooled, L2-normalised sentence embeddings from a local ONNX model folder (``.onnx``, ``tokenizer.json``,
    ``tokenizer_config.json``; first output ``last_hidden_state``). ``model_key`` names the weights and must differ
    for ``dynamic_int8``; the session is created on the first call; thread-safe.
    """

    def __init__(
        self,
        folder: str | Path,
        model_file: str = "model.onnx",
        *,
        model_key: str,
        threads: int | None = None,
        optimized_dir: str | Path | None = None,
        max_batch_tokens: int = DEFAULT_MAX_BATCH_TOKENS,
        prepack: bool = True,
        dynamic_int8: bool = False,
    ) -> None:
        from tokenizers import Tokenizer

        self.folder = Path(folder)
        self.model_file = model_file
        self.model_key = model_key
        self.threads = threads
        self.optimized_dir = Path(optimized_dir) if optimized_dir is not None else None
        self.max_batch_tokens = max_batch_tokens
        self.prepack = prepack
        self.dynamic_int8 = dynamic_int8
        tok = Tokenizer.from_file(str(self.folder / "tokenizer.json"))
        tok.enable_truncation(max_length=_max_context(self.folder))
        specials = self.folder / "special_tokens_map.json"
        if specials.is_file():
            for value in json.loads(specials.read_text(encoding="utf-8")).values():
                for token in value if isinstance(value, list) else [value]:
                    if isinstance(token, str):
                        tok.add_special_tokens([token])
                    elif isinstance(token, dict) and "content" in token:
                        tok.add_special_tokens([token["content"]])
        padding = tok.padding or {}
        tok.no_padding()  # padded per batch below, so batches can be formed by true token counts
        self.pad_id = int(padding.get("pad_id", tok.token_to_id("[PAD]") or 0))
        self.tokenizer = tok
        self._session: Any = None
        self._text_session: Any = None  # intra-op 1: several texts at once (dynamic_int8)
        self._inputs: set[str] = set()
        self._lock = threading.Lock()

    # -- session ---------------------------------------------------------------------------
    @property
    def session(self) -> Any:
        """The ONNX Runtime session on ``threads`` intra-op threads (created on first use)."""
        if self._session is None:
            with self._lock:
                if self._session is None:
                    self._session = self._create_session(self.threads)
                    self._inputs = {i.name for i in self._session.get_inputs()}
        return self._session

    @property
    def text_session(self) -> Any:
        """A session on one intra-op thread, for texts run side by side (created on first use)."""
        if self._text_session is None:
            with self._lock:
                if self._text_session is None:
                    self._text_session = self._create_session(1)
                    self._inputs = {i.name for i in self._text_session.get_inputs()}
        return self._text_session

    def parallel_texts(self) -> int:
        """How many texts :meth:`embed` runs at once: ``threads`` (its default: the cores) under
        ``dynamic_int8``, else 1."""
        if not self.dynamic_int8:
            return 1
        if self.threads is not None:
            return max(1, self.threads)
        try:
            return max(1, len(os.sched_getaffinity(0)))
        except AttributeError:  # not on Linux
            return max(1, os.cpu_count() or 1)

    def _options(self, level: Any, threads: int | None) -> Any:
        import onnxruntime as ort

        so = ort.SessionOptions()
        so.graph_optimization_level = level
        so.log_severity_level = 3  # errors only
        if threads is not None:
            so.intra_op_num_threads = threads
            so.inter_op_num_threads = 1
        # intra-op threads sleep between calls instead of spinning: an ingest embeds beside its parse
        # workers, whose cores spinning would take (the same vectors, less CPU). Source: ONNX Runtime's
        # session config key ``session.intra_op.allow_spinning`` (onnxruntime_session_options_config_keys.h).
        so.add_session_config_entry(ALLOW_SPINNING, "0")
        if not self.prepack:
            so.add_session_config_entry("session.disable_prepacking", "1")
        return so

    def _in_memory_session(self, threads: int | None) -> Any:
        """A session optimised in memory from the source graph (nothing saved)."""
        import onnxruntime as ort

        with tempfile.TemporaryDirectory(prefix="structaware-onnx-") as work:
            return ort.InferenceSession(
                str(self._source_graph(Path(work))),
                self._options(ort.GraphOptimizationLevel.ORT_ENABLE_ALL, threads),
                providers=["CPUExecutionProvider"],
            )

    def _create_session(self, threads: int | None) -> Any:
        import onnxruntime as ort

        providers = ["CPUExecutionProvider"]
        level = ort.GraphOptimizationLevel
        if self.optimized_dir is None:
            return self._in_memory_session(threads)
        safe = "".join(c if c.isalnum() or c in "-_.@" else "_" for c in self.model_key)
        saved = self.optimized_dir / f"{safe}-ort{ort.__version__}"  # model.onnx + model.data
        if (saved / _GRAPH).is_file():
            try:
                return ort.InferenceSession(
                    str(saved / _GRAPH), self._options(level.ORT_DISABLE_ALL, threads), providers=providers
                )
            except Exception as exc:  # noqa: BLE001 - damaged by hand: other processes may still read it
                log.warning("%s: cannot load the saved optimised graph (%s); optimising in memory", saved, exc)
                return self._in_memory_session(threads)
        self.optimized_dir.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".opt-", dir=self.optimized_dir))
        try:
            work = tmp / "work"
            work.mkdir()
            source = self._source_graph(work)
            so = self._options(level.ORT_ENABLE_EXTENDED, threads)
            so.optimized_model_filepath = str(tmp / _GRAPH)
            so.add_session_config_entry("session.optimized_model_external_initializers_file_name", _WEIGHTS)
            so.add_session_config_entry("session.optimized_model_external_initializers_min_size_in_bytes", "1024")
            session = ort.InferenceSession(str(source), so, providers=providers)
            shutil.rmtree(work)
            try:  # published only once it loads (a full disk can leave a short file), by a rename that
                # never replaces another process's folder: the user cache rules of structaware_readers.common.user_cache
                ort.InferenceSession(
                    str(tmp / _GRAPH), self._options(level.ORT_DISABLE_ALL, threads), providers=providers
                )
                os.rename(tmp, saved)
            except Exception as exc:  # noqa: BLE001 - published by another process first, or not loadable
                log.debug("%s: optimised graph not saved (%s)", saved, exc)
            return session
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def _source_graph(self, work: Path) -> Path:
        """The graph a session is optimised from: the model file, or its dynamic int8 version written in ``work``."""
        source = self.folder / self.model_file
        return quantize_dynamic_int8(source, work) if self.dynamic_int8 else source

    # -- embedding -------------------------------------------------------------------------
    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Word pieces per text after truncation (special tokens included)."""
        return [len(e.ids) for e in self.tokenizer.encode_batch(list(texts))]

    def _run(self, encodings: list[Any], session: Any = None) -> np.ndarray:
        import numpy as np

        width = max(len(e.ids) for e in encodings)
        ids = np.full((len(encodings), width), self.pad_id, dtype=np.int64)
        mask = np.zeros((len(encodings), width), dtype=np.int64)
        for row, e in enumerate(encodings):
            ids[row, : len(e.ids)] = e.ids
            mask[row, : len(e.ids)] = 1
        session = session if session is not None else self.session
        feed = {"input_ids": ids}
        if "attention_mask" in self._inputs:
            feed["attention_mask"] = mask
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden = session.run(None, feed)[0]
        pooled = np.sum(hidden, axis=1, where=mask[:, :, None].astype(bool), dtype=np.float64)
        pooled /= np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
        norm = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return (pooled / norm).astype(np.float32)

    def embed(self, texts: Iterable[str], batch_size: int | None = None) -> Iterator[np.ndarray]:
        """One unit-length float32 vector per text, in input order."""
        import numpy as np  # noqa: F401 - imported before the worker threads start

        texts = list(texts)
        if not texts:
            return
        encodings = self.tokenizer.encode_batch(texts)
        if self.dynamic_int8:  # one text a call: the activations' int8 scale is computed per call (see the docstring)
            side_by_side = min(self.parallel_texts(), len(encodings))
            if side_by_side <= 1:
                session = self.session
                yield from (self._run([e], session)[0] for e in encodings)
                return
            from concurrent.futures import ThreadPoolExecutor

            session = self.text_session
            pool = ThreadPoolExecutor(side_by_side, thread_name_prefix="structaware-embed")
            try:
                yield from (vec[0] for vec in pool.map(lambda e: self._run([e], session), encodings))
            finally:  # a caller that stops early leaves no texts queued
                pool.shutdown(wait=True, cancel_futures=True)
            return
        out: list[np.ndarray | None] = [None] * len(texts)
        for batch in token_budget_batches([len(e.ids) for e in encodings], self.max_batch_tokens, batch_size):
            for i, vec in zip(batch, self._run([encodings[i] for i in batch]), strict=True):
                out[i] = vec
        yield from out  # type: ignore[misc]

    def query_embed(self, query: str) -> Iterator[np.ndarray]:
        """The query's vector (this model family uses no query prefix)."""
        yield from self.embed([query])
