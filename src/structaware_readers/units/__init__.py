"""The unit builder: a parsed document's blocks -> structure-aware evidence units.

One pass over the blocks in reading order, tracking the heading path, emits ``section`` (paragraphs under a
heading, at most ``UnitOptions.max_section_chars`` characters a part), ``table_row`` (one per body row,
``header: value; ...``), ``flow_path`` (one per flowchart edge), ``recommendation`` (graded statements), ``figure``,
and ``reference`` / ``front_matter`` (left out of search unless a filter names them). Page furniture never becomes
unit text.
"""

from structaware_readers.units.builder import UnitBuilder, build_units
from structaware_readers.units.options import UnitOptions

__all__ = ["UnitBuilder", "UnitOptions", "build_units"]
