"""The ``structaware`` command line: units, ingest, query, show, serve, mcp, documents, delete, eval.

Every error the package raises on purpose (:class:`structaware_readers.errors.StructawareError`)
is printed as one line ``error: <file>: <field>: <what is wrong>`` on stderr.

Exit codes, the same for every command:

* ``0``: done (``query`` with no hit under a filter is done too: it says so on stderr);
* ``1``: ``ingest`` only: some inputs failed (each named on stderr), the others are in the index
  (ingested now, or unchanged since an earlier ingest);
* ``2``: nothing done: a usage error (bad option or value), an input that cannot be read (for
  ``ingest``: every input failed, or no input was found), an index that is missing or empty
  (``query``, ``documents``), an unknown document id (``delete``).
"""

from __future__ import annotations

import gc
import json
import os
import re
import sys
from collections import Counter
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer
from typer.core import TyperCommand

from structaware_readers.errors import StructawareError
from structaware_readers.limits import clean_text
from structaware_retrievers.fusion import DEFAULT_GROUP_SIZE, DEFAULT_PREFETCH_LIMIT, DEFAULT_RRF_K

if TYPE_CHECKING:  # typer carries its own click; importing the click distribution costs ~25 ms
    import click

app = typer.Typer(
    name="structaware",
    help="Structure-aware evidence units from MinerU/Unstructured output, hybrid search in Qdrant.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # click's plain help: typer's rich help shows flags (--json, --help) as if they took a <bool>
    rich_markup_mode=None,
)

def _print_version(value: bool) -> None:
    if value:
        from importlib.metadata import version  # here: ~10 ms that no other command needs

        typer.echo(f"structaware {version('structaware')}")
        raise typer.Exit()


