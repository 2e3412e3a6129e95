"""The unit builder: a parsed document's blocks -> structure-aware evidence units.

Source: the reference paper, section 2.3 ("we traverse each page's typed elements in reading order,
tracking the most recent heading as the running section context, and emit one unit per structural
element in a single linear pass"), with the fixes for the weaknesses the paper names itself
(sections 4.3, 4.5, 5):

* **section** units: the paragraphs under a heading, with context ``Section: A > B > C`` (the whole
  heading path, not only the last heading). A long section is split at paragraph boundaries into
  parts of at most ``UnitOptions.max_section_chars`` characters (a single paragraph longer than that is
  split at sentence ends), so a unit stays focused instead of diluting its gold paragraph.
* **table_row** units: one per body row, rendered ``header: value, header: value`` with multi-row
  headers joined (``Dose / Adults``); context = ``Table: <caption> | Columns: h1; h2 | Section: <path>``.
  A full-width group row (one value spanning all columns) or a label-only row (first cell only) is
  not a unit of its own: its label is carried into the context of the rows below it
  (``Group: <label>``). In a mostly numeric table, leading number-free body rows are header lines the
  parser left in the body (a two-line header) and join the header. A table the parser left as
  space-aligned text (MinerU's flash tier on borderless tables: no grid) stays section text by
  default; with ``UnitOptions(text_table_rows=True)`` it gives one row unit per line with a label and
  a number (``Net income: $8,649, $11,948``, wrapped labels joined), its header lines as ``Columns:``
  (a trade-off measured in BENCHMARKS.md: less context, better page hits under a budget, lower
  Page Hit@5 without one).
* **flow_path** units: one per directed edge of a Mermaid flowchart, ``A -(label)-> B``; context =
  ``Flowchart: <figure title> | Section: <path>``. Node labels in any language.
* **recommendation** units: a paragraph or list item that carries an evidence grade or explicit
  recommendation wording (:mod:`structaware_readers.grades`), with the grade parsed into ``Unit.grade``;
  context = the parent section. Such paragraphs are *not* repeated inside the section unit.
* **figure** units (our addition): a figure's caption plus any text the parser read inside it, so a
  question about a figure lands on the figure element; a flowchart whose Mermaid source cannot be
  parsed falls back to a figure unit.

Decisions for the other element kinds: lists join their section (one line per item), except graded
items, which become recommendation units; equations, code, footnotes, references and stand-alone
captions join their section as text. Page furniture (headers, footers, page numbers, asides) never
becomes unit text.

Modules: :mod:`.builder` (the pass over blocks, section units, ids), :mod:`.table_rows`,
:mod:`.recommendations`, :mod:`.flowcharts`, :mod:`.figures` (one unit kind each), :mod:`.options`.
"""

from structaware_readers.units.builder import UnitBuilder, build_units
from structaware_readers.units.options import UnitOptions

__all__ = ["UnitBuilder", "UnitOptions", "build_units"]
