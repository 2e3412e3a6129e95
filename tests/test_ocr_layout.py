"""OCR layout pieces that need no OCR run: rules found in page images, lines -> typed blocks, text repair.

Images are drawn here with Pillow as a scanner would give them (light grey rules, a rule stepping a
pixel row as a skewed scan does, text rows); lines are OcrLine values in page fractions.
"""

from __future__ import annotations

import pytest

pytest.importorskip("numpy")
from PIL import Image, ImageDraw

from structaware_readers.models import BlockKind
from structaware_readers.ocr.engine import OcrLine
from structaware_readers.ocr.layout import join_lines, page_blocks, repair_line
from structaware_readers.ocr.read_pages import horizontal_rules


def _line(text, x0, y0, x1, y1, conf=0.99):
    return OcrLine(text, (x0, y0, x1, y1), conf, ((x0, y0), (x1, y0), (x1, y1), (x0, y1)))


def test_light_grey_and_skewed_rules_are_found_whole_and_text_rows_are_not():
    img = Image.new("RGB", (1000, 1400), "white")
    d = ImageDraw.Draw(img)
    d.line((100, 200, 900, 200), fill=(200, 200, 200), width=1)  # light grey, as scanned inner rules are
    d.line((100, 400, 500, 400), fill=(120, 120, 120), width=1)  # askew: steps one row at mid-width
    d.line((500, 401, 900, 401), fill=(120, 120, 120), width=1)
    for x in range(100, 900, 14):  # a row of "characters": ink broken by gaps
        d.rectangle((x, 600, x + 9, 612), fill="black")
    d.line((100, 800, 300, 800), fill="black", width=1)  # too short (a fifth of the width)
    rules = horizontal_rules(img)
    assert len(rules) == 2
    assert [y * 1400 for y, _, _ in rules] == [pytest.approx(200, abs=1), pytest.approx(400.5, abs=1)]
    for _, x0, x1 in rules:
        assert x0 == pytest.approx(0.1, abs=0.005) and x1 == pytest.approx(0.9, abs=0.005)


def test_ruled_table_becomes_a_grid_with_a_spanning_line_and_indented_cells():
    rules = [(0.30, 0.1, 0.9), (0.34, 0.1, 0.9), (0.38, 0.1, 0.9), (0.42, 0.1, 0.9), (0.46, 0.1, 0.9)]
    lines = [
        _line("表2 分期", 0.10, 0.27, 0.25, 0.29),
        _line("分期", 0.11, 0.31, 0.18, 0.33), _line("Ⅰ级推荐", 0.40, 0.31, 0.50, 0.33), _line("ⅢⅢ级推荐", 0.70, 0.31, 0.80, 0.33),
        _line("T1", 0.11, 0.35, 0.15, 0.37), _line("手术", 0.40, 0.35, 0.48, 0.37), _line("放疗", 0.70, 0.35, 0.78, 0.37),
        _line("T1a", 0.14, 0.39, 0.19, 0.41), _line("观察", 0.42, 0.39, 0.50, 0.41),  # indented cells stay in their column
        _line("T2", 0.11, 0.43, 0.15, 0.45), _line("化疗 + 放疗 联合", 0.40, 0.43, 0.62, 0.45), _line("随访", 0.70, 0.43, 0.76, 0.45),
        _line("正文段落在表格之外。", 0.10, 0.50, 0.60, 0.52),
    ]  # fmt: skip
    blocks = page_blocks(4, lines, rules).blocks
    tables = [b for b in blocks if b.kind is BlockKind.TABLE]
    assert len(tables) == 1
    grid = tables[0].table
    assert grid.header_rows == [["分期", "Ⅰ级推荐", "Ⅲ级推荐"]]  # the doubled numeral repaired
    assert grid.body_rows == [["T1", "手术", "放疗"], ["T1a", "观察", ""], ["T2", "化疗 + 放疗 联合", "随访"]]
    assert tables[0].caption == "表2 分期"
    assert grid.grid_source == "ocr_lines" and len(grid.body_row_bboxes) == 3
    assert [b.text for b in blocks if b.kind is BlockKind.PARAGRAPH] == ["正文段落在表格之外。"]
    assert all(b.block_id.startswith("p4-e") for b in blocks)


def test_two_rules_make_no_table():
    rules = [(0.30, 0.1, 0.9), (0.34, 0.1, 0.9)]
    lines = [_line("A", 0.11, 0.31, 0.15, 0.33), _line("B", 0.5, 0.31, 0.55, 0.33), _line("C", 0.11, 0.35, 0.2, 0.37)]
    assert not any(b.kind is BlockKind.TABLE for b in page_blocks(1, lines, rules).blocks)


