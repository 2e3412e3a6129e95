"""What a user passes through the front door by mistake gets a typed error naming the field, and one path
given as a string is one input (not its characters)."""

from __future__ import annotations

from pathlib import Path

import pytest

import structaware
from structaware_retrievers.encoders import DenseEncoder

FIXTURE = Path(__file__).parent / "fixtures" / "mineru" / "mineru-4.0.12_flash-tier_borderless_tables"


def test_one_path_as_a_string_is_one_input(tmp_path: Path, letter_model) -> None:
    with structaware.StructureIndex(tmp_path / "ix", dense=DenseEncoder(model=letter_model)) as index:
        summary = index.ingest(str(FIXTURE))
        assert summary.failed == [] and summary.documents == 1 and summary.units > 0
        # the trap: a string that names no file is one missing input, not one per character
        missing = index.ingest(str(tmp_path / "no-such.pdf"))
        assert [f.path for f in missing.failed] == [str(tmp_path / "no-such.pdf")]


def test_a_reading_order_that_does_not_exist_is_a_typed_error() -> None:
    with pytest.raises(structaware.MalformedInputError) as err:
        structaware.load_document(FIXTURE, reading_order="xyz")
    assert err.value.field == "reading_order" and "'layout'" in str(err.value)
    assert isinstance(err.value, ValueError)  # still what the old plain ValueError was


@pytest.mark.parametrize(("field", "value"), [("k", "5"), ("rrf_k", 2.5), ("prefetch_limit", True)])
def test_a_count_of_the_wrong_type_names_its_field(field: str, value: object) -> None:
    with pytest.raises(structaware.MalformedInputError) as err:
        structaware.SearchOptions(**{field: value})
    assert err.value.field == field
    assert structaware.SearchOptions(**{field: 5}).as_dict()[field] == 5  # the trap: a whole number passes


@pytest.mark.parametrize(
    ("settings", "field", "says"),
    [
        ({"max_section_chars": 0}, "unit_options.max_section_chars", "greater than or equal to 100"),
        ({"max_chars": 600}, "unit_options.max_chars", "did you mean 'max_section_chars'"),
        ({"figure_units": "maybe"}, "unit_options.figure_units", "valid boolean"),
    ],
)
def test_unit_options_refuse_a_bad_or_unknown_setting_naming_it(settings: dict, field: str, says: str) -> None:
    with pytest.raises(structaware.MalformedInputError, match=says) as err:
        structaware.UnitOptions(**settings)
    assert err.value.field == field
    assert isinstance(err.value, structaware.StructawareError)


@pytest.mark.parametrize(
    ("settings", "field", "says"),
    [
        ({"unit_types": ["tabel_row"]}, "SearchFilter.unit_types", "unknown unit type(s) ['tabel_row']"),
        ({"page_from": 0}, "SearchFilter.page_from", "pages are 1-based, got 0"),
        ({"unit_type": ["table_row"]}, "SearchFilter.unit_type", "did you mean 'unit_types'"),
    ],
)
def test_search_filter_errors_say_what_is_wrong_in_plain_words(settings: dict, field: str, says: str) -> None:
    """The validator's own message, without pydantic's ``Value error, `` prefix, and a near miss named."""
    with pytest.raises(structaware.MalformedInputError) as err:
        structaware.SearchFilter(**settings)
    assert err.value.field == field and says in str(err.value)
    assert "Value error" not in str(err.value) and "Extra inputs" not in str(err.value)
    assert structaware.SearchFilter(unit_types=["table_row"], page_from=1).unit_types == ["table_row"]  # the trap


def test_unit_options_that_exist_are_taken_as_given() -> None:
    """The trap beside the refusals: known settings, strings pydantic reads as numbers, copies."""
    options = structaware.UnitOptions(max_section_chars="300", figure_units=False)
    assert options.max_section_chars == 300 and options.figure_units is False
    assert options.model_copy(update={"include_context": False}).include_context is False
