"""No gain tuned to one kind of document that loses on another (issue 21, item 5): a grid rebuilt from
the PDF text layer replaces the parser's only when it reads the document's own words as well.

Generated input: ``tests/fixtures/pdf/glued_words_table.pdf`` (``make_glued_words_table.py``): a
two-column paper page whose small-font table has no space characters in its text layer
(``MMLUPhysics``), and the same page with spaces (the trap).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("pdfplumber")

from structaware_readers.models import Block, BlockKind, ParsedDocument  # noqa: E402
from structaware_readers.table_recovery import recover_table_grids  # noqa: E402
from structaware_readers.table_recovery.markup_check import document_words, known_share  # noqa: E402
from structaware_readers.tables import grid_to_text, parse_html_table  # noqa: E402

GLUED = Path(__file__).parent / "fixtures" / "pdf" / "glued_words_table.pdf"
BODY = (
    "Table 2 compares the methods on MMLU Physics, MMLU Chemistry and Clinical Knowledge. Retrieval "
    "augmented prompting is best on every subset; chain of thought helps less on MMLU Chemistry."
)
#: what a parser's table recognition gives for the page: header words cut across cells
PARSER_HTML = (
    "<table><tr><td>Met</td><td>hod MMLU Phys</td><td>ics MMLU Chem</td><td>istry Clinical Know ledge</td></tr>"
    "<tr><td>Zero shot</td><td>41.2</td><td>38.5</td><td>55.0</td></tr>"
    "<tr><td>Chain of thought</td><td>44.8</td><td>40.1</td><td>58.3</td></tr>"
    "<tr><td>Retrieval augmented</td><td>47.9</td><td>43.6</td><td>61.7</td></tr></table>"
)
TABLE_BOX = (56 / 612, 134 / 792, 332 / 612, 196 / 792)


def _doc() -> ParsedDocument:
    blocks = []
    for page in (1, 2):
        grid = parse_html_table(PARSER_HTML)
        blocks += [
            Block(block_id=f"p{page}-e0", kind=BlockKind.PARAGRAPH, page=page, text=BODY, bbox=(0.09, 0.09, 0.5, 0.16)),
            Block(block_id=f"p{page}-e1", kind=BlockKind.TABLE, page=page, table=grid, text=grid_to_text(grid), bbox=TABLE_BOX),
        ]
    return ParsedDocument(
        doc_id="1" * 16, name="glued", source=str(GLUED), parser="mineru", input_format="test", page_count=2, blocks=blocks
    )


def test_text_layer_without_spaces_keeps_the_parser_grid():
    out = recover_table_grids(_doc(), GLUED)
    glued, spaced = (b.table for b in out.blocks if b.kind is BlockKind.TABLE)
    # page 1: the text layer reads 'MMLUPhysics', 'Chainofthought': the parser's grid stays
    assert glued.grid_source == "parser_html"
    assert [r[0] for r in glued.body_rows] == ["Zero shot", "Chain of thought", "Retrieval augmented"]
    # page 2 (the trap): the same table with spaces in its text layer replaces the garbled header
    assert spaced.grid_source == "pdf_text_layer"
    assert spaced.header_rows == [["Method", "MMLU Physics", "MMLU Chemistry", "Clinical Knowledge"]]
    assert [r[0] for r in spaced.body_rows] == ["Zero shot", "Chain of thought", "Retrieval augmented"]


def test_known_share_counts_distinct_words_of_the_document():
    vocab = document_words(["MMLU Physics results", "chain of thought"])
    assert vocab == Counter({"mmlu": 1, "physics": 1, "results": 1, "chain": 1, "thought": 1})
    assert known_share(["MMLU Physics", "MMLU"], vocab) == 1.0
    assert known_share(["MMLUPhysics", "Chainofthought"], vocab) == 0.0
    assert known_share(["41.2", "55.0"], vocab) == 1.0  # no words: nothing lost
