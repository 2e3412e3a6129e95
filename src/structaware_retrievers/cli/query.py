"""``structaware query TEXT``: answer a question with the evidence units that hold the answer, from
a running ``structaware serve`` of the index when there is one, else in this process (the fast path:
:mod:`structaware_retrievers.cli.fast_path`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from structaware_readers.common.limits import clean_text
from structaware_readers.errors import StructawareError
from structaware_retrievers.cli.app import (
    MAX_K,
    ApiKeyOpt,
    CollectionOpt,
    FusionChoice,
    IndexOpt,
    ModeChoice,
    UrlOpt,
    app,
    fail,
    open_index,
)
from structaware_retrievers.cli.fast_path import EXIT, dense_loading, server_url
from structaware_retrievers.cli.filter_args import FilterCommand, parse_filters
from structaware_retrievers.query.fusion import (
    DEFAULT_GROUP_SIZE,
    DEFAULT_MIN_SCORE,
    DEFAULT_PREFETCH_LIMIT,
    DEFAULT_RRF_K,
)
from structaware_retrievers.search.options import SearchOptions


def served_records(index: Path | None, collection: str, body: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The answer of a running ``structaware serve`` of the index folder, as ``--json`` records;
    ``None`` when no server of that folder is running or reachable (the caller answers itself).
    A request the server rejects (bad value, missing or empty index) ends the command as it would
    have ended here: ``error: ...``, exit code 2."""
    from structaware_retrievers.serve import client as serve_client

    url = server_url(index, collection)
    answer = serve_client.ask(url, body) if url is not None else None
    if answer is None or answer.status >= 500:
        return None  # no server, or it failed: the model's child (if any) answers
    if EXIT["child"] is not None:  # the server answered: end the child's load now
        EXIT["child"].close()
        EXIT["child"] = None
    if answer.status != 200:
        typer.echo(f"error: {answer.body.get('detail') or answer.body.get('message')}", err=True)
        raise typer.Exit(code=2)
    if "evidence" in answer.body:
        return list(answer.body["evidence"])
    return [{**record, "expanded_from": None} for record in answer.body.get("hits", [])]


def print_records(records: list[dict[str, Any]], as_json: bool, empty: str) -> None:
    """Print ``structaware query``'s answer: one JSON object per line, or a few lines per unit;
    with no hit, ``no results (<empty>)`` on stderr."""
    if not records:
        typer.echo(f"no results ({empty})", err=True)
    for r in records:
        if as_json:
            typer.echo(json.dumps(r, ensure_ascii=False))
            continue
        lead = "   +" if r["expanded_from"] else f"{r['rank']}."
        typer.echo(
            f"{lead} [{r['unit_type']}] {r['doc']} p.{','.join(map(str, r['pages']))} "
            f"{'+'.join(dict.fromkeys(r['element_ids']))}  score={r['score']:.4f}{_relevance(r)}"  # rows of one element: named once
        )
        if r["context"]:
            typer.echo(f"   {r['context']}")
        # a table hit holds its group rows, one per line, best first; other text is one line
        lines = r["text"].splitlines() if r["unit_type"] == "table_row" else [r["text"].replace("\n", " ")]
        for line in lines:
            typer.echo(f"   {line[:300]}")


def _relevance(record: dict[str, Any]) -> str:
    """`` relevance=0.93`` for a record with a calibrated relevance (a server without it: nothing)."""
    value = record.get("relevance")
    return f" relevance={value:.2f}" if value is not None else ""


