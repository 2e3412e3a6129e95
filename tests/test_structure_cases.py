"""Document structure as parsers really emit it: the cases of ``../shared/cases`` (issue 10).

Each test reads a small input rebuilt from public bug reports through ``load_document`` (the
route every caller takes) and asserts the right values of the case's ``expected.md``:
heading depth from numbering (07), page furniture and cross-page paragraphs (08, 23), lists and
reference lists (24), Unstructured's broken hierarchy and ids (25) and chunked output (26).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from structaware_readers.errors import InputWarning
from structaware_readers.load.loader import load_document
from structaware_readers.models import BlockKind, Unit, UnitType
from structaware_readers.units import UnitOptions, build_units


def _case(shared_dir: Path, prefix: str) -> Path:
    (folder,) = (shared_dir / "cases").glob(f"{prefix}-*")
    return folder


def _units(path: Path, **options) -> list[Unit]:
    return build_units(load_document(path), UnitOptions(**options) if options else None)


def _unit_with(units: list[Unit], text: str) -> Unit:
    found = [u for u in units if text in u.text]
    assert len(found) == 1, (text, [u.text[:60] for u in found])
    return found[0]


# ---------------------------------------------------------------- 07: heading depth from numbering


def test_07_heading_paths_follow_the_numbering(shared_dir):
    units = _units(_case(shared_dir, "07") / "input_content_list.json")
    path = {u.text: u.section_path for u in units}
    top = ["第三章 治疗", "一、药物治疗", "（一）一线治疗"]
    assert path["本章介绍治疗原则。"] == ["第三章 治疗"]
    assert path["药物治疗包括以下内容。"] == ["第三章 治疗", "一、药物治疗"]
    assert path["初治患者首选方案甲。"] == [*top, "1.初治患者"]
    # the trap 2型 is an unnumbered heading nested under 1.初治患者, not item 2 of that list
    assert path["合并2型糖尿病者需监测血糖。"] == [*top, "1.初治患者", "2型糖尿病患者的血糖控制"]
    # numbering wins over position: (1) nests under 1.初治患者, not under the unnumbered heading
    assert path["优先选择具有心血管获益的药物。"] == [*top, "1.初治患者", "(1)合并心血管疾病者"]
    assert path["复治患者可选方案乙。"] == [*top, "2．复治患者"]  # full-width dot, sibling of 1.
    assert path["二线治疗见表5。"] == ["第三章 治疗", "一、药物治疗", "（二）二线治疗"]
    assert path["包括运动与饮食干预。"] == ["第三章 治疗", "二、非药物治疗"]
    # 2024年版 is no number: an unnumbered heading under 二、, the chapter is not reset
    assert path["本版更新了第三章。"] == ["第三章 治疗", "二、非药物治疗", "2024年版更新要点"]
    assert path["随访间隔为3个月。"] == ["第四章 随访"]


def test_07_decimal_numbering_and_its_traps(shared_dir):
    units = _units(_case(shared_dir, "07") / "input_content_list.json")
    path = {u.text: u.section_path for u in units}
    diagnosis = path["Diagnosis text."]
    assert diagnosis[-1] == "5 Diagnosis" and diagnosis[:-1] in ([], ["第四章 随访"])
    assert path["CT text."] == [*diagnosis, "5.1 Imaging", "5.1.1 Computed tomography"]
    assert path["Biomarker text."] == [*diagnosis, "5.2 Biomarkers"]
    # 1.5T is glued to a letter: not decimal 1.5 (a sibling of 5.1), an unnumbered heading instead
    assert path["MRI text."] == [*diagnosis, "5.1 Imaging", "5.1.1 Computed tomography", "1.5T MRI protocol"]
    # 5-FU-based stays inside 5.2 / 5 Diagnosis and does not close them
    assert path["5-FU text."] == [*diagnosis, "5.2 Biomarkers", "5-FU-based regimens"]
    assert path["Treatment text."] == [*diagnosis[:-1], "6 Treatment"]  # same depth as 5 Diagnosis


# ------------------------------------------------- 08: untyped running heads, stamps, cross-page join


def test_08_untyped_furniture_is_found_by_repetition_and_position(shared_dir):
    doc = load_document(_case(shared_dir, "08") / "input_content_list.json")
    kind = {b.text[:25]: b.kind for b in doc.blocks}
    for head in ("ESC Guidelines 3917", "3918 ESC Guidelines", "ESC Guidelines 3919"):
        assert kind[head] is BlockKind.HEADER
    stamps = [b for b in doc.blocks if b.text.startswith("Downloaded from")]
    assert len(stamps) == 3 and all(b.is_furniture for b in stamps)
    assert kind["©ESC 2024"].is_furniture
    # repeated, but in the body band: both stay headings
    assert [b.page for b in doc.blocks if b.text == "Key messages" and b.kind is BlockKind.HEADING] == [1, 3]


def test_08_paragraph_joined_across_the_page_break(shared_dir):
    units = _units(_case(shared_dir, "08") / "input_content_list.json")
    joined = _unit_with(units, "moderate-to-severe frailty or limited life expectancy, and (iii) a strong emphasis")
    assert joined.pages == [1, 2] and joined.section_path == ["Key messages"]
    assert {"p1-e2", "p2-e1"} <= set(joined.element_ids)  # both elements kept
    for u in units:
        assert "ESC Guidelines" not in u.text and "Downloaded from" not in u.text and "©ESC" not in u.text
    (table,) = [b for b in load_document(_case(shared_dir, "08") / "input_content_list.json").blocks if b.table]
    assert len(table.table.header_rows) + len(table.table.body_rows) == 2  # the table is unaffected
    assert "©ESC" not in table.caption and "©ESC" not in table.footnote
    assert all("©ESC" not in u.context + u.text for u in units if u.unit_type is UnitType.TABLE_ROW)
    later = _unit_with(units, "Out-of-office BP measurement")
    assert later.pages == [3] and later.section_path == ["Key messages"] and later.element_ids[-1] == "p3-e2"


# ---------------------------------------- 23: typed furniture after each page's body, page footnote


def test_23_typed_furniture_never_reaches_units(shared_dir):
    units = _units(_case(shared_dir, "23") / "input_content_list.json")
    for u in units:
        for furniture in ("National Hypertension Guideline 2026", "For personal clinical use only",
                          "Example Society of Cardiology"):  # fmt: skip
            assert furniture not in u.text
        assert u.text.strip() not in ("14", "15", "-") and not u.text.rstrip().endswith((" 14", " 15"))
        assert u.text.strip()
    sections = [u for u in units if u.unit_type is UnitType.SECTION]
    assert [(u.section_path, u.pages) for u in sections] == [
        (["3 Treatment of hypertension"], [1, 2]),
        (["3 Treatment of hypertension", "3.1 Choice of first drug"], [2]),
    ]
    assert "two-drug single-pill combination" in sections[1].text


def test_23_join_skips_trailing_furniture_and_keeps_the_footnote_apart(shared_dir):
    units = _units(_case(shared_dir, "23") / "input_content_list.json")
    joined = _unit_with(units, "stays at or above the home threshold of 135/85 mmHg")
    assert joined.pages == [1, 2] and joined.section_path == ["3 Treatment of hypertension"]
    assert "Drug treatment is started" in joined.text  # both page-1 paragraphs in the section
    assert "at or above * Home reading" not in joined.text and "above\n* Home" not in joined.text
    # the footnote is kept as a note after the joined paragraph
    assert joined.text.index("* Home reading") > joined.text.index("135/85 mmHg")


# ----------------------------------------------------------------- 24: lists and reference lists


def test_24_list_items_graded_one_by_one_references_kept_out(shared_dir):
    units = _units(_case(shared_dir, "24") / "input_content_list.json")
    recs = [u for u in units if u.unit_type is UnitType.RECOMMENDATION]
    assert len(recs) == 2
    first, second = recs
    assert "continuing oral anticoagulation for at least 8 weeks" in first.text and first.pages == [7]
    assert (first.grade.strength, first.grade.certainty) == ("strong", "moderate")
    assert "long-term anticoagulation follows the stroke-risk score" in second.text
    assert (second.grade.strength, second.grade.certainty) == ("conditional", "low")
    assert not any("follows the stroke-risk" in u.text and "8 weeks" in u.text for u in units)
    section = next(u for u in units if u.section_path == ["5 Anticoagulation after ablation"]
                   and u.unit_type is UnitType.SECTION)  # fmt: skip
    assert section.grade is None
    assert "Shared decision making should document" in section.text
    assert section.text.index("Shared decision") < section.text.index("These statements replace those")
    assert "Doe J" not in section.text and "[3]" not in section.text
    refs = [u for u in units if "Doe J, Roe R" in u.text or "Example Consortium" in u.text]
    assert refs and all(u.unit_type is UnitType.REFERENCE and u.section_path == ["References"] for u in refs)


def test_24_middle_list_without_blocks_is_split_into_items(shared_dir):
    doc = load_document(_case(shared_dir, "24") / "input_middle_excerpt.json")
    lists = [b for b in doc.blocks if b.kind is BlockKind.LIST]
    assert lists[0].items == [
        "Reassess rhythm and symptoms within 4 weeks of the procedure.",
        "Repeat a 24-hour Holter recording at 3 and 12 months.",
    ]
    assert lists[1].items == ["Refer back to the implanting centre if palpitations recur."]  # blank item dropped
    units = build_units(doc)
    section = next(u for u in units if u.unit_type is UnitType.SECTION and u.section_path[-1] == "5.1 Follow-up")
    assert section.pages == [8]
    text = "\n".join(u.text for u in units)
    assert text.index("Reassess") < text.index("Repeat a 24-hour") < text.index("Refer back")
    assert "Reassess rhythm and symptoms within 4 weeks" in section.text and "Repeat a 24-hour Holter" in section.text
    assert all(line.strip() for u in units for line in u.text.splitlines())


# ------------------------------------------------- 25: Unstructured hierarchy that is not a tree


def test_25_broken_parent_links_fall_back_to_title_order(shared_dir):
    path = _case(shared_dir, "25") / "input_elements.json"
    with warnings.catch_warnings(record=True) as caught:  # no KeyError, RecursionError or endless loop
        warnings.simplefilter("always")
        units = _units(path)
    ours = [w for w in caught if issubclass(w.category, InputWarning)]
    assert len(ours) == 1 and "4 elements point to 2 parent ids" in str(ours[0].message)
    assert _unit_with(units, "Adults over 40").section_path == ["2 Screening"]
    assert _unit_with(units, "Adults over 40").pages == [1]
    assert _unit_with(units, "Check urine albumin").section_path == ["2 Screening", "2.1 Adults with diabetes"]
    repeat = _unit_with(units, "Repeat the ratio after 3 months")
    assert repeat.section_path == ["3 Follow-up"] and repeat.pages == [2]
    assert repeat.text.index("Record the result") < repeat.text.index("Tell the patient")
    # the duplicate element_id merges nothing: "See Table 2." is in both sections
    see = [u for u in units if "See Table 2." in u.text]
    assert [(u.section_path[-1], u.pages) for u in see] == [("2.1 Adults with diabetes", [1]), ("3 Follow-up", [2])]
    assert len({u.unit_id for u in units}) == len(units)
    assert [u.unit_id for u in _units(path)] == [u.unit_id for u in units]
    # the parser's own ids, as given, beside ours
    assert all("c2a7f3e91d5b48a6e0f4d2b8a1c3e5f7" in u.source_element_ids for u in see)
    assert _unit_with(units, "Adults over 40").source_element_ids == [
        "0b6f2c1e-5d1a-4c7e-9a3b-2f4e8d7c6a51",
        "7d3e9a10-2b4c-4f6d-8e1a-9c0b1d2e3f40",
    ]
    dangling = {"e1c4a9f0b2d37a65c8e91f0a4b6d2c3e", "5b7d9e2a4c6f8a1b3d5e7f9a2c4e6b8d"}
    assert not any(set(u.source_element_ids) & dangling for u in units)


# --------------------------------------- 26: chunked Unstructured output, orig_elements, page spans


def test_26_orig_elements_expanded_with_true_pages_and_a_bad_one_warned(shared_dir):
    path = _case(shared_dir, "26") / "input_chunked_elements.json"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        doc = load_document(path)
    ours = [w for w in caught if issubclass(w.category, InputWarning)]
    assert len(ours) == 1 and "[2].metadata.orig_elements" in str(ours[0].message)
    heading = next(b for b in doc.blocks if b.kind is BlockKind.HEADING)
    assert heading.text == "4.2 Potassium monitoring"
    units = build_units(doc, UnitOptions(recommendation_units=False))
    assert not any("4.2 Potassium monitoring\n\nMeasure" in u.text for u in units)
    section = _unit_with(units, "within 2 weeks after starting")
    assert section.section_path[-1] == "4.2 Potassium monitoring"
    assert "halve the dose and recheck within one week" in section.text
    assert section.pages == [3, 4]
    assert section.source_element_ids[-2:] == ["b4e1d0f2c8a35d69b7f3a2c1d0e9f8b7", "c5f2e1a3d9b46e7ac8a4b3d2e1f0a9c8"]
    p4 = section.bboxes[section.element_pages.index(4)]
    assert p4 is not None and p4[1] == pytest.approx(140 / 2200, abs=0.01)  # top of page 4, PixelSpace 1700x2200
    chunk2 = _unit_with(units, "Review the medication list")
    assert chunk2.pages == [5] and chunk2.source_element_ids == ["0a1b2c3d4e5f60718293a4b5c6d7e8f9"]
    chunk3 = _unit_with(units, "Stop the drug if potassium exceeds 6.0 mmol/L.")
    assert chunk3.pages == [6]


def test_26_grade_free_text_gives_no_recommendation_units(shared_dir):
    units = _units(_case(shared_dir, "26") / "input_chunked_elements.json")
    assert not [u for u in units if u.unit_type is UnitType.RECOMMENDATION]
