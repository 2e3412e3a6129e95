"""Settings of the unit builder (:func:`structaware_readers.units.build_units`)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from structaware_readers.common.validation import first_problem
from structaware_readers.errors import MalformedInputError

#: default section part size (characters of text), chosen on the development benchmark
DEFAULT_MAX_SECTION_CHARS = 600


class UnitOptions(BaseModel):
    """Settings of :func:`build_units` (lengths in characters).

    Raises:
        MalformedInputError: a value out of range or of the wrong type, or a setting that does not exist
            (field ``unit_options.<name>``).
    """

    model_config = ConfigDict(extra="forbid")

    def __init__(self, **settings: Any) -> None:
        try:
            super().__init__(**settings)
        except ValidationError as exc:
            name, msg = first_problem(exc, type(self).model_fields)
            got = next((e.get("input") for e in exc.errors() if ".".join(map(str, e["loc"])) == name), None)
            raise MalformedInputError(f"{msg} (got {got!r})", field=f"unit_options.{name or 'unit_options'}") from None

    max_section_chars: int = Field(
        DEFAULT_MAX_SECTION_CHARS,
        ge=100,
        description=(
            "split a section into parts of at most this size (paragraphs, then sentences); 600 measured"
            " best on the development benchmark: +0.09 page hit within 2,000 characters over 1,000 at"
            " the same Page Hit@5 (docs/benchmarks/retrieval.md, 'Retrieval that beats chunking')"
        ),
    )
    figure_units: bool = Field(True, description="emit figure units for captioned or text-bearing figures")
    recommendation_units: bool = Field(True, description="split graded paragraphs out of sections")
    include_context: bool = Field(True, description="False gives empty contexts (the paper's 4.4 ablation)")
    document_context: bool = Field(
        True,
        description=(
            "start each table row's context with the document it belongs to, when the document names itself"
            " on a filing cover page ('Document: JPMorgan Chase & Co. Form 10-Q for the period ended June 30,"
            " 2022', structaware_readers.units.filing_cover); +0.025 table Page Hit@5 on OHR-Bench finance"
            " (docs/benchmarks/tables.md, 'Table retrieval'). Documents without a cover are unchanged."
            " Flow paths end their context with the same label, else the document's title ('Document: VA/DoD Clinical"
            " Practice Guideline for ... Hypertension ...'): a figure titled 'Algorithm' does not say whose it is"
            " (+2 flowchart questions on the CPG set, docs/benchmarks/cpg-retrieval.md)"
        ),
    )
    abbreviation_expansions: bool = Field(
        True,
        description=(
            "give each unit the long forms of the abbreviations it uses without spelling them out (as the"
            " document defines them: 'electroconvulsive therapy (ECT)', an abbreviation list; Unit.expansions),"
            " indexed by BM25 with its text and never handed over, so a question in the long form finds the"
            " short one (structaware_readers.units.abbreviations; docs/benchmarks/cpg-retrieval.md)"
        ),
    )
    merge_repeated_statements: bool = Field(
        True,
        description=(
            "one recommendation unit for a statement printed twice (a summary of recommendations and the chapter),"
            " with both places' pages and elements (structaware_readers.units.repeated_statements)"
        ),
    )
    text_table_rows: bool = Field(
        False,
        description=(
            "one row unit per line of a table the parser left as space-aligned text (no grid); off: the"
            " table stays one section text. Measured on OHR-Bench (docs/benchmarks/evaluation-finance.md): -26% context and"
            " +0.08 page hit at a 1,000-character budget, but -0.03 Page Hit@5 with unlimited context"
        ),
    )
