"""``structaware units PATH``: parse a document and print its evidence units."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Annotated

import typer

from structaware_readers.errors import StructawareError
from structaware_retrievers.cli.app import ReadingOrderChoice, ReadingOrderOpt, app, fail


@app.command()
def units(
    path: Annotated[Path, typer.Argument(help="PDF, MinerU output (file, folder, zip) or Unstructured JSON")],
    as_json: Annotated[bool, typer.Option("--json", help="one JSON object per unit per line")] = False,
    reading_order: ReadingOrderOpt = ReadingOrderChoice.auto,
    pdf: Annotated[
        Path | None,
        typer.Option(
            "--pdf",
            help="the PDF a parser output was made from: grids of tables the parser left without cells are"
            " rebuilt from its text layer (default: the input if it is a PDF, or a PDF inside/beside the output)",
        ),
    ] = None,
) -> None:
    """Parse PATH and print its structure-aware evidence units."""
    from structaware_readers.load.loader import load_document
    from structaware_readers.units import build_units

    try:
        doc = load_document(path, reading_order=reading_order.value, pdf=pdf)
        built = build_units(doc)
    except StructawareError as exc:
        fail(exc)
        return
    for warning in doc.warnings:
        typer.echo(f"warning: {doc.name}: {warning}", err=True)
    if as_json:
        out = sys.stdout
        for unit in built:
            out.write(json.dumps(unit.model_dump(mode="json"), ensure_ascii=False) + "\n")
        return
    counts = Counter(u.unit_type.value for u in built)
    typer.echo(
        f"{doc.name}: doc_id {doc.doc_id}, {doc.page_count} pages, {len(doc.blocks)} blocks "
        f"({doc.parser} {doc.parser_version}, {doc.input_format}) -> {len(built)} units: "
        + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    )
    for unit in built:
        pages = ",".join(map(str, unit.pages))
        text = unit.text.replace("\n", " ")
        typer.echo(f"[{unit.unit_type.value}] p.{pages} {'+'.join(unit.element_ids)}")
        if unit.context:
            typer.echo(f"    context: {unit.context}")
        typer.echo(f"    text:    {text[:160]}{'...' if len(text) > 160 else ''}")
