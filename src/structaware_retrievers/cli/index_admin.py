"""``structaware documents`` and ``structaware delete DOC_ID``: list and remove the documents of an index."""

from __future__ import annotations

from typing import Annotated

import typer

from structaware_readers.errors import IndexNotFoundError, StructawareError
from structaware_retrievers.cli.app import ApiKeyOpt, CollectionOpt, IndexOpt, UrlOpt, app, fail, open_index


@app.command()
def documents(
    index: IndexOpt = None,
    url: UrlOpt = None,
    api_key: ApiKeyOpt = None,
    collection: CollectionOpt = "structaware",
) -> None:
    """List the documents in the index."""
    try:
        idx = open_index(index, url, api_key, collection)
        docs = idx.documents()
        if not docs:  # the same condition and exit code as `query` on a missing or empty index
            raise IndexNotFoundError(
                "the index is missing or empty: ingest documents first (`structaware ingest <files>`), or point"
                f" to the right index (--index, $STRUCTAWARE_INDEX, --url, --collection {collection!r})",
                path=idx.store.location,
            )
    except StructawareError as exc:
        fail(exc)
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
        idx = open_index(index, url, api_key, collection)
        n = idx.delete_document(doc_id)
    except StructawareError as exc:
        fail(exc)
        return
    if n == 0:
        typer.echo(f"error: no document with doc_id {doc_id} in {idx.store.location}", err=True)
        raise typer.Exit(code=2)
    typer.echo(f"deleted {n} units of {doc_id}")
