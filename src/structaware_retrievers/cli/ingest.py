"""``structaware ingest PATHS``: put the units of documents into the index."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from structaware_readers.errors import StructawareError
from structaware_retrievers.cli.app import (
    ApiKeyOpt,
    CollectionOpt,
    IndexOpt,
    ReadingOrderChoice,
    ReadingOrderOpt,
    UrlOpt,
    app,
    fail,
    open_index,
)


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="PDFs, MinerU outputs, Unstructured JSON, or folders of them")],
    index: IndexOpt = None,
    url: UrlOpt = None,
    api_key: ApiKeyOpt = None,
    collection: CollectionOpt = "structaware",
    reading_order: ReadingOrderOpt = ReadingOrderChoice.auto,
    progress: Annotated[
        bool, typer.Option("--progress/--no-progress", help="show progress bars (on a terminal only)")
    ] = True,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="read, parse and write every input again, even one unchanged since it was indexed (e.g. after"
            " installing structaware[pdf]); the embedding cache still skips computing texts embedded before",
        ),
    ] = False,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            min=1,
            help="parse processes for PDFs (MinerU in each, imports paid once) and embedding threads;"
            " default: the cores",
        ),
    ] = None,
) -> None:
    """Put the units of documents into the index (idempotent; atomic per document).

    Exit code 0: every input is in the index (ingested now or unchanged); 1: some inputs failed, the
    others are in the index; 2: nothing done (every input failed, or none was found)."""
    try:
        dense = None
        if workers is not None:
            from structaware_retrievers.encoders import DenseEncoder

            dense = DenseEncoder(threads=workers)
        idx = open_index(index, url, api_key, collection, dense=dense)
        summary = idx.ingest(
            paths,
            reading_order=reading_order.value,
            progress=progress,
            reparse=force,
            workers=workers,
            log=lambda line: typer.echo(line, err=True),
        )
    except StructawareError as exc:
        fail(exc)
        return
    if summary.skipped_files:  # said, never silent: which files of the folders no reader takes
        names = [Path(p).name for p in summary.skipped_files]
        more = f" (+{len(names) - 5} more)" if len(names) > 5 else ""
        typer.echo(
            f"skipped {len(names)} file(s) no reader takes (not PDF, MinerU output or Unstructured JSON):"
            f" {', '.join(names[:5])}{more}",
            err=True,
        )
    if summary.documents == 0 and summary.skipped_unchanged == 0 and not summary.failed:
        fail(StructawareError("no PDF, MinerU output or Unstructured JSON found", path=", ".join(map(str, paths))))
    skipped = f", {summary.skipped_unchanged} unchanged (nothing embedded)" if summary.skipped_unchanged else ""
    failed = f"; {len(summary.failed)} failed" if summary.failed else ""
    typer.echo(
        f"ingested {summary.documents} documents, {summary.units} units{skipped} into {idx.store.location} "
        f"in {summary.seconds:.1f} s (embedding {summary.embedding_seconds:.1f} s){failed}"
    )
    for failure in summary.failed:  # the message names the file already
        message = failure.message if str(failure.path) in failure.message else f"{failure.path}: {failure.message}"
        typer.echo(f"error: {message}", err=True)
    if summary.failed:  # 2: no input is in the index; 1: the others are
        raise typer.Exit(code=1 if summary.reports else 2)
