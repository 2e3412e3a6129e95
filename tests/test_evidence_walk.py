"""``evidence_units``: every unit the hits hand over, each once, on real table rows of the synthetic
English guideline (MinerU 4.0.12 flash tier)."""

from __future__ import annotations

from pathlib import Path

import pytest

from structaware_readers.load.loader import load_document
from structaware_readers.models import Unit, UnitType
from structaware_readers.units import build_units
from structaware_retrievers.search.evidence import evidence_units
from structaware_retrievers.search.results import SearchHit

EN = Path(__file__).resolve().parent / "fixtures" / "mineru" / "mineru-4.0.12_flash-tier_synthetic_guideline_en"


@pytest.fixture(scope="module")
def rows() -> list[Unit]:
    found = [u for u in build_units(load_document(EN)) if u.unit_type is UnitType.TABLE_ROW]
    assert len(found) >= 52
    return found


def _walk(hits: list[SearchHit]) -> list[tuple[str, str | None]]:
    return [(u.unit_id, via) for _, u, via in evidence_units(hits)]


def test_a_hit_given_as_a_neighbour_still_hands_over_its_group_rows(rows: list[Unit]) -> None:
    """The second hit's row was handed over as the first hit's neighbour; its group rows were then
    marked given without being given, and an expanded answer lost them (its text held them nowhere)."""
    a, b, c, d = rows[20], rows[21], rows[40], rows[41]
    first = SearchHit(unit=a, score=1.0, rank=1, neighbours=[b])
    second = SearchHit(unit=b, score=0.9, rank=2, group=[c, d])
    assert _walk([first, second]) == [
        (a.unit_id, None),
        (b.unit_id, a.unit_id),
        (c.unit_id, b.unit_id),
        (d.unit_id, b.unit_id),
    ]
    # a group row given already (the first hit's neighbour) is not given again
    second = SearchHit(unit=b, score=0.9, rank=2, group=[c, rows[19]])
    first = SearchHit(unit=a, score=1.0, rank=1, neighbours=[rows[19], b])
    assert _walk([first, second]) == [
        (a.unit_id, None),
        (rows[19].unit_id, a.unit_id),
        (b.unit_id, a.unit_id),
        (c.unit_id, b.unit_id),
    ]


def test_a_new_hit_hands_over_its_group_inside_its_own_record(rows: list[Unit]) -> None:
    """The trap: a hit whose own unit is new gives its rows in its record (``hit_unit``), not again one by one."""
    first = SearchHit(unit=rows[20], score=1.0, rank=1, neighbours=[rows[21]])
    other = SearchHit(unit=rows[50], score=0.8, rank=2, group=[rows[51]])
    walk = list(evidence_units([first, other]))
    assert [(u.unit_id, via) for _, u, via in walk] == [
        (rows[20].unit_id, None),
        (rows[21].unit_id, rows[20].unit_id),
        (rows[50].unit_id, None),
    ]
    held = walk[2][1].text  # the record's text: the hit's row, then its group row
    assert held.startswith(rows[50].text) and len(held) > len(rows[50].text)