@app.callback()
def _main_options(
    show_version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    """Options before the command (``structaware --version``)."""


#: Largest -k / --rrf-k / --prefetch accepted (larger values are usage errors, not engine overflows).
MAX_K = 10_000

#: ``--filter`` keys; after one ``--filter``, further KEY=VALUE words with these keys are filters too.
FILTER_KEYS = ("doc", "doc_id", "page", "type", "unit_type", "grade")
_FILTER_WORD = re.compile(rf"^(?:{'|'.join(FILTER_KEYS)})=")


def expand_filter_values(args: list[str]) -> list[str]:
    """``--filter type=a grade=A`` -> ``--filter type=a --filter grade=A``: the KEY=VALUE words
    (known keys only) that follow a ``--filter`` value belong to it, until another word or ``--``."""
    out: list[str] = []
    in_filter = False
    it = iter(args)
    for arg in it:
        if arg == "--":
            out.append(arg)
            out.extend(it)
            break
        if in_filter and _FILTER_WORD.match(arg):
            out += ["--filter", arg]
            continue
        out.append(arg)
        in_filter = False
        if arg == "--filter":
            value = next(it, None)
            if value is not None:
                out.append(value)
                in_filter = True
        elif arg.startswith("--filter="):
            in_filter = True
    return out


class _FilterCommand(TyperCommand):
    """A command whose ``--filter`` takes several KEY=VALUE words (see :func:`expand_filter_values`)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, expand_filter_values(list(args)))

DEFAULT_INDEX_HELP = "index folder (default: $STRUCTAWARE_INDEX or ./.structaware/index)"

IndexOpt = Annotated[Optional[Path], typer.Option("--index", help=DEFAULT_INDEX_HELP)]
UrlOpt = Annotated[Optional[str], typer.Option("--url", help="Qdrant server or cluster URL instead of a folder")]
ApiKeyOpt = Annotated[
    Optional[str], typer.Option("--api-key", envvar="QDRANT_API_KEY", help="Qdrant API key (or $QDRANT_API_KEY)")
]
CollectionOpt = Annotated[str, typer.Option("--collection", help="collection name")]
PdfOpt = Annotated[
    Optional[Path],
    typer.Option(
        "--pdf",
        help="where the pictures find the PDFs when the index's record of each source is not enough (an index"
        " built from parser output): a PDF, or a folder of <doc_name>.pdf files",
    ),
]
class ReadingOrderChoice(str, Enum):
    auto = "auto"
    parser = "parser"
    layout = "layout"


class ModeChoice(str, Enum):
    hybrid = "hybrid"
    dense = "dense"
    sparse = "sparse"


class FusionChoice(str, Enum):
    rrf = "rrf"
    dbsf = "dbsf"


ReadingOrderOpt = Annotated[
    ReadingOrderChoice,
    typer.Option(
        "--reading-order",
        help="auto: trust MinerU, restore Unstructured PDF order; parser: keep; layout: always restore from bboxes",
    ),
]


def _fail(exc: Exception) -> None:
    typer.echo(f"error: {exc}", err=True)
    raise typer.Exit(code=2)


def _open_index(index: Path | None, url: str | None, api_key: str | None, collection: str, *, dense=None):
    """Open (never create) an index; the first write creates its collection."""
    from structaware_retrievers.index import StructureIndex

    if index is not None and url is not None:
        raise typer.BadParameter("give either --index or --url, not both")
    if url is not None:
        return StructureIndex(url=url, api_key=api_key, collection=collection, dense=dense)
    return StructureIndex(index, collection=collection, dense=dense)


#: Set by a command that writes nothing to the index (``query``): :func:`main` may then end the
#: process at once (``"read_only"``), after ``"settle"`` ran (it waits for the model-loading thread,
#: or ends the model's child process). Under :func:`main` (``"main"``), ``"index"`` keeps the command's
#: index object alive until then (dropping it would close its shard); run in-process otherwise
#: (``CliRunner``), the command closes it as usual. ``"child"``: the dense encoder whose model a
#: forked child loads from the start of a ``query`` process (:func:`_start_model_child`).
_EXIT: dict[str, Any] = {"read_only": False, "settle": None, "main": False, "index": None, "child": None}


def _start_model_child() -> None:
    """For ``structaware query`` run from :func:`main` on Linux: fork, before the command line is
    parsed, a child that loads the default dense model on the other core and embeds the question once
    the command hands it over (:class:`~structaware_retrievers.encoders.query_child.ForkedQueryEncoder`;
    this process then never imports numpy or ONNX Runtime). Nothing happens when the encoder cannot
    be made (the command reports that error) or forking is not safe; the child is ended at exit if the
    command answers without it (a running server, ``--mode sparse``, an error)."""
    from structaware_retrievers.encoders.query_child import ForkedQueryEncoder

    try:
        dense = ForkedQueryEncoder(threads=1)  # one short query: a thread pool costs more CPU than it saves
    except StructawareError:
        return
    if hasattr(dense.backend, "prepack"):  # and so does pre-packing the weights (ONNX models)
        dense.backend.prepack = False
    if dense.start():
        _EXIT["child"], _EXIT["settle"] = dense, dense.close


def _server_answers(args: list[str]) -> bool:
    """Whether a ``query`` command line (``args``: after ``query``) will be answered by a running
    ``structaware serve``: its ``--index``/``--collection`` (else the default index) has a live
    server's advertisement, and neither ``--url`` nor ``--no-server`` is given. Read before typer
    parses the line, only to skip forking the model child (:func:`_start_model_child`): a wrong guess
    costs time, never a wrong answer (the command itself asks the server, or answers without it)."""
    values: dict[str, str] = {}
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if arg in ("--url", "--no-server") or arg.startswith("--url="):
            return False
        for name in ("--index", "--collection"):
            if arg == name and i + 1 < len(args):
                values[name] = args[i + 1]
            elif arg.startswith(name + "="):
                values[name] = arg.split("=", 1)[1]
    index = Path(values["--index"]) if "--index" in values else None
    return _server_url(index, values.get("--collection", "structaware")) is not None


def _server_url(index: Path | None, collection: str) -> str | None:
    """The URL of a live ``structaware serve`` of ``--index`` (else the default index) and ``--collection``."""
    from structaware_retrievers import serve_client
    from structaware_retrievers.index_paths import default_index_path

    return serve_client.find_server((index if index is not None else default_index_path()) / collection)


def _dense_loading(text: str):
    """The default dense encoder, already at work on ``text`` while the index opens: the forked
    child's (see :func:`_start_model_child`), else one whose model loads in a background thread
    (ONNX Runtime releases the GIL). A load error surfaces, typed, on first use."""
    if _EXIT["child"] is not None:
        _EXIT["child"].ask(text)
        return _EXIT["child"]
    import threading

    from structaware_retrievers.encoders import DenseEncoder

    dense = DenseEncoder(threads=1)
    if hasattr(dense.backend, "prepack"):
        dense.backend.prepack = False

    def load() -> None:
        try:
            dense.model  # noqa: B018
        except Exception:  # noqa: BLE001, S110 - raised again, typed, when the query needs the model
            pass

    # not a daemon: interpreter exit waits for it (a thread killed inside ONNX Runtime aborts the process)
    thread = threading.Thread(target=load, name="structaware-model-load", daemon=False)
    thread.start()
    _EXIT["settle"] = thread.join
    return dense


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
    from structaware_readers.loader import load_document
    from structaware_readers.units import build_units

    try:
        doc = load_document(path, reading_order=reading_order.value, pdf=pdf)
        built = build_units(doc)
    except StructawareError as exc:
        _fail(exc)
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
) -> None:
    """Put the units of documents into the index (idempotent; atomic per document).

    Exit code 0: every input is in the index (ingested now or unchanged); 1: some inputs failed, the
    others are in the index; 2: nothing done (every input failed, or none was found)."""
    try:
        idx = _open_index(index, url, api_key, collection)
        summary = idx.ingest(
            paths,
            reading_order=reading_order.value,
            progress=progress,
            reparse=force,
            log=lambda line: typer.echo(line, err=True),
        )
    except StructawareError as exc:
        _fail(exc)
        return
    if summary.documents == 0 and summary.skipped_unchanged == 0 and not summary.failed:
        _fail(StructawareError("no PDF, MinerU output or Unstructured JSON found", path=", ".join(map(str, paths))))
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


def _parse_filters(items: list[str]) -> dict[str, Any]:
    """``--filter`` words -> :class:`~structaware_retrievers.filters.SearchFilter` fields, checked
    by building one (usage errors as ``typer.BadParameter``); ``{}`` for no filter."""
    fields: dict[str, list[str]] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not value:
            raise typer.BadParameter(f"--filter {item!r}: expected KEY=VALUE (doc, doc_id, page, type, grade)")
        fields.setdefault(key.strip(), []).extend(v.strip() for v in value.split(","))
    kwargs: dict = {}
    for key, values in fields.items():
        if key == "doc":
            kwargs["doc_names"] = values
        elif key == "doc_id":
            kwargs["doc_ids"] = values
        elif key in ("type", "unit_type"):
            kwargs["unit_types"] = values
        elif key == "grade":
            kwargs["grades"] = values
        elif key == "page":
            lo, _, hi = values[0].partition("-")
            try:
                kwargs["page_from"] = int(lo)
                kwargs["page_to"] = int(hi or lo)
            except ValueError:
                raise typer.BadParameter(f"--filter page={values[0]}: expected N or N-M (1-based pages)") from None
        else:
            raise typer.BadParameter(f"--filter {key}: unknown key; use doc, doc_id, page, type or grade")
    if not kwargs:
        return {}
    from structaware_retrievers.filters import SearchFilter

    try:
        SearchFilter(**kwargs)
    except (StructawareError, ValueError) as exc:
        raise typer.BadParameter(f"--filter: {exc}") from None
    return kwargs


def _served_records(index: Path | None, collection: str, body: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The answer of a running ``structaware serve`` of the index folder, as ``--json`` records;
    ``None`` when no server of that folder is running or reachable (the caller answers itself).
    A request the server rejects (bad value, missing or empty index) ends the command as it would
    have ended here: ``error: ...``, exit code 2."""
    from structaware_retrievers import serve_client

    url = _server_url(index, collection)
    answer = serve_client.ask(url, body) if url is not None else None
    if answer is None or answer.status >= 500:
        return None  # no server, or it failed: the model's child (if any) answers
    if _EXIT["child"] is not None:  # the server answered: end the child's load now
        _EXIT["child"].close()
        _EXIT["child"] = None
    if answer.status != 200:
        typer.echo(f"error: {answer.body.get('detail') or answer.body.get('message')}", err=True)
        raise typer.Exit(code=2)
    if "evidence" in answer.body:
        return list(answer.body["evidence"])
    return [{**record, "expanded_from": None} for record in answer.body.get("hits", [])]


def _print_records(records: list[dict[str, Any]], as_json: bool, empty: str) -> None:
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
            f"{'+'.join(r['element_ids'])}  score={r['score']:.4f}"
        )
        if r["context"]:
            typer.echo(f"   {r['context']}")
        # a table hit holds its group rows, one per line, best first; other text is one line
        lines = r["text"].splitlines() if r["unit_type"] == "table_row" else [r["text"].replace("\n", " ")]
        for line in lines:
            typer.echo(f"   {line[:300]}")


