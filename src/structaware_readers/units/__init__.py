"""The unit builder: a parsed document's blocks -> structure-aware evidence units.

Source: the reference paper, section 2.3 ("we traverse each page's typed elements in reading order,
tracking the most recent heading as the running section context, and emit one unit per structural
element in a single linear pass"), with the fixes for the weaknesses the paper names itself
(sections 4.3, 4.5, 5):

* **section** units: the paragraphs under a heading, with context ``Section: A > B > C`` (the whole
  heading path, not only the last heading). A long section is split at paragraph boundaries into
  parts of at most ``UnitOptions.max_section_chars`` characters (a single paragraph longer than that is
  split at sentence ends), so a unit stays focused instead of diluting its gold paragraph.
* **table_row** units: one per body row, rendered ``header: value; header: value`` with multi-row
  headers joined (``Dose / Adults``); a merged cell a parser repeated across columns under one header
  is written once, and columns without a header give their value alone; context = ``Table: <caption>
  [> <title row>] | Columns: h1; h2 | Section: <path>``, then ``Group: <label>`` and the table's notes.
  Row kinds (:class:`.table_view.RowKind`): a short full-width row (one value spanning all columns)
  or a band row (first cell only, three or more columns) labels the rows below it (``Group:``); a
  long full-width row (supporting text) or a label with no data row below it is a unit of its own,
  never graded; an empty row or a repeat of the row above is dropped. Footnotes: an entry of the
  table's footnote whose marker (``^a``, from ``<sup>a</sup>``/``<eq>^a</eq>``) a row carries goes
  to that row's context (``Note a: ...``); a legend entry for a symbol printed as a whole cell
  (``Xa: Examinations should be performed after Roux-en-Y gastric bypass``) goes to the rows that
  print it (``Note Xa: ...``); unmarked footnote text goes to every row's context (``Note: ...``).
  Grades are read from grade columns (``Grade``, ``Category``, ``Class``...; header and value), else
  from the row text. A recommendation table (class, level and recommendation
  columns, ACC/AHA style) gives one graded ``recommendation`` unit per recommendation instead
  (:mod:`.table_recommendations`). In a mostly numeric table, leading number-free body rows that
  complete the header (text under an empty or spanning header cell, or an empty stub cell) join the
  header; a row under a complete header is data and stays (:func:`.table_rows.repair_header`). A
  table without a readable grid is one section unit of its own (caption, text, footnote); a grid
  whose markup missed part of the parser's text (``TableGrid.text_outside_grid``) also keeps that
  text as such a unit. A table the parser left as
  space-aligned text (MinerU's flash tier on borderless tables: no grid) stays section text by
  default; with ``UnitOptions(text_table_rows=True)`` it gives one row unit per line with a label and
  a number (``Net income: $8,649, $11,948``, wrapped labels joined), its header lines as ``Columns:``
  (a trade-off measured in docs/benchmarks/evaluation-finance.md: less context, better page hits
  under a budget, lower Page Hit@5 without one).
* **flow_path** units: one per directed edge of a Mermaid flowchart, ``A -(label)-> B``; context =
  ``Flowchart: <figure title> | Section: <path> | Document: <document title>`` (the document's title
  when it has one the figure title does not hold). Node labels in any language.
* **recommendation** units: a paragraph or list item that carries an evidence grade or explicit
  recommendation wording (:mod:`structaware_readers.grades`), with the grade parsed into ``Unit.grade``;
  context = the parent section. Such paragraphs are *not* repeated inside the section unit.
* **figure** units (our addition): a figure's caption plus any text the parser read inside it, so a
  question about a figure lands on the figure element; a flowchart whose Mermaid source cannot be
  parsed falls back to a figure unit.

* **reference** and **front_matter** units (text that is not evidence): bibliography entries
  (REFERENCE blocks, :mod:`structaware_readers.structure.references`) and a document's apparatus (FRONT_MATTER
  blocks: contents lines, authors, affiliations, conflicts of interest, notices;
  :mod:`structaware_readers.structure.front_matter`), collected apart from the section they sit in, split like
  sections, with the section's context; never section text, never recommendations. A search leaves
  them out unless its filter names their type.

Decisions for the other element kinds: lists join their section (one line per item), except graded
items, which become recommendation units; equations, code, footnotes and stand-alone captions join
their section as text. Page furniture (headers, footers, page numbers, asides) never becomes unit text.

Modules: :mod:`.builder` (the pass over blocks, section units, ids), :mod:`.table_rows` (with
:mod:`.table_view`, the table read once, and :mod:`.table_recommendations`), :mod:`.recommendations`,
:mod:`.flowcharts`, :mod:`.figures` (one unit kind each; each receives the pass as an
:class:`~.context.EmitContext`, :mod:`.context`), :mod:`.options`.
"""

from structaware_readers.units.builder import UnitBuilder, build_units
from structaware_readers.units.options import UnitOptions

__all__ = ["UnitBuilder", "UnitOptions", "build_units"]
