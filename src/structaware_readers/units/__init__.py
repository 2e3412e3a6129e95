"""The unit builder: a parsed document's blocks -> structure-aware evidence units.

One linear pass over the blocks in reading order, tracking the heading path (the reference paper,
section 2.3), emits:

* ``section``: the paragraphs under a heading, context ``Section: A > B > C``, split at paragraph
  (then sentence) ends into parts of at most ``UnitOptions.max_section_chars`` characters;
* ``table_row``: one per body row, ``header: value; ...``, context naming the table, its columns,
  group label and footnotes; recommendation tables give graded ``recommendation`` units instead;
* ``flow_path``: one per directed edge ``A -(label)-> B`` of a Mermaid flowchart;
* ``recommendation``: a graded statement or recommendation wording, grade in ``Unit.grade``;
* ``figure``: a figure's caption and the text read inside it;
* ``reference`` and ``front_matter``: bibliography and apparatus, left out of search unless a
  filter names them.

Lists, equations, code and footnotes join their section; page furniture never becomes unit text.

Modules: :mod:`.builder` (the pass, section units, ids), one emitter per unit kind
(:mod:`.table_rows`, :mod:`.table_recommendations`, :mod:`.recommendations`, :mod:`.flowcharts`,
:mod:`.figures`), each handed the pass as an :class:`~.context.EmitContext`; :mod:`.options`.
"""

from structaware_readers.units.builder import UnitBuilder, build_units
from structaware_readers.units.options import UnitOptions

__all__ = ["UnitBuilder", "UnitOptions", "build_units"]
