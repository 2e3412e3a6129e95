"""Grids for tables the parser left without cell structure, rebuilt from the PDF's text layer.

Parsers often find a table's region but not its cells. With the PDF at hand, rows and columns are
rebuilt from its text layer (pdfplumber), else from the parser's space-aligned text; a table that
cannot be rebuilt keeps its text and gets a warning in ``ParsedDocument.warnings`` (the document is
never aborted for it).

:func:`recover_tables` (:mod:`.pipeline`) runs the stages, in the order of their modules
``stage1_select`` ... ``stage8_row_boxes``, over one :class:`~.record.Recovery` record; a rebuilt
grid names its source in ``TableGrid.grid_source``. Shared tools: :mod:`.split_regions`,
:mod:`.pdf_text_layer`, :mod:`.parser_text`, :mod:`.grid_rules`, :mod:`.reading_direction`,
:mod:`.ruling`, :mod:`.stacked_rows`, :mod:`.panels`.
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
