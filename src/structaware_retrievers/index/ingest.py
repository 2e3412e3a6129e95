"""The ingest pipeline behind :meth:`StructureIndex.ingest`: skip, parse ahead, embed, write.

An input is skipped when the ledger holds its content hash under the same settings and its units are still
indexed; else it is parsed (PDFs in long-lived parse processes, at most ``workers + 1`` documents in memory),
embedded and written in input order under the writer lock, atomic per document. A killed run loses at most the
document it was writing; running it again skips what was written.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from structaware_readers.common.inputs import scan_inputs
from structaware_readers.models import SCHEMA_VERSION
from structaware_retrievers.index.ledger import (
    IngestLedger,
    LedgerEntry,
    input_fingerprint,
)
from structaware_retrievers.query.filters import PointFilter
from structaware_retrievers.search.results import IngestFailure, IngestReport, IngestSummary

if TYPE_CHECKING:
    from structaware_readers.models import ParsedDocument, Unit
    from structaware_readers.units.options import UnitOptions
    from structaware_retrievers.index.writer import IndexWriter

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


def ingest_settings(writer: IndexWriter, reading_order: str, unit_options: UnitOptions | None) -> str:
    """Everything besides the input bytes that changes the indexed units, as one string: the
    package, schema and encoders, the options, and what the readers can do in this environment
    (pdfplumber rebuilds table grids from a PDF's text layer; MinerU's version makes a PDF's
    parse; RapidOCR reads its pages without a text layer, with structaware's reading revision around it),
    so installing ``structaware[pdf]``, ``structaware[ocr]`` or another MinerU re-reads every input."""
    from structaware_readers.ocr.engine import RapidOcrEngine
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
            f"mineru={_version('mineru')}",  # mineru.pdf.MINERU_PACKAGE (that module imports httpx)
            # pages without a text layer (structaware_readers.ocr.engine.RAPIDOCR_DIST) and structaware's reading of them
            f"ocr={_version('rapidocr')}+r{RapidOcrEngine.revision}",
        ]
    )


def _known(writer: IndexWriter, ledger: IngestLedger, path: Path, fingerprint: str | None) -> IngestReport | None:
    """A skipped-report when ``path`` is indexed unchanged, else ``None`` (step 1)."""
    if not writer.store.exists():
        return None
    entry = ledger.get(path) if fingerprint is not None else None
    if entry is not None:  # indexed from this path: skipped only when nothing changed since
        if (
            entry.fingerprint == fingerprint
            and writer.store.count(PointFilter.match("doc_id", entry.doc_id)) == entry.units
        ):
            return IngestReport(
                doc_id=entry.doc_id,
                doc_name=entry.doc_name,
                source=str(path.resolve()),
                units=entry.units,
                skipped=True,
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


def _decide(writer: IndexWriter, ledger: IngestLedger, path: Path, settings: str, reparse: bool) -> _Prepared:
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


def _name_thread() -> None:
    threading.current_thread().name = "structaware-ingest-parse"


def _read_in_thread(path: Path, reading_order: str, unit_options: UnitOptions | None) -> tuple[Any, Any]:
    from structaware_retrievers.index.parse_workers import read_input

    return read_input(path, reading_order, unit_options)


class _Readers:
    """Where inputs are read (step 2), as futures of ``(doc, units)`` in input order."""

    def __init__(
        self,
        items: list[_Prepared],
        reading_order: str,
        unit_options: UnitOptions | None,
        *,
        workers: int,
        processes: bool,
        overlap: bool,
    ) -> None:
        self._todo = [i for i, item in enumerate(items) if item.skipped is None and item.error is None]
        self._items = items
        self._args = (reading_order, unit_options)
        self._pool: Any = None
        self._thread: ThreadPoolExecutor | None = None
        self.ahead = 0
        if processes:
            from structaware_retrievers.index.parse_workers import ParseWorkers

            self._pool = ParseWorkers(workers)
            self.ahead = workers + 1
        elif overlap:
            self._thread = ThreadPoolExecutor(1, initializer=_name_thread)
            self.ahead = 1
        self._futures: dict[int, Future[Any]] = {}
        self._pos = {i: k for k, i in enumerate(self._todo)}
        self._next = 0  # position in _todo of the next input to hand out

    def _fill(self, upto: int) -> None:
        """Hand out the inputs up to position ``upto`` of those to read."""
        while self._next <= upto and self._next < len(self._todo):
            i = self._todo[self._next]
            path = self._items[i].path
            if self._pool is not None:
                self._futures[i] = self._pool.submit(path, *self._args)
            elif self._thread is not None:
                self._futures[i] = self._thread.submit(_read_in_thread, path, *self._args)
            self._next += 1

    def start(self) -> None:
        """Hand out the first inputs (before the caller opens anything: they are read meanwhile)."""
        self._fill(self.ahead - 1)

    def result(self, i: int) -> _Prepared:
        """Input ``i`` read (or its failure); hands out the next inputs to keep ``ahead`` in flight."""
        item = self._items[i]
        if i not in self._pos:  # skipped, or failed before reading
            return item
        if self.ahead:
            self._fill(self._pos[i] + self.ahead)
        try:
            fut = self._futures.pop(i, None)
            doc, built = fut.result() if fut is not None else _read_in_thread(item.path, *self._args)
        except Exception as exc:  # noqa: BLE001 - one bad input must not lose the others; reported by the caller
            return _Prepared(item.path, item.fingerprint, error=exc)
        return _Prepared(item.path, item.fingerprint, doc=doc, units=built)

    def close(self, *, abandoned: bool) -> None:
        if self._pool is not None:
            self._pool.close(kill=abandoned)
        if self._thread is not None:
            self._thread.shutdown(wait=not abandoned, cancel_futures=True)


def _pdf_pages(path: Path) -> int:
    """Pages of a PDF (0 when it cannot be opened: its read reports that)."""
    try:
        import pypdfium2 as pdfium

        pdf = pdfium.PdfDocument(str(path))
        try:
            return len(pdf)
        finally:
            pdf.close()
    except Exception:  # noqa: BLE001 - the progress bar only
        return 0


def _progress_bar(progress: bool) -> Any:
    """tqdm's bar class: the notebook one only where bars are wanted, a notebook frontend runs and its
    widgets (ipywidgets) are installed; else the console one. ``tqdm.auto`` in a Jupyter kernel
    without ipywidgets warns "IProgress not found" on import, ingesting with or without bars."""
    import sys

    if progress and "ipykernel" in sys.modules:
        import importlib.util

        if importlib.util.find_spec("ipywidgets") is not None:
            from tqdm.auto import tqdm as notebook_or_console

            return notebook_or_console
    from tqdm import tqdm as console

    return console


def run_ingest(
    writer: IndexWriter,
    paths: Iterable[str | Path],
    *,
    reading_order: str,
    progress: bool,
    unit_options: UnitOptions | None,
    optimize: bool,
    reparse: bool,
    overlap: bool,
    workers: int | None = None,
    log: Callable[[str], None] | None = None,
) -> IngestSummary:
    """Implementation of :meth:`StructureIndex.ingest <structaware_retrievers.index.structure_index.StructureIndex.ingest>`
    (see there and the module docstring): every input of ``paths`` read and written through ``writer``."""
    try:
        summary = _run(writer, paths, reading_order, progress, unit_options, optimize, reparse, overlap, workers, log)
    finally:
        writer.store.release()
    return summary


def _run(
    writer: IndexWriter,
    paths: Iterable[str | Path],
    reading_order: str,
    progress: bool,
    unit_options: UnitOptions | None,
    optimize: bool,
    reparse: bool,
    overlap: bool,
    workers: int | None,
    log: Callable[[str], None] | None,
) -> IngestSummary:
    tqdm = _progress_bar(progress)

    from structaware_readers.load.loader import detect_input
    from structaware_retrievers.index.parse_workers import default_workers

    t0 = time.perf_counter()
    summary = IngestSummary()
    ledger = writer.ledger()
    settings = ingest_settings(writer, reading_order, unit_options)
    scan = scan_inputs(paths)
    summary.skipped_files = [str(p) for p in scan.skipped]
    decided = [_decide(writer, ledger, path, settings, reparse) for path in scan.documents]
    to_read = [item for item in decided if item.skipped is None and item.error is None]
    pdfs = {id(item) for item in to_read if _is_pdf(item.path, detect_input)}
    n_workers = max(1, workers if workers is not None else default_workers())
    readers = _Readers(
        decided, reading_order, unit_options, workers=n_workers, processes=bool(pdfs) and overlap, overlap=overlap
    )
    readers.start()
    # disable=None: no bar when stderr is not a terminal (a log file, a pipe); a notebook shows it
    bars: dict[str, Any] = {"disable": None if progress else True, "dynamic_ncols": True}
    known_pages = {id(item): _pdf_pages(item.path) for item in to_read if id(item) in pdfs} if progress else {}
    parse_bar = tqdm(total=sum(known_pages.values()), desc="parse", unit="page", position=0, **bars)
    index_bar = tqdm(total=0, desc="index", unit="unit", position=1, **bars)
    abandoned = True
    try:
        if to_read:
            # the embedding cache's SQLite file (created, set to WAL: syncs, 0.02-0.2 s) is opened
            # while the first input is parsed in the worker; sqlite3 releases the GIL meanwhile
            with contextlib.suppress(Exception):  # a failure is reported per input by add_document, which retries
                writer.ensure_cache()
        for i in range(len(decided)):
            item = readers.result(i)
            if item.doc is not None:
                pages = item.doc.page_count or 0
                if id(decided[i]) not in known_pages:
                    parse_bar.total += pages
                parse_bar.update(known_pages.get(id(decided[i]), pages))
                index_bar.total += len(item.units or [])
                index_bar.refresh()
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
                index_bar.update(len(item.units))
            item = None  # type: ignore[assignment]  # free the parsed document before the next one
        abandoned = False
    finally:
        readers.close(abandoned=abandoned)
        parse_bar.close()
        index_bar.close()
    if optimize and summary.documents:
        with writer.writing():
            writer.store.optimize()
    summary.seconds = time.perf_counter() - t0
    return summary


def _is_pdf(path: Path, detect: Callable[[Path], str]) -> bool:
    try:
        return path.is_file() and detect(path) == "pdf"
    except Exception:  # noqa: BLE001 - unreadable: its read reports it
        return False


def _failure(path: Path, exc: BaseException) -> IngestFailure:
    return IngestFailure(path=str(path), error_type=type(exc).__name__, message=str(exc))
