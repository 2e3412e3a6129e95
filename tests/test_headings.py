"""headings.numbering_depth: the documented mapping, its guards, and real MinerU headings."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from structaware_readers.structure.headings import heading_levels, numbering_depth, numbering_style

FIX = Path(__file__).parent / "fixtures" / "mineru"


@pytest.mark.parametrize(
    "text,depth",
    [
        ("2", 1), ("2.", 1), ("2 ", 1), ("1 Introduction", 1), ("2.1", 2), ("2.1 Blood pressure", 2),
        ("2.1.3", 3), ("2.1.3 Foo", 3), ("2.1.3. Foo", 3), ("10.3 Results", 2), ("1.2.3.4.5.6.7 Deep", 6),
        ("2.Introduction", 1), ("1总则", 1), ("3.1节", 2), ("### 4.2 Markdown marks", 2),
        ("Chapter 3", 1), ("CHAPTER IV Results", 1), ("Part II", 1), ("chapter one", 1),
        ("Section 4", 1), ("Section 2.1 Scope", 2), ("§ 3.2 Rules", 2),
        ("第三章", 1), ("第3章 总则", 1), ("第十二章 附则", 1), ("第一节", 2), ("第十二条", 3),
        ("一、总则", 1), ("十二、其他", 1), ("（一）适用范围", 2), ("(一) 适用范围", 2),
        ("（1）诊断", 3), ("(2) Methods", 3), ("1）诊断", 3),
        ("Annex A", 1), ("Appendix 1 Search strategy", 1), ("附录A", 1), ("附录 B 用词说明", 1),
        ("A.1", 2), ("A.1.2 Scope", 3), ("B.0.1 检查周期", 3),
        ("I. Introduction", 1), ("IV. Discussion", 1),
        ("１．２　全角标题", 2), ("（二）全角括号", 2),
    ],
)  # fmt: skip
def test_numbered_headings(text, depth):
    assert numbering_depth(text) == depth


@pytest.mark.parametrize(
    "text",
    [
        "", "   ", "Background", "Introduction 2", "Table 1. Recommended targets", "Figure 2",
        "2019 data show", "1990s guidelines", "12.03.2019", "5 mg", "2.5 mL daily", "140 mmHg", "3 years later",
        "30% of patients", "1-2 times", "3D imaging", "2nd line therapy", "5年后复查", "Chapter overview",
        "Recommendation 1.1: Measure", "Grade A",
    ],
)  # fmt: skip
def test_not_numbering(text):
    assert numbering_depth(text) is None


def test_real_synthetic_guideline_headings():
    """Every heading the 4.x parser found in the synthetic guidelines (en + zh), with its expected depth."""
    got = {}
    for lang in ("en", "zh"):
        data = json.loads(
            (FIX / f"mineru-4.0.12_flash-tier_synthetic_guideline_{lang}" / "content_list.rendered.json").read_text(
                "utf-8"
            )
        )
        for it in data:
            if it.get("text_level"):
                got[it["text"]] = numbering_depth(it["text"])
    assert got == {
        "Synthetic Guideline on the Management of Hypertension in Primary Care": None,
        "1 Introduction": 1, "2 Diagnosis": 1, "2.1 Blood pressure measurement": 2,
        "2.1.1 Confirming the diagnosis": 3, "3 Treatment": 1, "3.1 Drug treatment targets": 2,
        "高血压基层诊疗指南（合成测试文档）": None,
        "1 前言": 1, "2 诊断": 1, "2.1 血压测量": 2, "2.1.1 确诊方法": 3, "3 治疗": 1, "3.1 降压目标": 2,
    }  # fmt: skip


def test_real_guideline_numbered_headings_follow_their_dots(shared_dir: Path):
    """WHO IPC guideline (91 pages, 4.x): every heading of the form 'N.N... Title' gets depth = parts."""
    path = (
        shared_dir
        / "fixtures/mineru/mineru-4.0.12_flash-tier_who_2016_ipc_core_components_guideline/content_list.rendered.json"
    )
    headings = [it["text"] for it in json.loads(path.read_text("utf-8")) if it.get("text_level")]
    numbered = [(t, m.group(1)) for t in headings if (m := re.match(r"^(\d{1,2}(?:\.\d{1,2})*)\.?\s+[A-Z]", t))]
    assert len(numbered) >= 10
    for text, num in numbered:
        assert numbering_depth(text) == num.count(".") + 1, text


# ------------------------------------------------------------------ levels in document context


@pytest.mark.parametrize(
    "text",
    [
        "2型糖尿病患者的血糖控制",
        "2024年版更新要点",
        "1.5T MRI protocol",
        "5-FU-based regimens",
        "3级高血压",
        "13价疫苗",
    ],
)
def test_quantities_that_look_like_numbering(text):
    assert numbering_style(text) is None


def test_heading_levels_chinese_ranks_in_context():
    texts = ["第三章 治疗", "一、药物治疗", "（一）一线治疗", "1.初治患者", "2型糖尿病患者的血糖控制",
             "(1)合并心血管疾病者", "2．复治患者", "（二）二线治疗", "二、非药物治疗", "2024年版更新要点",
             "第四章 随访", "① 甲", "② 乙"]  # fmt: skip
    assert heading_levels([(t, 1) for t in texts]) == [1, 2, 3, 4, 5, 5, 4, 3, 2, 3, 1, 2, 2]


def test_heading_levels_decimals_romans_annexes_and_back_matter():
    texts = ["I. Background", "1 Scope", "1.1 Terms", "1.1.1 Dose", "Notes", "1.2 Aims", "2 Methods",
             "II. Evidence", "References", "Annex A", "A.1 Search", "A.2 Tables"]  # fmt: skip
    assert heading_levels([(t, None) for t in texts]) == [1, 2, 3, 4, 5, 3, 2, 1, 1, 1, 2, 2]


def test_heading_levels_excerpt_and_parser_levels():
    # a decimal first met in an excerpt keeps its depth; an unnumbered heading keeps a deeper parser level
    assert heading_levels([("4.2 Algorithm", 1), ("Background", 1), ("Details", 3)]) == [2, 3, 3]
    # levels from markup (HTML <hN>, category_depth) are kept; numbering fills the headings without one
    assert heading_levels(
        [("Guideline", 1), ("1 Introduction", 2), ("1.1 Scope", None), ("Annex", 2), ("A.1 Tables", None)],
        parser_levels_fixed=True,
    ) == [1, 2, 3, 2, 3]
