r"""``StructureAwareNodeParser``: one LlamaIndex ``TextNode`` per structure-aware evidence unit.

Input: ``Document``\ s from ``llama_index.readers.structaware``, which carry the parsed blocks, so
nothing is parsed twice; a document structaware did not read is split by ``SentenceSplitter`` with
an ``InputWarning`` instead of failing the batch. Each unit becomes a node through
:func:`~llama_index.node_parser.structaware.nodes.unit_to_node`, linked ``SOURCE`` to its document
and ``PREVIOUS``/``NEXT`` to its neighbours. With ``parent_nodes=True`` each table and flowchart
also gets a parent node over its row or edge nodes, for ``AutoMergingRetriever``. The document's
excluded metadata keys are copied onto each node, and the document JSON never is.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

from llama_index.core.bridge.pydantic import Field
from llama_index.core.node_parser.interface import NodeParser
from llama_index.core.schema import BaseNode, Document, NodeRelationship, ObjectType, RelatedNodeInfo, TextNode
from llama_index.core.utils import get_tqdm_iterable

from llama_index.node_parser.structaware.nodes import (
    EMBED_VISIBLE_KEYS,
    LLM_VISIBLE_KEYS,
    excluded_keys,
    unit_to_node,
)
from llama_index.readers.structaware.base import DOCUMENT_METADATA_KEY, parsed_from_document
from structaware_readers.errors import InputWarning
from structaware_readers.ids import unit_id
from structaware_readers.units import build_units
from structaware_readers.units.options import DEFAULT_MAX_SECTION_CHARS, UnitOptions

_PARENT_KIND_TABLE = "table"
_PARENT_KIND_FLOWCHART = "flowchart"


def _slim(document: BaseNode) -> dict[str, Any]:
    return {k: v for k, v in document.metadata.items() if k != DOCUMENT_METADATA_KEY}


class StructureAwareNodeParser(NodeParser):
    """Documents from the structaware readers -> one ``TextNode`` per evidence unit.

    Args:
        max_section_chars: split long sections into parts of at most this many characters.
        figure_units: emit figure units (caption + text inside the figure).
        recommendation_units: split graded paragraphs out of their sections.
        include_context: ``False`` gives empty contexts (the paper's section 4.4 ablation).
        text_table_rows: one row node per line of a table the parser left without a grid
            (``UnitOptions.text_table_rows``; off by default, see BENCHMARKS.md).
        parent_nodes: also emit table / flowchart parent nodes with ``PARENT``/``CHILD`` links.
        include_metadata, include_prev_next_rel: as for every LlamaIndex ``NodeParser``.

        plain_chunk_size, plain_chunk_overlap: ``SentenceSplitter`` sizes (tokens) for documents
            structaware did not read (LlamaIndex's defaults).

    Warns:
        InputWarning: a document structaware did not read, split as plain text (naming its file).

    Raises (from ``get_nodes_from_documents`` / ``__call__``):
        MalformedInputError: a document's ``metadata["structaware_document"]`` is not a parsed
            document (naming its file and the field).
        EmptyDocumentError: a document yields no units.
    """

    max_section_chars: int = Field(
        default=DEFAULT_MAX_SECTION_CHARS, ge=100, description="section part size, characters"
    )
    figure_units: bool = Field(default=True, description="emit figure units")
    recommendation_units: bool = Field(default=True, description="split graded paragraphs out of sections")
    include_context: bool = Field(default=True, description="False: empty context strings (ablation)")
    text_table_rows: bool = Field(default=False, description="row nodes for tables left without a grid")
    parent_nodes: bool = Field(default=False, description="emit table/flowchart parent nodes")
    plain_chunk_size: int = Field(default=1024, gt=0, description="SentenceSplitter size for plain documents")
    plain_chunk_overlap: int = Field(default=200, ge=0, description="SentenceSplitter overlap for plain documents")

    @classmethod
    def class_name(cls) -> str:
        return "StructureAwareNodeParser"

    def _unit_options(self) -> UnitOptions:
        return UnitOptions(
            max_section_chars=self.max_section_chars,
            figure_units=self.figure_units,
            recommendation_units=self.recommendation_units,
            include_context=self.include_context,
            text_table_rows=self.text_table_rows,
        )

    def _parse_nodes(
        self,
        nodes: Sequence[BaseNode],
        show_progress: bool = False,
        **kwargs: Any,
    ) -> list[BaseNode]:
        options = self._unit_options()
        out: list[BaseNode] = []
        for document in get_tqdm_iterable(nodes, show_progress, "Building evidence units"):
            if DOCUMENT_METADATA_KEY not in document.metadata:
                out.extend(self._plain_nodes(document))
                continue
            parsed = parsed_from_document(document)
            units = build_units(parsed, options)
            source = RelatedNodeInfo(
                node_id=document.node_id,
                node_type=document.get_type(),
                metadata=_slim(document),
                hash=document.hash,
            )
            unit_nodes = [unit_to_node(u, source=source) for u in units]
            out.extend(unit_nodes)
            if self.parent_nodes:
                out.extend(self._parents(parsed, units, unit_nodes, source))
        return out

    def _plain_nodes(self, document: BaseNode) -> list[BaseNode]:
        """A document structaware did not read, as LlamaIndex's default splitter makes its nodes."""
        from llama_index.core.node_parser import SentenceSplitter

        where = (
            document.metadata.get("file_path") or document.metadata.get("file_name") or f"document {document.node_id}"
        )
        warnings.warn(
            InputWarning(
                "not read by a structaware reader: split into plain text nodes (SentenceSplitter), not"
                " evidence units; read PDFs and parser outputs with llama_index.readers.structaware",
                path=where,
                field=f"metadata[{DOCUMENT_METADATA_KEY!r}]",
            ),
            stacklevel=4,
        )
        splitter = SentenceSplitter(chunk_size=self.plain_chunk_size, chunk_overlap=self.plain_chunk_overlap)
        return splitter.get_nodes_from_documents([document])

    def _parents(
        self, parsed: Any, units: list[Any], unit_nodes: list[TextNode], source: RelatedNodeInfo
    ) -> list[TextNode]:
        """One parent node per table / flowchart element, linked to its row / edge nodes."""
        groups: dict[tuple[str, str], list[int]] = {}
        for i, unit in enumerate(units):
            if unit.table is not None:
                groups.setdefault((_PARENT_KIND_TABLE, unit.table.table_id), []).append(i)
            elif unit.flow is not None:
                groups.setdefault((_PARENT_KIND_FLOWCHART, unit.flow.flowchart_id), []).append(i)
        parents: list[TextNode] = []
        for (kind, element_id), members in groups.items():
            children = [unit_nodes[i] for i in members]
            first = units[members[0]]
            try:
                block = parsed.block(element_id)
                body = "\n".join(p for p in (block.caption.strip(), block.text.strip()) if p)
            except KeyError:
                block = None
                body = ""
            body = body or "\n".join(n.text for n in children)
            pages = sorted({p for i in members for p in units[i].pages})
            element_ids: list[str] = []
            for i in members:
                element_ids.extend(e for e in units[i].element_ids if e not in element_ids)
            meta = {
                "context": first.context,
                "page_label": str(pages[0]) if pages else "",
                "file_name": children[0].metadata.get("file_name", ""),
                "page": pages[0] if pages else None,
                "pages": ",".join(map(str, pages)),
                "unit_type": kind,
                "doc_id": first.doc_id,
                "structaware_doc_id": first.doc_id,
                "doc_name": first.doc_name,
                "section": " > ".join(first.section_path),
                "element_ids": ",".join(element_ids),
            }
            parent = TextNode(
                id_=unit_id(first.doc_id, f"parent:{kind}", 0, [element_id]),
                text=body,
                metadata=meta,
                excluded_embed_metadata_keys=excluded_keys(meta, EMBED_VISIBLE_KEYS),
                excluded_llm_metadata_keys=excluded_keys(meta, LLM_VISIBLE_KEYS),
                relationships={NodeRelationship.SOURCE: source},
            )
            parent.relationships[NodeRelationship.CHILD] = [c.as_related_node_info() for c in children]
            parent_info = RelatedNodeInfo(node_id=parent.node_id, node_type=ObjectType.TEXT, metadata={})
            for child in children:
                child.relationships[NodeRelationship.PARENT] = parent_info
            parents.append(parent)
        return parents

    def _postprocess_parsed_nodes(self, nodes: list[BaseNode], parent_doc_map: dict[str, Document]) -> list[BaseNode]:
        """LlamaIndex's post-processing on the unit nodes, minus the document JSON, plus exclusions."""
        slim_docs = {doc_id: doc.model_copy(update={"metadata": _slim(doc)}) for doc_id, doc in parent_doc_map.items()}
        leaves = [n for n in nodes if NodeRelationship.CHILD not in n.relationships]
        super()._postprocess_parsed_nodes(leaves, slim_docs)
        for node in nodes:
            doc = slim_docs.get(node.ref_doc_id or "")
            if doc is None:
                continue
            if NodeRelationship.CHILD in node.relationships and self.include_metadata:
                node.metadata = {**doc.metadata, **node.metadata}
            for own, inherited in (
                (node.excluded_embed_metadata_keys, doc.excluded_embed_metadata_keys),
                (node.excluded_llm_metadata_keys, doc.excluded_llm_metadata_keys),
            ):
                own.extend(k for k in inherited if k not in own and k != DOCUMENT_METADATA_KEY)
        return nodes
