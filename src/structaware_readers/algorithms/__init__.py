"""Clinical algorithms (decision flowcharts) read into :class:`~structaware_readers.mermaid.Flowchart`
form, whatever way the document gives them: :mod:`.alt_text` reads the wording of an algorithm's
text description, :mod:`.described` turns a document's descriptions into flowchart blocks placed on
the algorithm's page. The unit builder makes one ``flow_path`` unit per edge
(:mod:`structaware_readers.units.flowcharts`)."""

from structaware_readers.algorithms.alt_text import Description, parse_alt_text
from structaware_readers.algorithms.described import attach_described_algorithms

__all__ = ["Description", "attach_described_algorithms", "parse_alt_text"]