def test_two_columns_headings_and_furniture():
    h = 0.015
    lines = [_line("中国临床指南 2023", 0.55, 0.02, 0.9, 0.035), _line("12", 0.9, 0.96, 0.93, 0.975)]
    y = 0.1
    left = [
        "一、总则",
        "本指南适用于成人患者，给出诊断与治疗的",
        "建议。",
        "（一）诊断",
        "诊断依据临床表现和",
        "实验室检查。",
    ]
    right = ["1.1 治疗原则", "治疗应个体化，结合患者意愿与", "合并症。"]
    for i, t in enumerate(left):
        x1 = 0.2 if len(t) < 6 else 0.45
        lines.append(_line(t, 0.08, y + i * 0.025, x1, y + i * 0.025 + h))
    for i, t in enumerate(right):
        x1 = 0.66 if len(t) < 8 else 0.92
        lines.append(_line(t, 0.55, y + i * 0.025, x1, y + i * 0.025 + h))
    blocks = page_blocks(1, lines).blocks
    kinds = {b.text: b.kind for b in blocks}
    assert kinds["中国临床指南 2023"] is BlockKind.HEADER and kinds["12"] is BlockKind.PAGE_NUMBER
    body = [b for b in blocks if not b.is_furniture]
    assert [(b.kind, b.text) for b in body] == [
        (BlockKind.HEADING, "一、总则"),
        (BlockKind.PARAGRAPH, "本指南适用于成人患者，给出诊断与治疗的建议。"),
        (BlockKind.HEADING, "（一）诊断"),
        (BlockKind.PARAGRAPH, "诊断依据临床表现和实验室检查。"),
        (BlockKind.HEADING, "1.1 治疗原则"),  # the right column after the whole left one
        (BlockKind.PARAGRAPH, "治疗应个体化，结合患者意愿与合并症。"),
    ]


def test_a_table_note_with_a_raised_marker_is_no_heading():
    lines = [_line("正文段落，说明诊断方法与检查时机。", 0.1, 0.2, 0.8, 0.215), _line("正文第二行内容继续。", 0.1, 0.22, 0.6, 0.235),
             _line("d 对于C型子宫切除首选剖腹手术", 0.1, 0.30, 0.5, 0.322), _line("2.2 病理诊断", 0.1, 0.35, 0.3, 0.372)]  # fmt: skip
    kinds = {b.text: b.kind for b in page_blocks(1, lines).blocks}
    assert kinds["d 对于C型子宫切除首选剖腹手术"] is BlockKind.PARAGRAPH
    assert kinds["2.2 病理诊断"] is BlockKind.HEADING  # trap: an equally tall numbered line still is one


def test_a_body_size_label_opening_a_paragraph_is_a_heading():
    # OCR lines of a rendered VA/DoD page (COPD guideline p. 28, public domain; bold labels in body-size type)
    lines = [
        _line("and preferences, as some patients may not prefer taking a second medication", 0.115, 0.274, 0.88, 0.288),
        _line(
            "try dual therapy. Thus, the Work Group decided upon a Weak for recommendation.", 0.115, 0.292, 0.86, 0.307
        ),
        _line("Recommendation", 0.117, 0.324, 0.245, 0.338),
        _line("9. If choosing dual therapy, we recommend against offering long-acting beta", 0.142, 0.346, 0.88, 0.363),
        _line("agonists with inhaled corticosteroids for patients with COPD.", 0.174, 0.366, 0.62, 0.381),
        _line("Discussion", 0.115, 0.415, 0.205, 0.431),
        _line(
            "An ICS plus LABA is associated with a higher risk of pneumonia compared to LAMA", 0.115, 0.440, 0.88, 0.455
        ),
        _line("monotherapy.(70)", 0.115, 0.459, 0.25, 0.473),
        _line("Yes", 0.115, 0.490, 0.15, 0.504),  # trap: a chart's word, too few letters for a label
        _line("the next sentence of a box's text, wide as a paragraph line is", 0.115, 0.508, 0.88, 0.522),
        _line("Reviewed, New-added", 0.115, 0.560, 0.30, 0.574),  # trap: a short last line ends the paragraph
    ]
    body = [(b.kind, b.text) for b in page_blocks(28, lines).blocks]
    assert body == [
        (BlockKind.PARAGRAPH, ("and preferences, as some patients may not prefer taking a second medication"
                               " try dual therapy. Thus, the Work Group decided upon a Weak for recommendation.")),
        (BlockKind.HEADING, "Recommendation"),
        (BlockKind.PARAGRAPH, ("9. If choosing dual therapy, we recommend against offering long-acting beta"
                               " agonists with inhaled corticosteroids for patients with COPD.")),
        (BlockKind.HEADING, "Discussion"),
        (BlockKind.PARAGRAPH, ("An ICS plus LABA is associated with a higher risk of pneumonia compared to LAMA"
                               " monotherapy.(70)")),
        (BlockKind.PARAGRAPH, "Yes the next sentence of a box's text, wide as a paragraph line is"),
        (BlockKind.PARAGRAPH, "Reviewed, New-added"),
    ]  # fmt: skip


