"""Mermaid flowchart parser: ``flowchart``/``graph`` source -> nodes, labelled edges, subgraphs.

Paper section 2.3 builds one *flow path* unit per directed edge ``A -(label)-> B`` of a Mermaid
flowchart, and section 5 names the weakness of its regex-based extraction: nested structures
were missed and only English was covered. This module is a small scanner plus statement parser
(no dependencies) for the flowchart grammar as documented by Mermaid:

* headers ``graph``/``flowchart``/``flowchart-elk`` with ``TB``/``TD``/``BT``/``RL``/``LR`` (and
  the old ``>``/``<``/``^``/``v``); YAML front matter (``---`` / ``title: ...`` / ``---``) gives
  :attr:`Flowchart.title`; ``%%`` comments and ``%%{init: ...}%%`` directives are skipped;
* every node shape (``[ ]``, ``( )``, ``([ ])``, ``[[ ]]``, ``[( )]``, ``(( ))``, ``((( )))``,
  ``> ]``, ``{ }``, ``{{ }}``, ``[/ /]``, ``[\\ \\]``, ``[/ \\]``, ``[\\ /]``) and the
  ``A@{ shape: ..., label: "..." }`` form; quoted labels (which may hold brackets and arrows),
  Markdown strings ``"`**bold**`"``, ``<br>`` -> space, other HTML tags dropped, entities
  (``#quot;``, ``#35;``, ``&amp;``) decoded, ``fa:fa-icon`` names dropped, ``:::class`` suffixes;
* every link: ``-->``, ``---``, ``-.->``, ``-.-``, ``==>``, ``===``, ``--o``, ``--x``,
  ``<-->``, ``o--o``, ``x--x``, ``<==>``, ``<-.->``, longer ones (``--->``, ``====>``,
  ``-..->``), invisible ``~~~``; labels as ``-->|yes|``, ``-- yes -->``, ``-. maybe .->``,
  ``== sure ==>``, ``-- "quoted" -->``; edge ids ``A e1@--> B``;
* chains ``A --> B --> C`` and ``&`` groups ``A & B --> C & D`` (every pair);
* ``subgraph id [title]`` ... ``end``, nested to any depth, and edges to subgraph ids;
* ``style``, ``classDef``, ``class``, ``linkStyle``, ``click``, ``direction``, ``accTitle``,
  ``accDescr`` and edge-property lines (``e1@{ animate: true }``) are skipped;
* statements separated by newlines or ``;``; Unicode (e.g. Chinese) ids and labels.

Decisions
    * A bidirectional link (``<-->``, ``o--o``, ``x--x``: a marker at both ends) gives **two**
      edges, ``A -> B`` then ``B -> A``, with the same label.
    * Open links (``---``, ``-.-``, ``===``) are kept as edges in writing order (``head="open"``);
      invisible links (``~~~``) only position nodes and give **no** edge.
    * A node referenced without a shape gets its id as label; when a node is given several
      labels the last one wins (Mermaid's rule). Subgraph ids used as edge endpoints resolve to
      the subgraph title and are not listed in :attr:`Flowchart.nodes`.
    * Another Mermaid diagram type (``sequenceDiagram``, ``classDiagram``, ...) raises
      :class:`NotAFlowchartError` (a :class:`~structaware_readers.errors.MalformedInputError`),
      so callers can fall back to the figure text. Text with no diagram header, an unparsable
      statement (with ``strict=True``, the default) or a flowchart without any node raises
      :class:`~structaware_readers.errors.MalformedInputError` naming line and column. With
      ``strict=False`` a bad statement is skipped and listed in :attr:`Flowchart.skipped`.
    * Source wrapped in a Markdown fence (MinerU's ``content`` of a ``flowchart`` image is a
      ```` ```mermaid ```` block) is unwrapped first.

Modules, in the order a source is read: :mod:`.fences` (Mermaid inside Markdown or a parser's
text), :mod:`.parser` (the header, front matter and statements; :func:`parse_mermaid`), which reads
characters through :mod:`.scanner` and label text through :mod:`.labels`, into :mod:`.model`;
:mod:`.writer` writes a model back as Mermaid source (:func:`to_mermaid`).
"""

from structaware_readers.mermaid.fences import find_flowchart_source, find_mermaid_blocks
from structaware_readers.mermaid.model import Flowchart, FlowEdge, NotAFlowchartError
from structaware_readers.mermaid.parser import parse_mermaid
from structaware_readers.mermaid.writer import to_mermaid

__all__ = [
    "FlowEdge",
    "Flowchart",
    "NotAFlowchartError",
    "find_flowchart_source",
    "find_mermaid_blocks",
    "parse_mermaid",
    "to_mermaid",
]
