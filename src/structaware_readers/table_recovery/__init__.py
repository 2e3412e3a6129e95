"""Grids for tables the parser left without cell structure, rebuilt from the PDF's text layer.

Rows and columns come from the PDF's text layer, else from the parser's space-aligned text; a table that cannot
be rebuilt keeps its text and a warning. :func:`recover_tables` runs the stages, in order:

1. :mod:`.stage1_select` -- which blocks the later stages work on;
2. :mod:`.stage2_find_pdf` -- the PDF found and opened (its page count must be the document's);
3. :mod:`.stage3_split_tables` -- a table split into pieces read as one region;
4. :mod:`.stage4_text_layer` -- an ungridded region read from the text layer, else
5. :mod:`.stage5_parser_text` -- from the parser's space-aligned text;
6. :mod:`.stage6_markup_check` -- parser markup that garbles the header or stacks items, replaced; phrases cut
   at column borders given back whole (:mod:`.cut_phrases`);
7. :mod:`.stage7_continued` -- tables continued across pages merged;
8. :mod:`.stage8_row_boxes` -- each body row's own box on the page.
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
