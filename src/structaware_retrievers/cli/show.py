"""``structaware show TEXT | --unit ID``: picture the evidence: the hits' pages with each hit's own region
outlined, as PNG files or inline in a terminal that can show pictures."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from structaware_readers.common.limits import clean_text
from structaware_readers.errors import StructawareError
from structaware_retrievers.cli.app import (
    MAX_K,
    ApiKeyOpt,
    CollectionOpt,
    IndexOpt,
    ModeChoice,
    PdfOpt,
    UrlOpt,
    app,
    fail,
    open_index,
)
from structaware_retrievers.cli.fast_path import EXIT, dense_loading
from structaware_retrievers.cli.filter_args import FilterCommand, parse_filters
from structaware_retrievers.query.fusion import DEFAULT_GROUP_SIZE, DEFAULT_MIN_SCORE
from structaware_retrievers.search.options import SearchOptions


@app.command(cls=FilterCommand)
def show(
    text: Annotated[str | None, typer.Argument(help="the question (or --unit ID instead)")] = None,
    unit: Annotated[
        list[str] | None,
        typer.Option("--unit", help="a unit id (query --json's unit_id); repeated: the hit, then its group rows"),
    ] = None,
    index: IndexOpt = None,
    url: UrlOpt = None,
    api_key: ApiKeyOpt = None,
    collection: CollectionOpt = "structaware",
    k: Annotated[int, typer.Option("-k", "--top-k", min=1, max=100, help="pictures of the first K hits")] = 1,
    mode: Annotated[ModeChoice, typer.Option("--mode", help="retrieval mode")] = ModeChoice.hybrid,
    group_size: Annotated[
        int, typer.Option("--group-size", min=1, max=MAX_K, help="rows of one table per hit, all outlined (1: off)")
    ] = DEFAULT_GROUP_SIZE,
    min_score: Annotated[
        float,
        typer.Option(
            "--min-score",
            min=0.0,
            max=1.0,
            help="as for query: hits and grouped rows below this relevance are left out",
        ),
    ] = DEFAULT_MIN_SCORE,
    filters: Annotated[
        list[str] | None,
        typer.Option("--filter", metavar="KEY=VALUE...", help="as for query: doc=, doc_id=, page=3-5, type=, grade="),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "-o",
            "--out",
            help="FILE.png (several pictures: FILE-<rank>.png) or a folder; default: <doc>-p<page>-<id>.png here,"
            " or shown inline when standard output is a kitty/iTerm2/WezTerm terminal",
        ),
    ] = None,
    crop: Annotated[bool, typer.Option("--crop/--no-crop", help="only the regions, with --margin around them")] = False,
    margin: Annotated[
        float, typer.Option("--margin", min=0, help="space around the regions when cropping, PDF points")
    ] = 36.0,
    dpi: Annotated[float, typer.Option("--dpi", min=9, max=600, help="resolution, pixels per inch")] = 108.0,
    pdf: PdfOpt = None,
) -> None:
    """Picture the evidence: the hits' pages with each hit's own region outlined (a table row, every row of a
    grouped hit, both boxes of a flow edge), as PNG files or inline in a terminal that can show pictures."""
    from structaware_retrievers.cli.show_pictures import hits_by_id, show_hits
    from structaware_retrievers.cli.terminal_image import inline_protocol

    EXIT["read_only"] = True
    if (text is None) == (not unit):
        raise typer.BadParameter("give a question or --unit ID (not both)")
    filter_fields = parse_filters(filters or [])
    try:
        dense = dense_loading(clean_text(text)) if text is not None and mode != ModeChoice.sparse else None
        idx = open_index(index, url, api_key, collection, dense=dense)
        if EXIT["main"]:
            EXIT["index"] = idx
        if unit:
            hits = hits_by_id(idx, unit)
        else:
            options = SearchOptions(
                k=k, mode=mode.value, filter=filter_fields or None, group_size=group_size, min_score=min_score
            )
            hits = idx.query(clean_text(text or ""), options)
        if not hits:
            why = "the filter matched no unit" if filter_fields else "no unit shares a term with the question"
            if not unit and min_score > 0:
                why += f" or no hit reaches --min-score {min_score:g} (the library may not hold the answer)"
            typer.echo(f"no results ({why})", err=True)
            return
        failed: list[str] = []

        def report(hit: Any, exc: Exception) -> None:
            failed.append(str(exc))
            typer.echo(f"error: {hit.rank}. {exc}", err=True)

        options = {"pdf": pdf, "crop": crop, "margin": margin, "dpi": dpi}
        inline = inline_protocol(sys.stdout) if out is None else None
        shown = show_hits(hits, out=out, inline=inline, stream=sys.stdout, options=options, on_error=report)
    except StructawareError as exc:
        fail(exc)
        return
    for picture in shown:
        u = picture.hit.unit
        where = f" -> {picture.path}" if picture.path is not None else ""
        line = (
            f"{picture.hit.rank}. [{u.unit_type.value}] {u.doc_name} p.{','.join(map(str, u.pages))} {u.unit_id}{where}"
        )
        typer.echo(line, err=picture.path is None)  # inline: the picture is the output
        for warning in picture.warnings:
            typer.echo(f"warning: {warning}", err=True)
    if failed:
        raise typer.Exit(code=2 if not shown else 1)
