"""``structaware eval``: unit-construction methods x retrievers on a question set (paper sections 3.3, 4.2, 4.4)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from structaware_readers.errors import StructawareError
from structaware_retrievers.cli.app import app, fail


@app.command("eval")
def eval_(
    questions: Annotated[
        Path, typer.Option("--questions", help="questions JSONL (qid, question, doc, gold_pages, ...)")
    ],
    docs: Annotated[Path, typer.Option("--docs", help="folder of PDFs or parser outputs")],
    parsed: Annotated[Path | None, typer.Option("--parsed", help="folder of pre-parsed MinerU outputs")] = None,
    methods: Annotated[
        str, typer.Option("--methods", help="comma list: flat,heading,page,element,struct,struct_noctx")
    ] = "flat,heading,page,element,struct,struct_noctx",
    retrievers: Annotated[
        str, typer.Option("--retrievers", help="comma list: bm25,dense,hybrid")
    ] = "bm25,dense,hybrid",
    ks: Annotated[str, typer.Option("--k", help="comma list of k")] = "1,5,10",
    json_out: Annotated[Path | None, typer.Option("--json", help="write per-query ranks and tables here")] = None,
    index_dir: Annotated[Path | None, typer.Option("--index-dir", help="where eval indexes and caches live")] = None,
    limit: Annotated[int | None, typer.Option("--limit", help="first N questions only")] = None,
    peers: Annotated[bool, typer.Option("--peers/--no-peers", help="also run LlamaIndex/LangChain defaults")] = False,
    scopes: Annotated[str, typer.Option("--scopes", help="comma list: corpus,document")] = "corpus,document",
) -> None:
    """Evaluate unit construction methods x retrievers (paper sections 3.3, 4.2, 4.4)."""
    from structaware_retrievers.evaluation.harness import run_eval

    try:
        result = run_eval(
            questions,
            docs,
            parsed=parsed,
            methods=[m.strip() for m in methods.split(",") if m.strip()],
            retrievers=[r.strip() for r in retrievers.split(",") if r.strip()],
            ks=tuple(int(x) for x in ks.split(",")),
            json_out=json_out,
            index_dir=index_dir,
            limit=limit,
            peers=peers,
            scopes=tuple(x.strip() for x in scopes.split(",") if x.strip()),
            log=lambda message: typer.echo(message, err=True),
        )
    except StructawareError as exc:
        fail(exc)
        return
    typer.echo(result.render())
