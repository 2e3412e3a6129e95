"""``structaware serve`` (HTTP) and ``structaware mcp`` (MCP over stdio): one long-lived process
answers queries on an index."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from structaware_readers.errors import StructawareError
from structaware_retrievers.cli.app import ApiKeyOpt, CollectionOpt, IndexOpt, PdfOpt, UrlOpt, app, fail, open_index


@app.command()
def serve(
    index: IndexOpt = None,
    url: UrlOpt = None,
    api_key: ApiKeyOpt = None,
    collection: CollectionOpt = "structaware",
    host: Annotated[
        str, typer.Option("--host", help="address to bind (keep 127.0.0.1 unless you trust the network)")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="TCP port (0: any free port)")] = 8765,
    pdf: PdfOpt = None,
) -> None:
    """Serve queries over HTTP (JSON) from one long-lived process: POST /query, GET /documents, GET /health,
    and a search page at / whose hits show their pages with the region outlined (GET /image)."""
    from structaware_retrievers.serve import client as serve_client
    from structaware_retrievers.serve.app import make_server

    try:
        idx = open_index(index, url, api_key, collection)
        server = make_server(idx, host, port, pdf=pdf)
    except StructawareError as exc:
        fail(exc)
        return
    except OSError as exc:
        fail(StructawareError(f"cannot listen on {host}:{port}: {exc}", field="--port"))
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
    from structaware_retrievers.serve.mcp import make_mcp_server

    try:
        idx = open_index(index, url, api_key, collection)
        server = make_mcp_server(idx, pdf=pdf)
    except StructawareError as exc:
        fail(exc)
        return
    try:
        server.run("stdio")
    except KeyboardInterrupt:
        pass
    finally:
        idx.close()
