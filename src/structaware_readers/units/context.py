"""What a unit emitter sees of the pass over a document: :class:`EmitContext`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from structaware_readers.grades.document import DocumentGrading
from structaware_readers.models import BBox, Block, FlowEdgeInfo, Grade, ParsedDocument, TableRowInfo, UnitType
from structaware_readers.units.options import UnitOptions

__all__ = ["EmitContext", "SectionPart"]


@dataclass
class SectionPart:
    """A piece of section text taken from one block, with the block's provenance."""

    text: str
    block: Block


class EmitContext(Protocol):
    """The pass's state and operations an emitter may use."""

    doc: ParsedDocument
    options: UnitOptions
    grading: DocumentGrading
    document: str
    path: list[tuple[int, Block]]
    pending: list[SectionPart]
    pending_heading: Block | None
    previous: Block | None
    following: Block | None
    box: Block | None

    @property
    def section_path(self) -> list[str]:
        """The heading texts from the top level down to the current section."""
        ...

    def section_context(self, *, discussed: bool = True) -> str:
        """``Section: A > B > C`` for the current path, ``""`` at the top of the document; under a
        discussion heading also ``Discusses: ...`` unless ``discussed`` is False."""
        ...

    def emit(
        self,
        unit_type: UnitType,
        text: str,
        context: str,
        blocks: list[Block],
        *,
        pages: list[int] | None = None,
        grade: Grade | None = None,
        table: TableRowInfo | None = None,
        flow: FlowEdgeInfo | None = None,
        extra: str = "",
        refs: list[tuple[str, BBox | None, int]] | None = None,
        more_refs: list[tuple[str, BBox | None, int]] | None = None,
    ) -> None:
        """Append one unit made from ``blocks`` (its pages, element ids and bboxes unless ``pages``
        or ``refs`` say otherwise); ``extra`` tells units of the same blocks apart in their ids
        (a row or edge index); ``more_refs`` are regions outlined too, not part of its id. Empty
        ``text`` adds nothing."""
        ...

    def flush_section(self) -> None:
        """Emit the section text collected so far, so units that follow come after it."""
        ...

    def on_text(self, block: Block, text: str) -> None:
        """Hand ``text`` of ``block`` to the pass as body text (a recommendation unit or section text)."""
        ...

    def add_section_text(self, block: Block, text: str) -> None:
        """Append ``text`` of ``block`` to the section being collected."""
        ...

    def attach_grade_line(self, block: Block, text: str, grade: Grade) -> bool:
        """Attach a text that is only a grade to the ungraded recommendation just emitted; False
        when there is none."""
        ...

    def lead_in(self, table: Block) -> str:
        """The paragraph just before ``table`` when it reads as the table's title, else ``""``."""
        ...
