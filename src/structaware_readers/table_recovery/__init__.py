"""Grids for tables the parser left without cell structure, rebuilt from the PDF's text layer.

Parsers often find a table's *region* but not its cells: MinerU's flash tier gives borderless tables
as ``table`` blocks whose body is space-aligned text, or as ``image`` blocks whose text is one column
of it; Unstructured gives a ``Table`` without ``text_as_html``. When the PDF is at hand, the rows and
columns inside each such region are rebuilt from the PDF's text layer (pdfplumber); without it, from
the parser's own space-aligned text. A table whose grid cannot be rebuilt keeps its text (searchable as
section text) and gets a warning naming its page and element in ``ParsedDocument.warnings``; the
document is never aborted for it. The reader's own warning about a table without cell markup
(:func:`structaware_readers.tables.table_warning`) is replaced by the outcome here.

One entry point, :func:`recover_tables` (:mod:`.pipeline`; :func:`recover_table_grids` for stages 1-7
with a given PDF), runs the stages in order over one shared record (:class:`~.record.Recovery`: the blocks as the
stages change them, the blocks each stage works on, absorbed pieces, warnings; a rebuilt grid names
its source in ``TableGrid.grid_source``). The stages, in the order of their modules:

1. :mod:`.stage1_select` -- which blocks need a grid, which tables the parser split into pieces,
   which parser markup to check;
2. :mod:`.stage2_find_pdf` -- the PDF a parser output was made from, found and opened (a PDF whose
   page count differs from the document's is not its PDF: ignored with a warning);
3. :mod:`.stage3_split_tables` -- a table split into pieces or partly missed, read as one region;
4. :mod:`.stage4_text_layer` -- an ungridded table or image region read from the text layer, else
5. :mod:`.stage5_parser_text` -- from the parser's space-aligned text;
6. :mod:`.stage6_markup_check` -- parser markup whose header the text layer does not hold, or whose
   rows stack items (a dose table's drugs), replaced by the text layer's grid when that keeps the
   body's figures and reads the document's own words at least as well (a table merged across pages:
   part by part);
7. :mod:`.stage7_continued` -- tables continued across pages whose grid was rebuilt, merged;
8. :mod:`.stage8_row_boxes` -- each body row's own box on the page, from PDFium's text layer, where
   the grid has none (parser markup).

The tools the stages share: :mod:`.split_regions` (finding a split table's pieces on a page),
:mod:`.pdf_text_layer` (a page region -> grid) and :mod:`.parser_text` (aligned text -> grid), both
through :mod:`.grid_rules` (positioned phrases -> rows and columns); :mod:`.reading_direction` (words
read in each glyph's direction), :mod:`.ruling` (shading strips that are no cell borders),
:mod:`.stacked_rows` (items stacked in one ruled row) and :mod:`.panels` (a header printed again
inside the body -> band rows).
"""

from structaware_readers.table_recovery.pipeline import recover_table_grids, recover_tables
from structaware_readers.table_recovery.record import PdfSource, Recovery
from structaware_readers.table_recovery.stage1_select import has_grid, needs_grid, needs_recovery
from structaware_readers.table_recovery.stage2_find_pdf import find_pdf, text_layer_reader
from structaware_readers.table_recovery.stage4_text_layer import MIN_IMAGE_DATA_ROWS

__all__ = [
    "MIN_IMAGE_DATA_ROWS",
    "PdfSource",
    "Recovery",
    "find_pdf",
    "has_grid",
    "needs_grid",
    "needs_recovery",
    "recover_table_grids",
    "recover_tables",
    "text_layer_reader",
]
