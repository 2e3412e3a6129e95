"""The ``structaware`` typer application, the options its commands share, and how a command opens
an index and fails (one line ``error: ...`` on stderr, exit code 2). Each command lives in a module
of its own (:mod:`structaware_retrievers.cli`) and registers on :data:`app`."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from structaware_readers.errors import ModelMismatchError

__all__ = [
    "MAX_K",
    "ApiKeyOpt",
    "CollectionOpt",
    "FusionChoice",
    "IndexOpt",
    "ModeChoice",
    "PdfOpt",
    "ReadingOrderChoice",
    "ReadingOrderOpt",
    "UrlOpt",
    "app",
    "fail",
    "open_index",
]

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
        from importlib.metadata import version  # here: an import no other command needs

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

DEFAULT_INDEX_HELP = "index folder (default: $STRUCTAWARE_INDEX or ./.structaware/index)"

IndexOpt = Annotated[Path | None, typer.Option("--index", help=DEFAULT_INDEX_HELP)]
UrlOpt = Annotated[str | None, typer.Option("--url", help="Qdrant server or cluster URL instead of a folder")]
ApiKeyOpt = Annotated[
    str | None, typer.Option("--api-key", envvar="QDRANT_API_KEY", help="Qdrant API key (or $QDRANT_API_KEY)")
]
CollectionOpt = Annotated[str, typer.Option("--collection", help="collection name")]
PdfOpt = Annotated[
    Path | None,
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


def fail(exc: Exception) -> None:
    if isinstance(exc, ModelMismatchError):  # the fix in a command-line user's terms
        exc = exc.with_fix(
            f"set STRUCTAWARE_DENSE_MODEL={exc.stored_model} for structaware's commands (or the model"
            " folder it was built with), or use another --index folder or --collection"
        )
    typer.echo(f"error: {exc}", err=True)
    raise typer.Exit(code=2)


def open_index(index: Path | None, url: str | None, api_key: str | None, collection: str, *, dense=None):
    """Open (never create) an index; the first write creates its collection."""
    from structaware_retrievers.index.structure_index import StructureIndex

    if index is not None and url is not None:
        raise typer.BadParameter("give either --index or --url, not both")
    if url is not None:
        return StructureIndex(url=url, api_key=api_key, collection=collection, dense=dense)
    return StructureIndex(index, collection=collection, dense=dense)