@app.command(cls=FilterCommand)
def query(
    text: Annotated[str, typer.Argument(help="the question")],
    index: IndexOpt = None,
    url: UrlOpt = None,
    api_key: ApiKeyOpt = None,
    collection: CollectionOpt = "structaware",
    k: Annotated[int, typer.Option("-k", "--top-k", min=1, max=MAX_K, help="number of results")] = 5,
    mode: Annotated[ModeChoice, typer.Option("--mode", help="retrieval mode")] = ModeChoice.hybrid,
    fusion: Annotated[FusionChoice, typer.Option("--fusion", help="fusion in hybrid mode")] = FusionChoice.rrf,
    rrf_k: Annotated[int, typer.Option("--rrf-k", min=1, max=MAX_K, help="RRF constant k")] = DEFAULT_RRF_K,
    prefetch: Annotated[
        int, typer.Option("--prefetch", min=1, max=MAX_K, help="candidates per vector before fusion")
    ] = DEFAULT_PREFETCH_LIMIT,
    weights: Annotated[
        str | None, typer.Option("--weights", help="DENSE,BM25 RRF weights, e.g. 0.5,1 (default: the index's)")
    ] = None,
    budget: Annotated[
        int | None, typer.Option("--budget-chars", min=1, help="return the best units fitting this many characters")
    ] = None,
    expand: Annotated[
        bool, typer.Option("--expand", help="add each hit's neighbours (adjacent rows, section lead, flow edges)")
    ] = False,
    group_size: Annotated[
        int,
        typer.Option(
            "--group-size",
            min=1,
            max=MAX_K,
            help="rows of one table per hit: the best row + other matched rows (1: off)",
        ),
    ] = DEFAULT_GROUP_SIZE,
    min_score: Annotated[
        float,
        typer.Option(
            "--min-score",
            min=0.0,
            max=1.0,
            help="drop hits (and grouped rows) whose calibrated relevance is below this (0: keep all);"
            " below the default, the library holds no answer",
        ),
    ] = DEFAULT_MIN_SCORE,
    rerank: Annotated[
        bool | None,
        typer.Option(
            "--rerank/--no-rerank",
            help="re-order the first hits by their dense and BM25 scores and question-term coverage"
            " [default: on for hybrid search]",
            show_default=False,
        ),
    ] = None,
    filters: Annotated[
        list[str] | None,
        typer.Option(
            "--filter",
            metavar="KEY=VALUE...",
            help="doc=NAME, doc_id=ID, page=3-5, type=table_row, grade=A, file_name=F; several after one"
            " --filter (--filter type=table_row grade=A) or --filter repeated; keys combine with AND, a,b ="
            ' either; or a JSON object: \'{"page": {"$gte": 4}}\', \'{"$or": [...]}\' (the LangChain faces\' dicts)',
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON lines")] = False,
    use_server: Annotated[
        bool,
        typer.Option(
            "--server/--no-server",
            help="ask a running `structaware serve` of the same index folder when there is one (default)",
        ),
    ] = True,
) -> None:
    """Answer a question with the evidence units that hold the answer."""
    EXIT["read_only"] = True
    text = clean_text(text)  # bytes that are not UTF-8 arrive as lone surrogates: U+FFFD
    filter_fields = parse_filters(filters or [])
    w: tuple[float, float] | None = None
    if weights is not None:
        try:
            dw, sw = (float(x) for x in weights.split(","))
        except ValueError:
            raise typer.BadParameter(f"--weights: expected DENSE,BM25 (two numbers), got {weights!r}") from None
        w = (dw, sw)
    why = ["the filter matched no unit"] if filter_fields else ["no unit shares a term with the question"]
    if min_score > 0:
        why.append(f"no hit reaches --min-score {min_score:g} (the library may not hold the answer)")
    if budget is not None:
        why.append(f"no hit fits in --budget-chars {budget}")
    empty = " or ".join(why)  # what an empty answer can mean, said on stderr
    try:
        options = SearchOptions(
            k=k, mode=mode.value, fusion=fusion.value, rrf_k=rrf_k, prefetch_limit=prefetch, filter=filter_fields or None,
            weights=w, budget_chars=budget, expand=expand, group_size=group_size, min_score=min_score, rerank=rerank,
        )  # fmt: skip
    except StructawareError as exc:
        fail(exc)
        return
    if use_server and url is None:  # the serve body spells the options as they are named; None: not sent
        body = {"text": text, **{key: v for key, v in options.as_dict().items() if v is not None}}
        records = served_records(index, collection, body)
        if records is not None:
            print_records(records, as_json, empty)
            return
    try:
        dense = dense_loading(text) if mode != ModeChoice.sparse else None  # first: the load runs meanwhile
        from structaware_retrievers.search.evidence import evidence_units

        idx = open_index(index, url, api_key, collection, dense=dense)
        if EXIT["main"]:
            EXIT["index"] = idx
        hits = idx.query(text, options)
    except StructawareError as exc:
        fail(exc)
        return
    print_records([{**hit.to_record(u), "expanded_from": via} for hit, u, via in evidence_units(hits)], as_json, empty)
