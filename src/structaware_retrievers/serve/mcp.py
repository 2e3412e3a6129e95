"""``structaware mcp``: one index as a Model Context Protocol server, with search as a tool.

An MCP client starts ``structaware mcp --index DIR`` and talks to it over stdin/stdout; the process
keeps the model and the index open. Needs the ``mcp`` extra (the official MCP Python SDK, 2.x).
Tools (read-only; the ``search`` docstring is the description the client reads):

* ``search(query, k=5, ...)`` -> ``{"results": [record, ...]}``: one record per evidence unit handed
  over, as ``structaware query --json`` prints them (``SearchHit.to_record`` plus ``expanded_from``).
  ``filter`` takes the filter language of :mod:`~structaware_retrievers.query.filters`, ANDed with
  the other filter arguments. With ``images=True``, one PNG per hit follows the JSON, its page(s)
  cropped around its outlined regions (:mod:`~structaware_retrievers.pictures.evidence_image`), or a
  text block naming the PDF needed.
* ``list_documents()`` -> ``{"documents": [{"doc_id", "doc_name", "source", "units"}, ...]}``.

A bad or unknown argument, or a missing/empty index, is a tool error (``isError``) whose text is the
line ``structaware query`` would print.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Literal

from structaware_readers.errors import MalformedInputError, MissingExtraError, StructawareError
from structaware_retrievers.query.fusion import DEFAULT_MIN_SCORE

if TYPE_CHECKING:
    from structaware_retrievers.index.structure_index import StructureIndex
    from structaware_retrievers.pictures.source_pdf import PdfArg

__all__ = ["make_mcp_server"]

INSTRUCTIONS = (
    "Search structure-aware evidence units (sections, table rows with their headers, graded"
    " recommendations, flowchart edges) of the indexed documents. Each result names its document,"
    " 1-based pages and element ids, so an answer can cite where it comes from."
)


def make_mcp_server(index: StructureIndex, *, pdf: PdfArg = None) -> Any:
    """An ``mcp.server.mcpserver.MCPServer`` exposing ``search`` and ``list_documents`` over ``index``.

    Run it with ``server.run("stdio")``. The index stays open for the server's life (close it after).
    ``pdf``: where the pictures of ``search(images=True)`` find the documents' PDFs when the index's
    record of each source is not enough (:func:`~structaware_retrievers.pictures.source_pdf.source_pdf`).

    Raises:
        MissingExtraError: the ``mcp`` package is not installed (the ``mcp`` extra).
    """
    try:
        from mcp.server.mcpserver import MCPServer
        from mcp.server.mcpserver.exceptions import ToolError
        from mcp.types import ToolAnnotations
    except ImportError as exc:
        raise MissingExtraError("mcp", "mcp", "the MCP server") from exc
    from structaware_retrievers.query.filters import FilterGroup, SearchFilter, from_dict
    from structaware_retrievers.search.evidence import evidence_units
    from structaware_retrievers.search.options import SearchOptions

    class _StrictServer(MCPServer):
        """Tools whose input schemas say ``additionalProperties: false`` and whose calls with an
        unknown argument are tool errors (the SDK's argument models ignore unknown keys)."""

        async def list_tools(self) -> list[Any]:
            tools = await super().list_tools()
            return [
                t.model_copy(update={"input_schema": {**t.input_schema, "additionalProperties": False}}) for t in tools
            ]

        async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
            schema = next((t.input_schema for t in await super().list_tools() if t.name == name), None)
            accepted = sorted(schema.get("properties", {})) if schema is not None else None
            unknown = sorted(set(arguments) - set(accepted)) if accepted is not None else []
            if unknown:
                msg = f"unknown argument(s) {unknown}; expected any of {accepted}"
                raise ToolError(str(MalformedInputError(msg, field=f"{name}.{unknown[0]}")))
            return await super().call_tool(name, arguments, context)

    server = _StrictServer("structaware", instructions=INSTRUCTIONS)
    lock = threading.Lock()  # one search at a time: the store and the model are shared
    read_only = ToolAnnotations(readOnlyHint=True, openWorldHint=False)

    @server.tool(annotations=read_only)
    def search(
        query: str,
        k: int = 5,
        mode: Literal["hybrid", "dense", "sparse"] = "hybrid",
        doc_names: list[str] | None = None,
        unit_types: list[str] | None = None,
        grades: list[str] | None = None,
        page_from: int | None = None,
        page_to: int | None = None,
        filter: dict[str, Any] | None = None,  # the filter language's name
        expand: bool = False,
        budget_chars: int | None = None,
        min_score: float = DEFAULT_MIN_SCORE,
        images: bool = False,
        rerank: bool | None = None,
    ) -> dict[str, Any]:
        """Find the evidence units that answer a question, best first.

        Args:
            query: the question, in natural language or keywords.
            k: how many hits (each hit may bring neighbours with expand).
            mode: hybrid (dense + BM25, fused), dense or sparse (BM25 only).
            doc_names: only these documents (names as list_documents gives them).
            unit_types: only these unit types: section, table_row, recommendation, flow_path, figure;
                reference (bibliography entries) and front_matter (contents, authors, notices) are left
                out of every search unless named here.
            grades: only recommendations of these evidence grades (e.g. A, B, 1A).
            page_from: first 1-based page (inclusive).
            page_to: last 1-based page (inclusive).
            filter: metadata conditions, e.g. {"page": {"$gte": 4}} or {"$or": [{"grade": "A"}, {"unit_type": "figure"}]}.
            expand: add each hit's neighbours (adjacent table rows, the section's lead sentence, flow edges).
            budget_chars: return only the best units that fit this many characters together.
            min_score: leave out hits whose relevance (0..1, comparable across questions) is below
                this; at the default 0.5, no result means the index does not hold the answer. 0 keeps all.
            images: also return each hit's page, cropped around it, with the hit's regions outlined (PNG).
            rerank: re-order the first hits by their own dense and BM25 scores and question-term
                coverage (default: on for hybrid search; false: the fused order).
        """
        fields = {
            "doc_names": doc_names,
            "unit_types": unit_types,
            "grades": grades,
            "page_from": page_from,
            "page_to": page_to,
        }
        fields = {key: v for key, v in fields.items() if v is not None}
        try:
            parts = [*([SearchFilter(**fields).to_group()] if fields else []), *([from_dict(filter)] if filter else [])]
            flt = FilterGroup("and", tuple(parts)) if parts else None
            options = SearchOptions(
                k=k, mode=mode, filter=flt, expand=expand, budget_chars=budget_chars, rerank=rerank, min_score=min_score
            )
            with lock:
                hits = index.query(query, options)
        except (StructawareError, ValueError) as exc:
            raise ToolError(str(exc)) from None
        body = {"results": [{**h.to_record(u), "expanded_from": via} for h, u, via in evidence_units(hits)]}
        if not images:
            return body
        return _with_pictures(body, hits, pdf)  # a CallToolResult: the JSON, then one image per hit

    @server.tool(annotations=read_only)
    def list_documents() -> dict[str, Any]:
        """The indexed documents: doc_id, doc_name, source path and number of units of each."""
        with lock:
            return {"documents": index.documents()}

    return server


def _with_pictures(body: dict[str, Any], hits: list[Any], pdf: PdfArg) -> Any:
    """``body`` as a tool result whose content is its JSON as text, then per hit a PNG image block (or a
    text block naming the PDF needed); the structured content stays ``body``."""
    import base64
    import json

    from mcp_types import CallToolResult, ImageContent, TextContent

    from structaware_retrievers.pictures.evidence_image import evidence_picture

    blocks: list[Any] = [TextContent(type="text", text=json.dumps(body, ensure_ascii=False))]
    for hit in hits:
        try:
            png = evidence_picture(hit, pdf=pdf, crop=True).png()
        except StructawareError as exc:  # PdfNotFoundError, a PDF without the page: said, not fatal
            blocks.append(TextContent(type="text", text=f"rank {hit.rank}: no picture: {exc}"))
            continue
        blocks.append(ImageContent(type="image", data=base64.b64encode(png).decode("ascii"), mime_type="image/png"))
    return CallToolResult(content=blocks, structured_content=body)
