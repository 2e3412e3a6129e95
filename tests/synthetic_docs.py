"""A parsed document of blocks written in a test, as MinerU's reader would hand it to the structure passes."""

from __future__ import annotations

from structaware_readers.models import Block, ParsedDocument


def synthetic_doc(blocks: list[Block], pages: int = 1) -> ParsedDocument:
    """``blocks`` as a MinerU ``content_list`` document of ``pages`` pages (sizes unknown)."""
    return ParsedDocument(
        doc_id="0" * 16,
        source="synthetic",
        name="synthetic",
        parser="mineru",
        input_format="content_list",
        page_count=pages,
        page_sizes=[None] * pages,
        blocks=blocks,
    )
