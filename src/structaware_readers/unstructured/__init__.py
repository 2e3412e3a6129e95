"""Unstructured output -> :class:`ParsedDocument`: the second parser route next to :mod:`..mineru`.

Public API::

    read_unstructured(src, *, name=None, partition_kwargs=None) -> ParsedDocument
    spacy_model_installed() -> bool

One module per job: :mod:`.load` (paths, JSON/NDJSON, in-memory elements, partitioning raw
files), :mod:`.records` (elements validated, ``orig_elements`` expanded, coordinates
normalised), :mod:`.blocks` (records -> typed blocks), :mod:`.hierarchy` (heading levels),
:mod:`.tables` (tables and table chunks), :mod:`.captions` (captions attached to their figure
or table), :mod:`.reader` (the document).

Accepted inputs (:func:`~.reader.read_unstructured`):

* a list of ``unstructured`` ``Element`` objects (anything with ``to_dict()``);
* a list of element dicts ``{type, element_id, text, metadata}`` (``elements_to_dicts``);
* a path to an elements JSON file as ``elements_to_json`` and the hosted API write it (a JSON
  array; also NDJSON from ``elements_to_ndjson``, and ``{"elements": [...]}``);
* a path to a raw document (pdf, docx, html, md, ...), partitioned by ``unstructured`` here.

**Offline use.** Unstructured 0.27.x needs the spaCy model ``en_core_web_sm`` 3.8.0 to classify
text and downloads it on first use; offline, ``partition_html``/``_md``/``_docx`` raise and
``partition_pdf(strategy="fast")`` silently returns no element. That model is not published as a
package on the Python package index (``pip download en_core_web_sm==3.8.0`` finds nothing), so
the raw-file route works only where the model is installed (its wheel from spaCy's model
releases); without it :class:`ParserUnavailableError` is raised before partitioning, never an
empty result (the check is the one ``spacy.load`` makes: an installed distribution named
``en_core_web_sm``). Formats also need their ``unstructured`` extras: HTML and DOCX work with the
base install plus ``python-docx``; Markdown needs ``unstructured[md]`` and PDF ``unstructured[pdf]``
(a missing extra is reported as :class:`ParserUnavailableError` too). ``DO_NOT_TRACK=1`` and
``UNSTRUCTURED_DISABLE_NOTICE=1`` are set (unless already set) before ``unstructured`` is imported,
to stop its telemetry and its stdout notice. The documented offline route is: partition where the
model exists, save with ``elements_to_json``, and read the JSON here.

Mapping (element ``type`` = Unstructured category; ``source_type`` keeps it):

==========================================  =============================================
``Title``                                   HEADING; level from the ``<hN>`` tag of
                                            ``text_as_html`` (HTML v2 output), else
                                            ``category_depth + 1``, else 1 + the number of
                                            Title ancestors when the ``parent_id`` chain is
                                            intact, else numbering and title order
                                            (:mod:`.hierarchy`)
``NarrativeText``, ``UncategorizedText``,   PARAGRAPH (an HTML-v2 ``class="Footnote"`` element
``Text``, other text categories             is a FOOTNOTE)
``ListItem``                                LIST; consecutive items on one page under the same
                                            parent (nested items included), stacked one below
                                            the other, form **one** LIST block with ``items``
                                            (as MinerU's list blocks); an item in another
                                            column starts a new block
``Table``                                   TABLE; grid from ``text_as_html``
                                            (:func:`tables.parse_html_table`), else from
                                            ``table_as_cells``, else from text with line and
                                            cell breaks; no usable markup (absent, or
                                            ``<table></table>``) and a flat text: no grid, a
                                            warning, the text stays section text; markup
                                            missing words of ``text``: a warning, and
                                            ``TableGrid.text_outside_grid`` keeps the text
``TableChunk``                              the original table: expanded from ``orig_elements``
                                            when present, else rebuilt from the chunks sharing
                                            ``table_id`` (``chunk_index`` order, the first
                                            ``num_carried_over_header_rows`` rows of every later
                                            chunk dropped; ``extra_pages`` and
                                            ``TableGrid.body_row_pages`` set when the chunks
                                            lie on several pages)
``FigureCaption``                           its text becomes the ``caption`` of the figure/table
                                            it belongs to (by geometry with coordinates, else the
                                            neighbouring element in parser order, past stray
                                            text of at most 20 characters; "Table ..." /
                                            "Figure ..." prefixes decide between a previous and
                                            a next one), and no separate block is kept;
                                            a caption with no such neighbour stays a CAPTION
``Image``                                   FIGURE
``Formula``                                 EQUATION
``CodeSnippet``                             CODE, or FLOWCHART with ``Block.mermaid`` when it is
                                            Mermaid flowchart source (a ```` ```mermaid ````
                                            fence, or text starting ``flowchart``/``graph``:
                                            ``partition_md`` strips the fence)
``Header`` / ``Footer`` / ``PageNumber``    HEADER / FOOTER / PAGE_NUMBER (page furniture)
``PageBreak``, elements with no text        dropped (tables and images are kept)
``CompositeElement``                        its ``orig_elements`` (base64 zlib JSON) expanded
                                            and read as above; without them, a PARAGRAPH
==========================================  =============================================

Coordinates ``{points, system, layout_width, layout_height}`` are converted to 0..1 of the page
with a top-left origin: ``PixelSpace`` has a top-left origin; ``PointSpace`` and
``RelativeCoordinateSystem`` have a bottom-left origin (Unstructured's ``Orientation.CARTESIAN``)
and are flipped. Pages are ``metadata.page_number`` (1-based), 1 when absent (HTML, Markdown).
Block ids are ``p{page}-e{j}`` with ``j`` the 0-based position of the block's first element
among that page's elements in Unstructured's output order (after ``orig_elements`` expansion),
so ids have gaps where elements were dropped, grouped or merged. The reader keeps the parser's
order; :func:`structaware_readers.structure.reading_order.restore_reading_order` restores a layout order.
"""

from __future__ import annotations

from structaware_readers.unstructured.load import SPACY_MODEL, spacy_model_installed
from structaware_readers.unstructured.reader import read_unstructured

__all__ = ["SPACY_MODEL", "read_unstructured", "spacy_model_installed"]