@app.command(cls=_FilterCommand)
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
        Optional[str], typer.Option("--weights", help="DENSE,BM25 RRF weights, e.g. 0.5,1 (default: the index's)")
    ] = None,
    budget: Annotated[
        Optional[int], typer.Option("--budget-chars", min=1, help="return the best units fitting this many characters")
    ] = None,
    expand: Annotated[
        bool, typer.Option("--expand", help="add each hit's neighbours (adjacent rows, section lead, flow edges)")
    ] = False,
    group_size: Annotated[
        int,
        typer.Option(
            "--group-size", min=1, max=MAX_K, help="rows of one table per hit: the best row + other matched rows (1: off)"
        ),
    ] = DEFAULT_GROUP_SIZE,
    filters: Annotated[
        Optional[list[str]],
        typer.Option(
            "--filter",
            metavar="KEY=VALUE...",
            help="doc=NAME, doc_id=ID, page=3-5, type=table_row, grade=A; several after one --filter"
            " (--filter type=table_row grade=A) or --filter repeated; keys combine with AND, a,b = either",
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
    _EXIT["read_only"] = True
    text = clean_text(text)  # bytes that are not UTF-8 arrive as lone surrogates: U+FFFD
    filter_fields = _parse_filters(filters or [])
    w: tuple[float, float] | None = None
    if weights is not None:
        try:
            dw, sw = (float(x) for x in weights.split(","))
        except ValueError:
            raise typer.BadParameter(f"--weights: expected DENSE,BM25 (two numbers), got {weights!r}") from None
        w = (dw, sw)
    why = ["the filter matched no unit"] if filter_fields else ["no unit shares a term with the question"]
    if budget is not None:
        why.append(f"no hit fits in --budget-chars {budget}")
    empty = " or ".join(why)  # what an empty answer can mean, said on stderr
    args: dict[str, Any] = {
        "k": k, "mode": mode.value, "fusion": fusion.value, "rrf_k": rrf_k, "prefetch_limit": prefetch,
        "weights": w, "budget_chars": budget, "expand": expand, "group_size": group_size,
    }  # fmt: skip
    if use_server and url is None:
        body = {"text": text, **{key: v for key, v in args.items() if v is not None}}
        if filter_fields:
            body["filter"] = filter_fields
        records = _served_records(index, collection, body)
        if records is not None:
            _print_records(records, as_json, empty)
            return
    try:
        dense = _dense_loading(text) if mode != ModeChoice.sparse else None  # first: the load runs meanwhile
        from structaware_retrievers.evidence import evidence_units
        from structaware_retrievers.filters import SearchFilter

        idx = _open_index(index, url, api_key, collection, dense=dense)
        if _EXIT["main"]:
            _EXIT["index"] = idx
        flt = SearchFilter(**filter_fields) if filter_fields else None
        hits = idx.query(text, filter=flt, **args)
    except StructawareError as exc:
        _fail(exc)
        return
    _print_records([{**hit.to_record(u), "expanded_from": via} for hit, u, via in evidence_units(hits)], as_json, empty)


@app.command(cls=_FilterCommand)
def show(
    text: Annotated[Optional[str], typer.Argument(help="the question (or --unit ID instead)")] = None,
    unit: Annotated[
        Optional[list[str]],
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
    filters: Annotated[
        Optional[list[str]],
        typer.Option("--filter", metavar="KEY=VALUE...", help="as for query: doc=, doc_id=, page=3-5, type=, grade="),
    ] = None,
    out: Annotated[
        Optional[Path],
        typer.Option(
            "-o",
            "--out",
            help="FILE.png (several pictures: FILE-<rank>.png) or a folder; default: <doc>-p<page>-<id>.png here,"
            " or shown inline when standard output is a kitty/iTerm2/WezTerm terminal",
        ),
    ] = None,
    crop: Annotated[bool, typer.Option("--crop/--no-crop", help="only the regions, with --margin around them")] = False,
    margin: Annotated[float, typer.Option("--margin", min=0, help="space around the regions when cropping, PDF points")] = 36.0,
    dpi: Annotated[float, typer.Option("--dpi", min=9, max=600, help="resolution, pixels per inch")] = 108.0,
    pdf: PdfOpt = None,
) -> None:
    """Picture the evidence: the hits' pages with each hit's own region outlined (a table row, every row of a
    grouped hit, both boxes of a flow edge), as PNG files or inline in a terminal that can show pictures."""
    from structaware_retrievers.show_pictures import hits_by_id, show_hits
    from structaware_retrievers.terminal_image import inline_protocol

    _EXIT["read_only"] = True
    if (text is None) == (not unit):
        raise typer.BadParameter("give a question or --unit ID (not both)")
    filter_fields = _parse_filters(filters or [])
    try:
        dense = _dense_loading(clean_text(text)) if text is not None and mode != ModeChoice.sparse else None
        idx = _open_index(index, url, api_key, collection, dense=dense)
        if _EXIT["main"]:
            _EXIT["index"] = idx
        if unit:
            hits = hits_by_id(idx, unit)
        else:
            from structaware_retrievers.filters import SearchFilter

            flt = SearchFilter(**filter_fields) if filter_fields else None
            hits = idx.query(clean_text(text or ""), k=k, mode=mode.value, filter=flt, group_size=group_size)
        if not hits:
            typer.echo("no results (" + ("the filter matched no unit" if filter_fields else "no unit shares a term with the question") + ")", err=True)
            return
        failed: list[str] = []

        def report(hit: Any, exc: Exception) -> None:
            failed.append(str(exc))
            typer.echo(f"error: {hit.rank}. {exc}", err=True)

        options = {"pdf": pdf, "crop": crop, "margin": margin, "dpi": dpi}
        inline = inline_protocol(sys.stdout) if out is None else None
        shown = show_hits(hits, out=out, inline=inline, stream=sys.stdout, options=options, on_error=report)
    except StructawareError as exc:
        _fail(exc)
        return
    for picture in shown:
        u = picture.hit.unit
        where = f" -> {picture.path}" if picture.path is not None else ""
        line = f"{picture.hit.rank}. [{u.unit_type.value}] {u.doc_name} p.{','.join(map(str, u.pages))} {u.unit_id}{where}"
        typer.echo(line, err=picture.path is None)  # inline: the picture is the output
        for warning in picture.warnings:
            typer.echo(f"warning: {warning}", err=True)
    if failed:
        raise typer.Exit(code=2 if not shown else 1)


@app.command()
def serve(
    index: IndexOpt = None,
    url: UrlOpt = None,
    api_key: ApiKeyOpt = None,
    collection: CollectionOpt = "structaware",
    host: Annotated[str, typer.Option("--host", help="address to bind (keep 127.0.0.1 unless you trust the network)")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="TCP port (0: any free port)")] = 8765,
    pdf: PdfOpt = None,
) -> None:
    """Serve queries over HTTP (JSON) from one long-lived process: POST /query, GET /documents, GET /health,
    and a search page at / whose hits show their pages with the region outlined (GET /image)."""
    from structaware_retrievers import serve_client
    from structaware_retrievers.serve import make_server

    try:
        idx = _open_index(index, url, api_key, collection)
        server = make_server(idx, host, port, pdf=pdf)
    except StructawareError as exc:
        _fail(exc)
        return
    except OSError as exc:
        _fail(StructawareError(f"cannot listen on {host}:{port}: {exc}", field="--port"))
        return
    folder = getattr(idx.store, "folder", None)  # a folder index: `structaware query` on it asks this server
    if folder is not None:
        bound, bound_port = server.server_address[:2]
        local = "127.0.0.1" if bound in ("0.0.0.0", "") else bound  # noqa: S104 - reading, not binding
        try:
            serve_client.advertise(folder, f"http://{local}:{bound_port}")
        except OSError:  # a read-only folder: queries still work, in their own processes
            folder = None
    typer.echo(
        f"serving {idx.store.location} at {server.url} (search page at /; POST /query, GET /documents, GET /health);"
        " Ctrl-C stops",
        err=True,
    )
    import signal

    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt  # SIGTERM stops the server as Ctrl-C does: advertisement withdrawn, index closed

    signal.signal(signal.SIGTERM, stop)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        if folder is not None:
            serve_client.withdraw(folder)
        server.server_close()
        idx.close()


@app.command()
def mcp(
    index: IndexOpt = None,
    url: UrlOpt = None,
    api_key: ApiKeyOpt = None,
    collection: CollectionOpt = "structaware",
    pdf: PdfOpt = None,
) -> None:
    """Serve the index to an MCP client over stdin/stdout: tools search and list_documents (extra: mcp)."""
    from structaware_retrievers.mcp_server import make_mcp_server

    try:
        idx = _open_index(index, url, api_key, collection)
        server = make_mcp_server(idx, pdf=pdf)
    except StructawareError as exc:
        _fail(exc)
        return
    try:
        server.run("stdio")
    except KeyboardInterrupt:
        pass
    finally:
        idx.close()


@app.command()
def documents(
    index: IndexOpt = None,
    url: UrlOpt = None,
    api_key: ApiKeyOpt = None,
    collection: CollectionOpt = "structaware",
) -> None:
    """List the documents in the index."""
    from structaware_readers.errors import IndexNotFoundError

    try:
        idx = _open_index(index, url, api_key, collection)
        docs = idx.documents()
        if not docs:  # the same condition and exit code as `query` on a missing or empty index
            raise IndexNotFoundError(
                "the index is missing or empty: ingest documents first (`structaware ingest <files>`), or point"
                f" to the right index (--index, $STRUCTAWARE_INDEX, --url, --collection {collection!r})",
                path=idx.store.location,
            )
    except StructawareError as exc:
        _fail(exc)
        return
    for d in docs:
        typer.echo(f"{d['doc_id']}  {d['units']:>6} units  {d['doc_name']}  ({d['source']})")


@app.command()
def delete(
    doc_id: Annotated[str, typer.Argument(help="document id (see `structaware documents`)")],
    index: IndexOpt = None,
    url: UrlOpt = None,
    api_key: ApiKeyOpt = None,
    collection: CollectionOpt = "structaware",
) -> None:
    """Delete a document's units from the index."""
    try:
        idx = _open_index(index, url, api_key, collection)
        n = idx.delete_document(doc_id)
    except StructawareError as exc:
        _fail(exc)
        return
    if n == 0:
        typer.echo(f"error: no document with doc_id {doc_id} in {idx.store.location}", err=True)
        raise typer.Exit(code=2)
    typer.echo(f"deleted {n} units of {doc_id}")


@app.command("eval")
def eval_(
    questions: Annotated[Path, typer.Option("--questions", help="questions JSONL (qid, question, doc, gold_pages, ...)")],
    docs: Annotated[Path, typer.Option("--docs", help="folder of PDFs or parser outputs")],
    parsed: Annotated[Optional[Path], typer.Option("--parsed", help="folder of pre-parsed MinerU outputs")] = None,
    methods: Annotated[
        str, typer.Option("--methods", help="comma list: flat,heading,page,element,struct,struct_noctx")
    ] = "flat,heading,page,element,struct,struct_noctx",
    retrievers: Annotated[str, typer.Option("--retrievers", help="comma list: bm25,dense,hybrid")] = "bm25,dense,hybrid",
    ks: Annotated[str, typer.Option("--k", help="comma list of k")] = "1,5,10",
    json_out: Annotated[Optional[Path], typer.Option("--json", help="write per-query ranks and tables here")] = None,
    index_dir: Annotated[Optional[Path], typer.Option("--index-dir", help="where eval indexes and caches live")] = None,
    limit: Annotated[Optional[int], typer.Option("--limit", help="first N questions only")] = None,
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
        _fail(exc)
        return
    typer.echo(result.render())


def main() -> None:  # pragma: no cover - console entry point
    """The ``structaware`` console command.

    A command that wrote nothing to the index (``query``) ends its process with ``os._exit`` once
    its output is flushed, skipping the interpreter's teardown: Qdrant Edge's shard close syncs
    every memory-mapped file of the shard to disk (``msync``) even when nothing changed, 20-270 ms
    on this project's test machine depending on the disk's other traffic (BENCHMARKS.md, "Speed
    (issue 14)"). Nothing is lost: the process wrote nothing, and the OS releases its file locks.
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if sys.argv[1:2] == ["query"]:  # a short process that answers one question:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy loads: no BLAS thread pool (~50 ms to start)
        # no cyclic garbage collection: its ~100 passes over the objects the imports create cost 15-25 ms,
        # and the few cycles left are freed when the process ends a moment later
        gc.disable()
        if not _server_answers(sys.argv[2:]):  # a server has the model loaded: no child needed
            _start_model_child()
    # pydantic looks for its plugins in the entry points of every installed distribution when the
    # first model class is made (~10 ms in a large environment); the command uses none
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    for stream in (sys.stdout, sys.stderr):  # text that cannot be encoded never aborts the output
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")
    _EXIT["main"] = True
    try:
        app()
    except SystemExit as exc:
        if _EXIT["read_only"] and (exc.code is None or isinstance(exc.code, int)):
            if _EXIT["settle"] is not None:  # the model's thread (done when the query used it) or child
                _EXIT["settle"]()
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            except (OSError, ValueError):  # a closed pipe: the normal exit reports it
                _EXIT["index"] = None  # and closes the index, before the interpreter's teardown
                raise exc from None
            shards = sys.modules.get("structaware_retrievers.store.edge_shard")
            if shards is not None:  # a shard repaired on open is closed; a read-only folder's copy deleted
                shards.before_exit()
            os._exit(exc.code or 0)
        raise
    finally:  # any other ending (a usage error, an exception): the model's child is not left running
        if _EXIT["child"] is not None:
            _EXIT["child"].close()


if __name__ == "__main__":  # pragma: no cover
    main()
