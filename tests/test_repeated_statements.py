"""A recommendation printed twice (in a summary near the front and in its chapter) is one unit with both places.

Documents built here in the style of a journal guideline's summary of recommendation statements pin
:mod:`structaware_readers.units.repeated_statements`: the merged unit keeps the chapter copy (its context and
the discussion's link), the pages and elements of both copies in reading order, and its grade; traps: a short
bullet said in two protocols and the same words under another grade stay two units.
"""

from __future__ import annotations

from structaware_readers.models import Block, BlockKind, ParsedDocument, Unit, UnitType
from structaware_readers.units import UnitOptions, build_units
from structaware_readers.units.repeated_statements import merge_repeated

K = BlockKind
REC = (
    "Recommendation 2.1.1: We recommend supervised exercise therapy for every adult with knee osteoarthritis,"
    " whatever the severity seen on imaging (1B)."
)
POINT = "Practice Point 2.1.2: Check urine at each visit."
BULLET = "• ask about sleep at every review"


def _doc(*specs: tuple) -> ParsedDocument:
    """Blocks from ``(kind, text, page[, level])``; ids ``p{page}-e{j}``; bboxes one line per block."""
    blocks = [
        Block(
            block_id=f"p{page}-e{j}",
            kind=kind,
            text=text,
            page=page,
            bbox=(0.1, 0.05 * (j % 15 + 1), 0.9, 0.05 * (j % 15 + 1) + 0.04),
            **({"level": rest[0]} if rest else {}),
        )
        for j, (kind, text, page, *rest) in enumerate(specs)
    ]
    return ParsedDocument(
        doc_id="r" * 16,
        source="g.pdf",
        name="g",
        parser="mineru",
        page_count=max(b.page for b in blocks),
        blocks=blocks,
    )


def _guideline(chapter_grade: str = "(1B)") -> ParsedDocument:
    return _doc(
        (K.HEADING, "Summary of recommendation statements and practice points", 2, 1),
        (K.HEADING, "2.1 Exercise", 2, 2),
        (K.PARAGRAPH, REC, 2),
        (K.PARAGRAPH, POINT, 2),
        (K.HEADING, "Chapter 2: Knee osteoarthritis", 5, 1),
        (K.PARAGRAPH, "Knee osteoarthritis is most common after the age of fifty.", 5),
        (K.HEADING, "2.1 Exercise", 5, 2),
        (K.PARAGRAPH, REC.replace("(1B)", chapter_grade), 6),
        (K.PARAGRAPH, POINT, 6),
        (K.HEADING, "Rationale", 6, 3),
        (K.PARAGRAPH, "Five trials compared supervised exercise with advice alone and found less pain at a year.", 6),
        (K.HEADING, "Protocol 1: Hypertension", 7, 1),
        (K.PARAGRAPH, BULLET, 7),
        (K.HEADING, "Protocol 2: Diabetes", 8, 1),
        (K.PARAGRAPH, BULLET, 8),
    )


def _recs(units):
    return [u for u in units if u.unit_type is UnitType.RECOMMENDATION]


def test_a_statement_in_the_summary_and_in_its_chapter_is_one_unit_with_both_places() -> None:
    units = build_units(_guideline())
    recs = [u for u in _recs(units) if u.text.startswith("Recommendation 2.1.1")]
    assert len(recs) == 1
    rec = recs[0]
    assert rec.pages == [2, 6]
    assert rec.element_ids == ["p2-e2", "p6-e7"]
    assert rec.element_pages == [2, 6]
    assert len(rec.bboxes) == 2 and all(b is not None for b in rec.bboxes)
    assert rec.section_path[0] == "Chapter 2: Knee osteoarthritis"  # the chapter's copy is kept
    assert rec.grade is not None and rec.grade.grade == "1B"
    # a numbered practice point short of a sentence's length is one statement too
    points = [u for u in _recs(units) if u.text == POINT]
    assert [p.pages for p in points] == [[2, 6]]
    # the discussion still brings the statements it discusses, and no link points at a dropped copy
    discussion = next(u for u in units if u.text.startswith("Five trials"))
    assert discussion.linked_ids == [rec.unit_id, points[0].unit_id]
    assert [u.ordinal for u in units] == list(range(len(units)))
    # the option gives both copies back
    both = build_units(_guideline(), UnitOptions(merge_repeated_statements=False))
    assert len([u for u in _recs(both) if u.text.startswith("Recommendation 2.1.1")]) == 2


def test_a_short_bullet_in_two_protocols_and_another_grade_stay_two_units() -> None:
    units = build_units(_guideline(chapter_grade="(2C)"))
    recs = [u for u in _recs(units) if u.text.startswith("Recommendation 2.1.1")]
    assert sorted(u.grade.grade for u in recs if u.grade) == ["1B", "2C"]
    assert sorted(u.pages[0] for u in recs) == [2, 6]
    bullets = [u for u in units if BULLET.strip("• ") in u.text]
    assert sorted(p for u in bullets for p in u.pages) == [7, 8]
    assert all(len(u.pages) == 1 for u in bullets)


def _unit(ordinal: int, text: str, page: int, path: str) -> Unit:
    return Unit(
        unit_id=f"u{ordinal}",
        unit_type=UnitType.RECOMMENDATION,
        text=text,
        context=f"Section: {path}",
        doc_id="r" * 16,
        pages=[page],
        element_ids=[f"p{page}-e{ordinal}"],
        bboxes=[(0.1, 0.2, 0.9, 0.3)],
        element_pages=[page],
        section_path=[path],
        ordinal=ordinal,
    )


def test_a_summary_copy_that_runs_on_is_the_chapter_copy_with_its_following_lines() -> None:
    """The summary prints a practice point with the lines below it; the chapter's unit ends at the point."""
    point = "Practice Point 3.1: Refer adults whose knee locks to an orthopaedic surgeon."
    tail = "\nBriefly: a knee that locks often holds a loose body or a torn meniscus."
    other = "Practice Point 3.1.2: Refer adults whose knee locks to an orthopaedic surgeon."
    units = [
        _unit(0, point + tail, 2, "Summary"),
        _unit(1, other, 2, "Summary"),
        _unit(2, "Locking is rarer than pain or stiffness.", 5, "Chapter 3"),
        _unit(3, point, 5, "Chapter 3"),
        _unit(4, other, 5, "Chapter 3"),
    ]
    units[2] = units[2].model_copy(update={"unit_type": UnitType.SECTION, "linked_ids": ["u3", "u4"]})
    # a unit that names both copies of one statement names the kept one once
    units.append(units[2].model_copy(update={"unit_id": "u5", "ordinal": 5, "linked_ids": ["u1", "u4"]}))
    merged = merge_repeated(units)
    assert [u.unit_id for u in merged] == ["u2", "u3", "u4", "u5"]
    assert merged[3].linked_ids == ["u4"]
    kept = merged[1]
    assert kept.text == point + tail  # the longest printed copy
    assert kept.context == "Section: Chapter 3" and kept.pages == [2, 5]
    assert kept.element_ids == ["p2-e0", "p5-e3"]
    # trap: 3.1.2 opens with the words of 3.1 but is another statement; its two copies are one unit
    assert merged[2].text == other and merged[2].pages == [2, 5]
    assert [u.ordinal for u in merged] == [0, 1, 2, 3]
    assert merged[0].linked_ids == ["u3", "u4"]
