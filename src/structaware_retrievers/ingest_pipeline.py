"""The ingest pipeline behind :meth:`StructureIndex.ingest`: skip, parse ahead, embed, write.

For each input path, in order:

1. **Skip before parsing.** The input's content hash (:func:`~structaware_retrievers.ingest_ledger.input_fingerprint`,
   with the ingest settings) is looked up in the index's :class:`~structaware_retrievers.ingest_ledger.IngestLedger`;
   an input indexed with the same hash, whose units are all still in the index, is reported as
   ``skipped`` without being read. A PDF whose ``doc_id`` (the hash of its bytes) is in the index
   is skipped too, even when it was indexed from another path, unless the ledger records it only
   under other settings (the settings include what the readers can do: :func:`ingest_settings`).
2. **Parse** (``load_document``) and **build units** (``build_units``).
3. **Embed and write** through :meth:`IndexWriter.add_document
   <structaware_retrievers.index_writer.IndexWriter.add_document>` (atomic per document). The
   embedding cache is keyed by text, so a changed document re-embeds only the units whose
   ``context + text`` changed.

Step 1 runs on the caller's thread for every input before anything is parsed (it reads the
index; only the caller's thread touches the store, whose shard may be closed between documents
for another process: see ``store/edge.py``). With ``overlap=True`` step 2 then runs one document
ahead in a worker thread while the caller's thread embeds and writes the previous one: ONNX
Runtime releases the GIL while it computes, so parsing costs almost no wall time after the first
document. At most one parsed document waits in the queue (memory stays bounded). Writes happen in
input order on the caller's thread, so the final index is the same as a sequential run's. The
whole run holds the index's writer lock (:meth:`IndexWriter.writing
<structaware_retrievers.index_writer.IndexWriter.writing>`).

``progress=True`` shows two tqdm bars on stderr when it is a terminal (none in a log file or a
pipe): documents parsed (or skipped) and documents indexed. ``log`` receives, as each document is
written, its warnings (``ParsedDocument.warnings``: tables left without a grid, a PDF found but not
used, ...) as a few lines (:func:`warning_lines`).
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from structaware_retrievers.filters import PointFilter
from structaware_retrievers.ingest_ledger import (
    IngestLedger,
    LedgerEntry,
    input_fingerprint,
)
from structaware_retrievers.inputs import expand_inputs
from structaware_retrievers.results import IngestFailure, IngestReport, IngestSummary

if TYPE_CHECKING:
    from structaware_readers.models import ParsedDocument, Unit
    from structaware_retrievers.index_writer import IndexWriter

__all__ = ["ingest_settings", "run_ingest", "warning_lines"]

#: Warnings of one document printed in full by :func:`warning_lines`; the rest are counted.
SHOWN_WARNINGS = 3


@dataclass
class _Prepared:
    """One input after step 1-2: skipped, failed, or parsed with its units."""

    path: Path
    fingerprint: str | None
    skipped: IngestReport | None = None
    error: BaseException | None = None
    doc: ParsedDocument | None = None
    units: list[Unit] | None = None


class _Crash:
    """An unexpected error of the worker thread itself (re-raised in the caller's thread)."""

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


_DONE = object()


def warning_lines(name: str, warnings: list[str], shown: int = SHOWN_WARNINGS) -> list[str]:
    """A document's warnings as ``warning: <name>: <warning>`` lines: the first ``shown`` of them,
    then one line counting the rest (a filing can have hundreds of tables without a grid)."""
    lines = [f"warning: {name}: {w}" for w in warnings[:shown]]
    if len(warnings) > shown:
        lines.append(
            f"warning: {name}: ... and {len(warnings) - shown} more warnings (`structaware units` lists them all)"
        )
    return lines


def _version(distribution: str) -> str:
    from importlib import metadata

    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "none"


def ingest_settings(writer: IndexWriter, reading_order: str, unit_options: Any) -> str:
    """Everything besides the input bytes that changes the indexed units, as one string: the
    package, schema and encoders, the options, and what the readers can do in this environment
    (pdfplumber rebuilds table grids from a PDF's text layer; MinerU's version makes a PDF's
    parse; RapidOCR reads its pages without a text layer), so installing ``structaware[pdf]``,
    ``structaware[ocr]`` or another MinerU re-reads every input."""
    from structaware_readers.models import SCHEMA_VERSION
    from structaware_readers.table_recovery import text_layer_reader
    from structaware_readers.units import UnitOptions

    version = _version("structaware")
    options = unit_options if unit_options is not None else UnitOptions()
    return "|".join(
        [
            f"schema={SCHEMA_VERSION}",
            f"structaware={version}",
            f"reading_order={reading_order}",
            f"units={options.model_dump_json()}",
            f"dense={writer.dense.model_id}",
            f"sparse={writer.sparse.model_id}",
            f"pdf_text_layer={text_layer_reader() or 'none'}",
            f"mineru={_version('mineru')}",  # mineru.pdf.MINERU_PACKAGE (that module imports httpx: ~90 ms)
            f"ocr={_version('rapidocr')}",  # pages without a text layer (structaware_readers.ocr.engine.RAPIDOCR_DIST)
        ]
    )


def _known(writer: IndexWriter, ledger: IngestLedger, path: Path, fingerprint: str | None) -> IngestReport | None:
    """A skipped-report when ``path`` is indexed unchanged, else ``None`` (step 1)."""
    if not writer.store.exists():
        return None
    entry = ledger.get(path) if fingerprint is not None else None
    if entry is not None:  # indexed from this path: skipped only when nothing changed since
        if entry.fingerprint == fingerprint and writer.store.count(PointFilter.match("doc_id", entry.doc_id)) == entry.units:
            return IngestReport(
                doc_id=entry.doc_id, doc_name=entry.doc_name, source=str(path.resolve()), units=entry.units, skipped=True
            )
        return None
    # a PDF whose bytes are indexed (from another path, or by add_document), unless every ingest
    # of it recorded here had other settings (e.g. before `pip install 'structaware[pdf]'`)
    report = writer.indexed_pdf(path)
    if report is not None and fingerprint is not None:
        recorded = ledger.fingerprints(report.doc_id)
        if recorded and fingerprint not in recorded:
            return None
    return report


def _decide(
    writer: IndexWriter, ledger: IngestLedger, path: Path, settings: str, reparse: bool
) -> _Prepared:
    """Step 1 (caller's thread): the input's fingerprint and, unless ``reparse``, a skip decision."""
    try:
        fingerprint: str | None = input_fingerprint(path, settings) if path.exists() else None
    except OSError:
        fingerprint = None  # unreadable: load_document reports it with a typed error
    try:
        known = None if reparse else _known(writer, ledger, path, fingerprint)
    except Exception as exc:  # noqa: BLE001 - reported as this input's failure; the others go on
        return _Prepared(path, fingerprint, error=exc)
    return _Prepared(path, fingerprint, skipped=known)


def _parse(item: _Prepared, reading_order: str, unit_options: Any) -> _Prepared:
    """Step 2 (worker thread with ``overlap``): read the input and build its units. No store access."""
    from structaware_readers import loader, units

    if item.skipped is not None or item.error is not None:
        return item
    path = item.path
    try:
        doc = loader.load_document(path.resolve() if path.exists() else path, reading_order=reading_order)
        built = units.build_units(doc, unit_options)
    except Exception as exc:  # noqa: BLE001 - one bad input must not lose the others; reported by the caller
        return _Prepared(path, item.fingerprint, error=exc)
    return _Prepared(path, item.fingerprint, doc=doc, units=built)  # new: ``decided`` keeps no document


class _Ahead:
    """Run ``items`` one element ahead in a daemon thread (a queue of one), started at once, so
    the caller's thread can do other work while the first element is made. Iterate it once;
    :meth:`close` (also when iteration stops early) stops the worker after its current element."""

    def __init__(self, items: Iterator[_Prepared]) -> None:
        self._q: queue.Queue[Any] = queue.Queue(maxsize=1)
        self._stop = threading.Event()
        self._items = items
        threading.Thread(target=self._work, name="structaware-ingest-parse", daemon=True).start()

    def _put(self, item: Any) -> bool:
        while not self._stop.is_set():
            try:
                self._q.put(item, timeout=0.2)
                return True
            except queue.Full:
                continue
        return False

    def _work(self) -> None:
        try:
            for item in self._items:
                if not self._put(item):
                    return
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            self._put(_Crash(exc))
        self._put(_DONE)

    def __iter__(self) -> Iterator[_Prepared]:
        try:
            while True:
                item = self._q.get()
                if item is _DONE:
                    break
                if isinstance(item, _Crash):
                    raise item.exc
                yield item
        finally:
            self.close()

    def close(self) -> None:
        """Stop the worker (an abandoned ingest: error, KeyboardInterrupt) after its current input."""
        self._stop.set()


def run_ingest(
    writer: IndexWriter,
    paths: Iterable[str | Path],
    *,
    reading_order: str,
    progress: bool,
    unit_options: Any,
    optimize: bool,
    reparse: bool,
    overlap: bool,
    log: Callable[[str], None] | None = None,
) -> IngestSummary:
    """Implementation of :meth:`StructureIndex.ingest <structaware_retrievers.index.StructureIndex.ingest>`
    (see there and the module docstring): every input of ``paths`` read and written through ``writer``."""
    with writer.writing():  # before any work: a second writer waits here, not after minutes of embedding
        summary = _run(writer, paths, reading_order, progress, unit_options, optimize, reparse, overlap, log)
        writer.store.release()
    return summary


def _run(
    writer: IndexWriter,
    paths: Iterable[str | Path],
    reading_order: str,
    progress: bool,
    unit_options: Any,
    optimize: bool,
    reparse: bool,
    overlap: bool,
    log: Callable[[str], None] | None,
) -> IngestSummary:
    from tqdm.auto import tqdm

    t0 = time.perf_counter()
    summary = IngestSummary()
    ledger = writer.ledger()
    settings = ingest_settings(writer, reading_order, unit_options)
    decided = [_decide(writer, ledger, path, settings, reparse) for path in expand_inputs(paths)]
    # disable=None: no bar when stderr is not a terminal (a log file, a pipe); a notebook shows it
    bars = {"unit": "doc", "disable": None if progress else True}
    parse_bar = tqdm(total=len(decided), desc="parse", position=0, **bars)
    index_bar = tqdm(total=len(decided), desc="embed+write", position=1, **bars)

    def prepared() -> Iterator[_Prepared]:
        for item in decided:
            item = _parse(item, reading_order, unit_options)
            parse_bar.set_postfix_str("skipped" if item.skipped else f"{len(item.units or [])} units")
            parse_bar.update(1)
            yield item

    ahead = _Ahead(prepared()) if overlap else None
    try:
        if any(item.skipped is None and item.error is None for item in decided):
            # the embedding cache's SQLite file (created, set to WAL: syncs, 0.02-0.2 s) is opened
            # while the first input is parsed in the worker; sqlite3 releases the GIL meanwhile
            with contextlib.suppress(Exception):  # a failure is reported per input by add_document, which retries
                writer.ensure_cache()
        for item in ahead if ahead is not None else prepared():
            if item.skipped is not None:
                summary.reports.append(item.skipped)
                summary.skipped_unchanged += 1
            elif item.error is not None:
                summary.failed.append(_failure(item.path, item.error))
            else:
                assert item.doc is not None and item.units is not None
                try:
                    rep = writer.add_document(item.doc, item.units)
                except Exception as exc:  # noqa: BLE001 - recorded; the other inputs go on
                    summary.failed.append(_failure(item.path, exc))
                else:
                    if item.fingerprint is not None:
                        ledger.put(item.path, LedgerEntry(item.fingerprint, rep.doc_id, rep.units, rep.doc_name))
                    summary.reports.append(rep)
                    if log is not None and rep.warnings:
                        with tqdm.external_write_mode():  # above the bars, which are drawn again after
                            for line in warning_lines(rep.doc_name, rep.warnings):
                                log(line)
                    summary.embedding_seconds += rep.embed_seconds
                    if rep.skipped:
                        summary.skipped_unchanged += 1
                    else:
                        summary.documents += 1
                        summary.units += rep.written
            item = None  # type: ignore[assignment]  # free the parsed document before the next one
            index_bar.set_postfix_str(f"{summary.units} units written")
            index_bar.update(1)
    finally:
        if ahead is not None:
            ahead.close()
        parse_bar.close()
        index_bar.close()
    if optimize and summary.documents:
        writer.store.optimize()
    summary.seconds = time.perf_counter() - t0
    return summary


def _failure(path: Path, exc: BaseException) -> IngestFailure:
    return IngestFailure(path=str(path), error_type=type(exc).__name__, message=str(exc))