def test_low_confidence_lines_are_kept_and_listed():
    lines = [
        _line("Blood pressure target", 0.1, 0.2, 0.5, 0.215, 0.95),
        _line("<140/9O mmHg", 0.1, 0.22, 0.4, 0.235, 0.55),
    ]
    result = page_blocks(2, lines)
    assert [ln.text for ln in result.low_confidence] == ["<140/9O mmHg"]
    assert "<140/9O mmHg" in " ".join(b.text for b in result.blocks)


def test_join_lines_and_repair():
    assert join_lines(["诊断依据临床", "表现。"]) == "诊断依据临床表现。"
    assert join_lines(["blood pres-", "sure target"]) == "blood pressure target"
    assert join_lines(["Grade", "A"]) == "Grade A"
    assert join_lines(["HbA1c-", "Targets"]) == "HbA1c- Targets"  # trap: a capital is no word's continuation
    assert repair_line(_line("ⅢⅢ级推荐", 0, 0, 1, 1)).text == "Ⅲ级推荐"
    assert repair_line(_line("ⅡⅡ期", 0, 0, 1, 1)).text == "Ⅱ期"
    assert repair_line(_line("ⅠⅡ级", 0, 0, 1, 1)).text == "ⅠⅡ级"  # trap: two different numerals are kept


def test_a_shaded_header_band_gives_its_two_edges_not_a_rule_through_its_text():
    img = Image.new("RGB", (1000, 1400), "white")
    d = ImageDraw.Draw(img)
    d.rectangle((100, 150, 900, 180), fill=(215, 215, 215))  # a header row's grey fill, 30 px high
    d.line((100, 220, 900, 220), fill="black", width=1)
    rules = horizontal_rules(img)
    assert [y * 1400 for y, _, _ in rules] == [
        pytest.approx(150, abs=3),
        pytest.approx(180, abs=3),
        pytest.approx(220, abs=1),
    ]


def test_a_ruled_row_holding_several_lines_is_one_row_and_a_three_line_table_reads_visual_rows():
    # two body rows between rules, each cell several lines (a CSCO recommendation table)
    ruled = [(0.30, 0.1, 0.9), (0.33, 0.1, 0.9), (0.42, 0.1, 0.9), (0.50, 0.1, 0.9)]
    lines = [
        _line("分层", 0.11, 0.31, 0.16, 0.325), _line("Ⅰ级推荐", 0.5, 0.31, 0.6, 0.325),
        _line("ⅠB1期、", 0.11, 0.34, 0.2, 0.355), _line("ⅡA1期", 0.11, 0.36, 0.2, 0.375),
        _line("C型子宫切除", 0.5, 0.34, 0.65, 0.355), _line("盆腔淋巴结切除术", 0.5, 0.36, 0.7, 0.375),
        _line("ⅠB3期", 0.11, 0.43, 0.2, 0.445), _line("根治性放疗", 0.5, 0.43, 0.65, 0.445),
    ]  # fmt: skip
    grid = next(b for b in page_blocks(1, lines, ruled).blocks if b.table is not None).table
    assert grid.header_rows == [["分层", "Ⅰ级推荐"]]
    assert grid.body_rows == [["ⅠB1期、ⅡA1期", "C型子宫切除盆腔淋巴结切除术"], ["ⅠB3期", "根治性放疗"]]
    # a three-line table: top rule, the rule under the header, bottom rule; rows by line, a wrapped cell joined
    three = [(0.30, 0.1, 0.9), (0.33, 0.1, 0.9), (0.45, 0.1, 0.9)]
    lines = [
        _line("药物", 0.11, 0.31, 0.16, 0.325), _line("剂量", 0.5, 0.31, 0.56, 0.325),
        _line("顺铂", 0.11, 0.34, 0.16, 0.355), _line("50mg/m²，第1天", 0.5, 0.34, 0.7, 0.355),
        _line("拓扑替康", 0.11, 0.37, 0.2, 0.385), _line("0.75mg/m²，", 0.5, 0.37, 0.65, 0.385),
        _line("第1~3天", 0.5, 0.39, 0.6, 0.405),
    ]  # fmt: skip
    grid = next(b for b in page_blocks(1, lines, three).blocks if b.table is not None).table
    assert grid.header_rows == [["药物", "剂量"]]
    assert grid.body_rows == [["顺铂", "50mg/m²，第1天"], ["拓扑替康", "0.75mg/m²，第1~3天"]]
