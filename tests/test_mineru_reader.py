"""The MinerU reader on real outputs of every format era, plus folders, zips and typed errors.

Redistributable outputs are in tests/fixtures/mineru (see SOURCES.md); the other eras (magic-pdf
0.7, mineru 2.6.6/2.7.6, WHO) are read from <repo>/../shared and skipped when it is absent.
"""

from __future__ import annotations

import json
import re
import shutil
import zipfile
from collections import Counter
from pathlib import Path

import pytest

import structaware_readers.common.limits as limits
from structaware_readers.errors import (
    EmptyDocumentError,
    InputNotFoundError,
    MalformedInputError,
    UnknownFormatError,
)
from structaware_readers.ids import doc_id_from_bytes
from structaware_readers.mineru import (
    FORMAT_PREFERENCE,
    detect_format,
    parse_mineru_json,
    read_mineru,
)
from structaware_readers.models import BlockKind, ParsedDocument

REPO = Path(__file__).resolve().parents[1]
FIX = REPO / "tests" / "fixtures" / "mineru"
SHARED = REPO.parent / "shared" / "fixtures" / "mineru"
EN = FIX / "mineru-4.0.12_flash-tier_synthetic_guideline_en"
ZH = FIX / "mineru-4.0.12_flash-tier_synthetic_guideline_zh"
TINY = FIX / "mineru-4.0.12_flash-tier_tiny_heading_table"
CDC = FIX / "mineru-4.0.12_flash-tier_cdc_2016_outpatient_infection_prevention_guide"
NAACL = FIX / "mineru-3.4.4_pipeline_cloudapi_naacl2024-long-132"
RENDERINGS = [
    "middle_json.json",
    "structured_content.json",
    "content_list.rendered.json",
    "content_list_v2.rendered.json",
]
EXPECTED_FORMAT = {
    "middle_json.json": "docvortex_middle",
    "structured_content.json": "structured_content",
    "content_list.rendered.json": "content_list",
    "content_list_v2.rendered.json": "content_list_v2",
}
ID_RE = re.compile(r"^p(\d+)-e(\d+)$")


def _is_model_output(path: Path) -> bool:
    return path.name in ("model_output.json",) or path.name.endswith("_model.json")


def _inputs(root: Path) -> list:
    """Every output folder and every JSON file below ``root`` (model outputs excluded)."""
    if not root.is_dir():
        return []
    out = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if path.is_dir() and any(p.suffix == ".json" for p in path.iterdir()):
            if path.name == "mineru-4.0.12_rerendered-from-legacy-middle":
                continue  # holds three documents: covered by test_folder_with_several_documents_is_refused
            out.append(pytest.param(path, id=f"{root.parent.parent.name}:{rel}/"))
        elif path.suffix == ".json" and not _is_model_output(path):
            out.append(pytest.param(path, id=f"{root.parent.parent.name}:{rel}"))
    # the drainage folder holds auto/ and vlm/ runs of one document at its top level
    drainage = root / "mineru-2.6.6_pipeline+vlm_preprocess_v4_zh-drainage-standard"
    if drainage.is_dir():
        out.append(pytest.param(drainage, id=f"{root.parent.parent.name}:{drainage.name}/"))
    return out


def _check_document(doc: ParsedDocument) -> None:
    assert doc.parser == "mineru"
    assert doc.input_format in FORMAT_PREFERENCE
    assert re.fullmatch(r"[0-9a-f]{16}", doc.doc_id)
    assert doc.page_count >= 1
    assert len(doc.page_sizes) == doc.page_count
    body = doc.body_blocks()
    assert body, "no body blocks"
    assert sum(len(b.text) for b in body) > 50
    ids = [b.block_id for b in doc.blocks]
    assert len(ids) == len(set(ids)), "duplicate block ids"
    for b in doc.blocks:
        m = ID_RE.match(b.block_id)
        assert m and int(m.group(1)) == b.page
        assert 1 <= b.page <= doc.page_count
        for box in [b.bbox, *b.extra_bboxes]:
            if box is not None:
                x0, y0, x1, y1 = box
                assert 0.0 <= x0 <= x1 <= 1.0 and 0.0 <= y0 <= y1 <= 1.0, (b.block_id, box)
        assert all(1 <= p <= doc.page_count for p in b.extra_pages)
        assert len(b.extra_pages) == len(b.extra_bboxes)
        if b.kind is BlockKind.HEADING:
            assert b.level is not None and 1 <= b.level <= 6
        if b.kind is BlockKind.TABLE and b.table is not None:
            assert {len(r) for r in b.table.header_rows + b.table.body_rows} == {b.table.n_cols}
            assert not b.table.body_row_pages or len(b.table.body_row_pages) == len(b.table.body_rows)
        if not b.is_furniture and b.kind not in (
            BlockKind.TABLE,
            BlockKind.FIGURE,
            BlockKind.FLOWCHART,
            BlockKind.EQUATION,
        ):
            assert b.text.strip() or b.items, f"empty {b.kind} block {b.block_id}"
    # j counts every element of a page in the parser's order: ids on a page increase along it
    per_page: dict[int, list[int]] = {}
    for b in doc.blocks:
        per_page.setdefault(b.page, []).append(int(ID_RE.match(b.block_id).group(2)))
    assert all(js == sorted(js) for js in per_page.values())


# ------------------------------------------------------------- every era loads


@pytest.mark.parametrize("path", _inputs(FIX))
def test_redistributable_fixtures_load(path: Path):
    _check_document(read_mineru(path))


@pytest.mark.parametrize("path", _inputs(SHARED))
def test_shared_fixtures_of_every_era_load(path: Path, shared_dir: Path):
    _check_document(read_mineru(path))


@pytest.mark.parametrize(
    "rel,fmt,version",
    [
        ("magic-pdf-0.7.0b1_ocr_MinerU-tests-rag/middle.json", "middle_pdf_info", "0.7.0b1"),
        ("mineru-2.6.6_vlm_preprocess_v4_zh-aviation-paper/demo1_middle.json", "middle_pdf_info", "2.6.6"),
        ("mineru-2.6.6_vlm_preprocess_v4_zh-aviation-paper/demo1_content_list.json", "content_list", ""),
        ("mineru-2.7.6_pipeline_MinerU-pr4637_svolt-datasheet/svolt_middle.json", "middle_pdf_info", "2.7.6"),
        (
            "mineru-4.0.12_flash-tier_who_2016_ipc_core_components_guideline/middle_json.json",
            "docvortex_middle",
            "4.0.12",
        ),
        (
            "mineru-4.0.12_rerendered-from-legacy-middle/naacl132_3.4.4_pipeline/structured_content.json",
            "structured_content",
            "",
        ),
    ],
)
def test_format_and_version_detected_by_content(rel: str, fmt: str, version: str, shared_dir: Path):
    doc = read_mineru(SHARED / rel)
    assert doc.input_format == fmt
    if version:
        assert doc.parser_version == version


def test_page_sizes_from_the_format(shared_dir: Path):
    magic = read_mineru(SHARED / "magic-pdf-0.7.0b1_ocr_MinerU-tests-rag/middle.json")
    assert magic.page_sizes == [(612.0, 792.0)]  # pdf_info page_size, US letter
    assert [b.kind for b in magic.blocks] == [BlockKind.PARAGRAPH, BlockKind.FIGURE, BlockKind.PARAGRAPH,
                                              BlockKind.PARAGRAPH, BlockKind.FIGURE, BlockKind.FIGURE, BlockKind.PARAGRAPH]  # fmt: skip
    assert magic.blocks[1].caption.startswith("Figure2:Twosampleframes")
    who = read_mineru(SHARED / "mineru-4.0.12_flash-tier_who_2016_ipc_core_components_guideline/middle_json.json")
    assert who.page_count == 91 and len(who.page_sizes) == 91 and all(s is not None for s in who.page_sizes)
    assert who.page_sizes[0] == pytest.approx((595.3, 841.9), abs=0.5)  # docvortex_layout width_pt/height_pt (A4)


# ------------------------------------------------- the synthetic guideline (4.x)

EN_HEADINGS = [
    ("Synthetic Guideline on the Management of Hypertension in Primary Care", 1),
    ("1 Introduction", 1), ("2 Diagnosis", 1), ("2.1 Blood pressure measurement", 2),
    ("2.1.1 Confirming the diagnosis", 3), ("3 Treatment", 1), ("3.1 Drug treatment targets", 2),
]  # fmt: skip
ZH_HEADINGS = [
    ("高血压基层诊疗指南（合成测试文档）", 2),  # unnumbered: the parser's level (paragraph_title = 2)
    ("1 前言", 1), ("2 诊断", 1), ("2.1 血压测量", 2), ("2.1.1 确诊方法", 3), ("3 治疗", 1), ("3.1 降压目标", 2),
]  # fmt: skip
EN_HEADER = ["Population", "Clinic target", "ABPM target", "Grade"]
ZH_HEADER = ["人群", "诊室血压目标", "动态血压目标", "推荐等级"]


@pytest.mark.parametrize(
    "folder,headings,header", [(EN, EN_HEADINGS, EN_HEADER), (ZH, ZH_HEADINGS, ZH_HEADER)], ids=["en", "zh"]
)
@pytest.mark.parametrize("rendering", RENDERINGS)
def test_synthetic_guideline_every_rendering(folder: Path, headings, header, rendering: str):
    doc = read_mineru(folder / rendering)
    assert doc.input_format == EXPECTED_FORMAT[rendering]
    assert doc.page_count == 4
    assert [(b.text, b.level) for b in doc.blocks if b.kind is BlockKind.HEADING] == headings

    # Table 1 runs over pages 3-4: one block, one header, 37 + 23 = 60 body rows, header not repeated
    tables = [b for b in doc.blocks if b.kind is BlockKind.TABLE]
    assert len(tables) == 1
    t = tables[0]
    assert t.block_id == "p3-e1" and t.page == 3
    assert t.extra_pages == [4] and t.extra_bboxes == [(0.107, 0.094, 0.893, 0.608)]
    assert t.table.header_rows == [header]
    assert len(t.table.body_rows) == 60
    assert header not in t.table.body_rows
    assert t.table.body_row_pages == [3] * 37 + [4] * 23
    assert t.table.body_rows[0][1:] == ["<140/90 mmHg", "<135/85 mmHg", "A"]
    assert t.table.body_rows[-1][0] in ("Adults 195-197 y", "195-197岁成人")
    assert t.caption.startswith(("Table 1. Blood pressure targets", "表1 不同人群的降压目标"))
    assert t.text.splitlines()[0] == " | ".join(header)

    # running header and page numbers are furniture, never body
    furniture = Counter(b.kind for b in doc.blocks if b.is_furniture)
    assert furniture == {BlockKind.HEADER: 4, BlockKind.PAGE_NUMBER: 4}
    assert [b.text for b in doc.blocks if b.kind is BlockKind.PAGE_NUMBER] == ["1", "2", "3", "4"]
    assert {b.block_id for b in doc.blocks if b.kind is BlockKind.HEADER} == {"p1-e0", "p2-e0", "p3-e0", "p4-e0"}
    assert not any(b.text == "Synthetic Guideline on Hypertension v1.0" for b in doc.body_blocks())

    # the flowchart drawn as vector graphics is an image without Mermaid: a figure with its OCR text
    figures = [b for b in doc.blocks if b.kind is BlockKind.FIGURE]
    assert len(figures) == 1 and figures[0].page == 2
    assert "140/90" in figures[0].text and figures[0].mermaid is None


@pytest.mark.parametrize("folder", [EN, ZH, TINY, CDC], ids=["en", "zh", "tiny", "cdc"])
def test_all_renderings_of_one_run_agree(folder: Path):
    docs = [read_mineru(folder / r) for r in RENDERINGS]

    def signature(doc: ParsedDocument):
        return (
            [(b.block_id, b.text, b.level) for b in doc.blocks if b.kind is BlockKind.HEADING],
            [(b.block_id, b.extra_pages, b.table.header_rows if b.table else None, b.table.body_rows if b.table else b.text)
             for b in doc.blocks if b.kind is BlockKind.TABLE],
            [(b.block_id, b.kind) for b in doc.blocks if b.is_furniture],
        )  # fmt: skip

    first = signature(docs[0])
    assert first[0] and first[1]
    for doc in docs[1:]:
        assert signature(doc) == first, doc.input_format
    # only the middle formats know the page sizes
    assert docs[0].page_sizes[0] is not None and docs[2].page_sizes[0] is None


def test_cdc_continued_table_merged_by_flag_and_by_position():
    """CDC p.23-24: 4.x flags the continuation (continues_prev); the content lists lose the flag."""
    raw = json.loads((CDC / "middle_json.json").read_text("utf-8"))
    flagged = [
        (p["page_idx"] + 1, b["type"])
        for p in raw["pages"]
        for b in p.get("blocks", [])
        if b.get("continues_prev") and b["type"] == "table"
    ]
    assert flagged == [(24, "table")]
    for rendering in RENDERINGS:
        doc = read_mineru(CDC / rendering)
        merged = [b for b in doc.blocks if b.kind is BlockKind.TABLE and b.extra_pages]
        assert [(b.block_id, b.extra_pages) for b in merged] == [("p23-e1", [24])], rendering
        grid = merged[0].table
        assert grid.header_rows == [["Elements to be assessed", "Assessment", "Notes/Areas for Improvement"]]
        # 7 rows on p.23; p.24 repeats the header row (removed) above one more row
        assert Counter(grid.body_row_pages) == {23: 7, 24: 1}
        assert grid.body_rows[-1][0].startswith("H. Facility has")
        assert not any(b.block_id.startswith("p24-e0") for b in doc.blocks)  # the continuation is gone
        # flash-tier "tables" that are plain text layouts keep their text (table=None), nothing is lost
        text_tables = [b for b in doc.blocks if b.kind is BlockKind.TABLE and b.table is None]
        assert len(text_tables) == 8 and all(b.text.strip() for b in text_tables)


# ------------------------------------------------------ mineru 3.4.4 (pdf_info)


def test_naacl_pdf_info_and_content_lists_agree():
    docs = {f: read_mineru(NAACL / f) for f in ("layout.json", "content_list.json", "content_list_v2.json")}
    middle = docs["layout.json"]
    assert middle.input_format == "middle_pdf_info" and middle.parser_version == "3.4.4"
    assert middle.page_sizes[0] == (595.0, 841.0)
    assert middle.title == "LLM-based Medical Assistant Personalization with Short- and Long-Term Memory Coordination"
    heads = [(b.text, b.level) for b in middle.blocks if b.kind is BlockKind.HEADING]
    assert heads[:5] == [
        ("LLM-based Medical Assistant Personalization with Short- and Long-Term Memory Coordination", 1),
        ("Abstract", 2), ("1 Introduction", 1), ("2 Methodology", 1), ("2.1 Preliminary Definition", 2),
    ]  # fmt: skip
    assert ("2.3.1 Memory :", 3) in heads
    for name, doc in docs.items():
        assert [(b.text, b.level) for b in doc.blocks if b.kind is BlockKind.HEADING] == heads, name
        assert [b.table for b in doc.blocks if b.kind is BlockKind.TABLE] == [
            b.table for b in middle.blocks if b.kind is BlockKind.TABLE
        ], name
        assert [b.kind for b in doc.blocks if b.is_furniture] == [b.kind for b in middle.blocks if b.is_furniture], name
        # text assembled from lines/spans matches MinerU's own rendering of the same run
        assert [b.text for b in doc.blocks if b.kind is BlockKind.PARAGRAPH] == [
            b.text for b in middle.blocks if b.kind is BlockKind.PARAGRAPH
        ], name
    # middle keeps one ref_text per reference; content lists group them in a ref_text list
    assert sum(b.kind is BlockKind.REFERENCE for b in middle.blocks) == 37
    refs = [b for b in docs["content_list.json"].blocks if b.kind is BlockKind.REFERENCE]
    assert [len(b.items) for b in refs] == [15, 22]
    # chart -> figure with its caption; equations as display math
    assert any(
        b.kind is BlockKind.FIGURE and b.source_type == "chart" and b.caption.startswith("Figure 4")
        for b in middle.blocks
    )
    eq = next(b for b in middle.blocks if b.kind is BlockKind.EQUATION)
    assert eq.text.startswith("$$\n\\begin{array}") and eq.text.endswith("\\tag{1}\n$$")
    # page footnotes are body footnotes, the ACL footer and page numbers are furniture
    assert Counter(b.kind for b in middle.blocks if b.kind in (BlockKind.FOOTNOTE, BlockKind.FOOTER, BlockKind.PAGE_NUMBER)) == {
        BlockKind.FOOTNOTE: 5, BlockKind.FOOTER: 1, BlockKind.PAGE_NUMBER: 13,
    }  # fmt: skip


def test_pdf_info_dehyphenates_latin_lines_only():
    doc = read_mineru(NAACL / "layout.json")
    abstract = next(b for b in doc.blocks if b.source_type == "abstract")
    assert "natural language." in abstract.text and "lan- guage" not in abstract.text


# ------------------------------------------- cross-page tables in <= 3.x outputs


def test_svolt_ghost_tables_are_merged(shared_dir: Path):
    """MinerU 2.7.6 merged 5 tables across pages and left 5 empty ghost items / lines_deleted blocks."""
    folder = SHARED / "mineru-2.7.6_pipeline_MinerU-pr4637_svolt-datasheet"
    raw = json.loads((folder / "svolt_content_list.json").read_text("utf-8"))
    ghosts = [
        (it["page_idx"] + 1)
        for it in raw
        if it["type"] == "table" and not it.get("table_body") and it.get("img_path") == ""
    ]
    assert ghosts == [4, 6, 10, 13, 16]
    for name in ("svolt_content_list.json", "svolt_middle.json"):
        doc = read_mineru(folder / name)
        tables = [b for b in doc.blocks if b.kind is BlockKind.TABLE]
        assert len(tables) == 17 - 5, name
        merged = [b for b in tables if b.extra_pages]
        assert [b.extra_pages[0] for b in merged] == ghosts, name
        assert [b.page for b in merged] == [p - 1 for p in ghosts], name
        assert all(
            box is not None and box[1] < 0.1 for b in merged for box in b.extra_bboxes
        )  # ghosts start their page
        # the ghost still counts in the page's element positions: page 4 starts at e1
        assert next(b.block_id for b in doc.blocks if b.page == 4) == "p4-e1"


def test_thesis_xubiao_continuations_merged_in_every_rendering(shared_dir: Path):
    """MinerU 2.7.6 did not merge the '续表' continuations of this thesis; the positional rule does."""
    folder = SHARED / "mineru-2.7.6_pipeline_MinerU-pr4637_zh-thesis"
    results = {}
    for name in ("zh_thesis_content_list.json", "zh_thesis_middle.json"):
        doc = read_mineru(folder / name)
        merged = [b for b in doc.blocks if b.kind is BlockKind.TABLE and b.extra_pages]
        results[name] = [(b.block_id, b.extra_pages, len(b.table.body_rows)) for b in merged]
        assert len(merged) == 6
        assert all(b.caption.startswith("表") and not b.caption.startswith("续表") for b in merged)
        # the one '续表' left has 5 columns under a 4-column table: not merged (column counts differ)
        left = [b for b in doc.blocks if b.kind is BlockKind.TABLE and b.caption.startswith("续表")]
        assert [(b.block_id, b.table.n_cols) for b in left] == [("p53-e0", 5)]
        prev = doc.blocks[doc.blocks.index(left[0]) - 3]
        assert prev.kind is BlockKind.TABLE and prev.caption.startswith("表 4.8") and prev.table.n_cols == 4
    assert results["zh_thesis_content_list.json"] == results["zh_thesis_middle.json"]


def test_discarded_items_become_furniture_by_text_and_position(shared_dir: Path):
    doc = read_mineru(SHARED / "mineru-2.6.6_pipeline+vlm_preprocess_v4_zh-drainage-standard/auto/1_content_list.json")
    disc = [b for b in doc.blocks if b.source_type == "discarded"]
    assert disc and all(b.is_furniture for b in disc)
    kinds = Counter(b.kind for b in disc)
    assert kinds[BlockKind.PAGE_NUMBER] >= 30
    assert all(re.fullmatch(r"\d+|[IVX]+", b.text.strip()) for b in disc if b.kind is BlockKind.PAGE_NUMBER)
    assert any(b.kind is BlockKind.HEADER and b.text.startswith("备案号") for b in disc)


def test_who_docvortex_reads_in_one_pass(shared_dir: Path):
    doc = read_mineru(SHARED / "mineru-4.0.12_flash-tier_who_2016_ipc_core_components_guideline/middle_json.json")
    assert len(doc.blocks) == 2060
    assert sum(b.kind is BlockKind.HEADING for b in doc.blocks) == 317
    assert sum(b.kind is BlockKind.PARAGRAPH and b.continues_prev for b in doc.blocks) > 0  # 4.x text flags kept


# ---------------------------------------------------------------- folders, zips


def test_folder_prefers_the_richest_file_and_parses_each_file_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    folder = tmp_path / "synthetic_guideline_en"
    shutil.copytree(EN, folder)
    loads = []
    real = limits.json.loads
    monkeypatch.setattr(limits.json, "loads", lambda s, *a, **k: loads.append(1) or real(s, *a, **k))
    doc = read_mineru(folder)
    assert doc.input_format == "docvortex_middle"
    assert doc.doc_id == doc_id_from_bytes((EN / "middle_json.json").read_bytes())
    assert doc.name == "synthetic_guideline_en" and doc.source == str(folder)
    assert len(loads) == 4  # 4 renderings parsed once each; model_output.json skipped from its first bytes


def test_naacl_folder_reads_layout_json():
    doc = read_mineru(NAACL)
    assert doc.input_format == "middle_pdf_info"
    assert doc.doc_id == doc_id_from_bytes((NAACL / "layout.json").read_bytes())


def test_mineru_kit_zip(tmp_path: Path):
    z = tmp_path / "guideline.zip"
    with zipfile.ZipFile(z, "w") as zf:
        for name in ("middle_json.json", "structured_content.json", "model_output.json", "markdown.md"):
            zf.write(EN / name, name)
        zf.writestr("images/page_1_image_10.jpg", b"\xff\xd8\xff")
    doc = read_mineru(z)
    assert doc.input_format == "docvortex_middle" and doc.name == "guideline"
    assert doc.doc_id == doc_id_from_bytes((EN / "middle_json.json").read_bytes())
    assert doc == read_mineru(EN / "middle_json.json").model_copy(update={"source": str(z), "name": "guideline"})


def test_cloud_api_zip_layout(tmp_path: Path):
    """3.x cloud zip: full.md, {uuid}_content_list.json, {uuid}_content_list_v2.json, layout.json, images/."""
    z = tmp_path / "2024.naacl-long.132.zip"
    uid = "cf78137b-0000-4000-8000-000000000000"
    with zipfile.ZipFile(z, "w") as zf:
        zf.write(NAACL / "content_list.json", f"{uid}_content_list.json")
        zf.write(NAACL / "content_list_v2.json", f"{uid}_content_list_v2.json")
        zf.write(NAACL / "layout.json", "layout.json")
        zf.writestr("full.md", "# title\n")
    doc = read_mineru(z)
    assert doc.input_format == "middle_pdf_info"
    assert doc.name == "2024.naacl-long.132"


def test_method_folder_layout_and_names(tmp_path: Path):
    """<out>/<name>/auto/<name>_content_list.json, as mineru <= 3.x writes it."""
    run = tmp_path / "out" / "naacl132" / "auto"
    run.mkdir(parents=True)
    shutil.copy(NAACL / "content_list.json", run / "naacl132_content_list.json")
    shutil.copy(NAACL / "content_list_v2.json", run / "naacl132_content_list_v2.json")
    assert read_mineru(run).name == "naacl132"
    assert read_mineru(run.parent).input_format == "content_list_v2"  # v2 preferred over v1
    assert read_mineru(run / "naacl132_content_list.json").name == "naacl132"
    assert read_mineru(run / "naacl132_content_list.json", name="custom").name == "custom"


def test_two_method_folders_of_one_run_pick_auto(shared_dir: Path):
    doc = read_mineru(SHARED / "mineru-2.6.6_pipeline+vlm_preprocess_v4_zh-drainage-standard")
    assert doc.doc_id == doc_id_from_bytes(
        (SHARED / "mineru-2.6.6_pipeline+vlm_preprocess_v4_zh-drainage-standard/auto/1_middle.json").read_bytes()
    )


def test_folder_with_several_documents_is_refused(tmp_path: Path):
    for folder in (EN, ZH):
        shutil.copy(folder / "middle_json.json", tmp_path / f"{folder.name[-2:]}_middle.json")
    with pytest.raises(UnknownFormatError, match="different documents") as info:
        read_mineru(tmp_path)
    assert info.value.path == str(tmp_path)


def test_empty_folder_and_folder_of_model_outputs(tmp_path: Path):
    with pytest.raises(InputNotFoundError, match=r"no \.json files"):
        read_mineru(tmp_path)
    shutil.copy(EN / "model_output.json", tmp_path / "model_output.json")
    (tmp_path / "notes.json").write_text('{"hello": 1}', encoding="utf-8")
    with pytest.raises(InputNotFoundError) as info:
        read_mineru(tmp_path)
    assert "model output" in str(info.value) and "matches no MinerU format" in str(info.value)


def test_format_is_detected_by_content_not_name(tmp_path: Path):
    wrong = tmp_path / "report_content_list.pdf"  # a docvortex middle under a misleading name
    shutil.copy(EN / "middle_json.json", wrong)
    doc = read_mineru(wrong)
    assert doc.input_format == "docvortex_middle"
    assert doc.name == "report"


def test_pdf_input_is_handed_to_the_pdf_route(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    from structaware_readers.mineru import pdf as mineru_pdf

    pdf = tmp_path / "paper.bin"  # a PDF by content, whatever its name
    pdf.write_bytes(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n")
    expected = read_mineru(TINY / "middle_json.json")
    calls = []
    monkeypatch.setattr(mineru_pdf, "parse_pdf", lambda path: calls.append(Path(path)) or expected)
    assert read_mineru(pdf) is expected
    assert read_mineru(pdf, name="renamed").name == "renamed"
    assert calls == [pdf, pdf]


# --------------------------------------------------------------------- errors


def _write(tmp_path: Path, name: str, data) -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def test_missing_path():
    with pytest.raises(InputNotFoundError):
        read_mineru(REPO / "no" / "such" / "file.json")


@pytest.mark.parametrize(
    "data,needle",
    [
        ({"foo": 1, "bar": [1]}, "matches no MinerU format"),
        ([1, 2, 3], "matches no MinerU format"),
        ([{"element_id": "x", "type": "Title", "text": "t", "metadata": {}}], "Unstructured"),
        ("just some text", "not JSON"),
    ],
)
def test_unknown_content_names_the_file(tmp_path: Path, data, needle):
    path = _write(tmp_path, "input.json", data)
    with pytest.raises(UnknownFormatError, match=needle) as info:
        read_mineru(path)
    assert info.value.path == str(path)


@pytest.mark.parametrize("path", [EN / "model_output.json", TINY / "model_output.json"])
def test_model_outputs_point_to_the_right_file(path: Path):
    with pytest.raises(UnknownFormatError, match=r"middle_json\.json"):
        read_mineru(path)


def test_legacy_model_json_refused(shared_dir: Path):
    with pytest.raises(UnknownFormatError, match=r"VLM _model\.json"):
        read_mineru(SHARED / "mineru-2.6.6_vlm_preprocess_v4_zh-aviation-paper/demo1_model.json")
    with pytest.raises(UnknownFormatError, match=r"pipeline _model\.json"):
        read_mineru(SHARED / "mineru-2.7.6_pipeline_MinerU-pr4637_svolt-datasheet/svolt_model.json")


@pytest.mark.parametrize(
    "data,field",
    [
        ('[{"type": "text", "text": "a", "page_idx": 0}, ', "json"),
        ([{"type": "text", "text": "hello", "page_idx": 0}, {"text": "no type", "page_idx": 0}], "[1].type"),
        ([{"type": "text", "text": "hello", "page_idx": "zero"}], "[0].page_idx"),
        ([{"type": "text", "text": "hello", "page_idx": 0, "bbox": [1, 2, 3]}], "[0].bbox"),
        ([{"type": "text", "text": ["not", "a", "string"], "page_idx": 0}], "[0].text"),
        ([{"type": "table", "table_body": 5, "img_path": "x.jpg", "page_idx": 0}], "[0].table_body"),
        ([{"type": "list", "list_items": "a, b", "page_idx": 0}], "[0].list_items"),
        ({"pdf_info": [{"page_idx": 0, "page_size": [595, 842]}]}, "pdf_info[0].para_blocks"),
        ({"pdf_info": [{"page_idx": 0, "page_size": "A4", "para_blocks": []}]}, "pdf_info[0].page_size"),
        (
            {"pdf_info": [{"page_idx": 0, "page_size": [595, 842], "para_blocks": [{"bbox": [0, 0, 1, 1]}]}]},
            "pdf_info[0].para_blocks[0].type",
        ),
        ({"schema": "docvortex.middle", "schema_version": "2.0", "pages": {"0": []}}, "pages"),
        (
            {
                "schema": "docvortex.middle",
                "schema_version": "2.0",
                "pages": [{"page_idx": 0, "blocks": [{"type": "text", "content": 7}]}],
            },
            "pages[0].blocks[0].content",
        ),
        (
            [
                [
                    {"type": "title", "content": {"title_content": [{"type": "text", "content": "x"}], "level": 1}},
                    {"content": {}},
                ]
            ],
            "[0][1].type",
        ),
        ({"pages": [{"page_idx": 0, "blocks": [{"type": "table", "content": ["|a|"]}]}]}, "pages[0].blocks[0].content"),
    ],
)
def test_malformed_input_names_file_and_field(tmp_path: Path, data, field: str):
    path = _write(tmp_path, "bad.json", data)
    with pytest.raises(MalformedInputError) as info:
        read_mineru(path)
    assert info.value.path == str(path)
    assert info.value.field == field
    assert str(info.value).startswith(f"{path}: {field}: ")


def test_corrupt_zip(tmp_path: Path):
    z = tmp_path / "broken.zip"
    z.write_bytes(b"PK\x03\x04" + b"\x00" * 40)
    with pytest.raises(MalformedInputError, match="corrupt zip"):
        read_mineru(z)


@pytest.mark.parametrize(
    "data",
    [
        [],
        [{"type": "header", "text": "Running head", "page_idx": 0}, {"type": "text", "text": "", "page_idx": 0}],
        {"schema": "docvortex.middle", "schema_version": "2.0", "pages": [{"page_idx": 0}]},
    ],
    ids=["empty-list", "furniture-only", "no-blocks"],
)
def test_no_body_text_is_an_empty_document(tmp_path: Path, data):
    path = _write(tmp_path, "empty.json", data)
    with pytest.raises(EmptyDocumentError) as info:
        read_mineru(path)
    assert info.value.path == str(path)


def test_unknown_input_format_argument():
    with pytest.raises(UnknownFormatError, match="input_format"):
        parse_mineru_json([], source="mem", doc_id="0" * 16, name="x", input_format="content_list_v3")


# ---------------------------------- older content_list conventions, in memory

OLD_STYLE = [
    # magic-pdf 0.6-era conventions: no page_idx and no bbox on the first page
    {"type": "text", "text": "1. Scope", "text_level": 1},
    {"type": "text", "text": "This guideline covers adults."},
    {"type": "image", "img_path": "images/a.jpg", "img_caption": "Figure 1 Old-style caption", "img_footnote": "Source: x"},
    {"type": "text", "text": "3", "page_idx": 0},
    # 2.x/3.x conventions from here on
    {"type": "text", "text": "1.1 Background", "text_level": 1, "page_idx": 1, "bbox": [100, 80, 500, 100]},
    {"type": "table", "img_path": "images/t.jpg", "table_caption": ["Table 1 Doses"], "table_footnote": ["a) adults"],
     "table_body": "\n\n<table><tr><td>Drug</td><td>Dose</td></tr><tr><td>X</td><td>5 mg</td></tr></table>\n\n",
     "page_idx": 1, "bbox": [100, 700, 900, 950]},
    {"type": "discarded", "text": "- 2 -", "page_idx": 1, "bbox": [480, 960, 520, 975]},
    {"type": "table", "img_path": "", "table_caption": [], "table_footnote": [], "page_idx": 2, "bbox": [100, 60, 900, 300]},
    {"type": "text", "text": "", "page_idx": 2, "bbox": [100, 310, 900, 400]},
    {"type": "image", "img_path": "images/f.jpg", "image_caption": ["Figure 2 Triage"], "sub_type": "flowchart",
     "content": "```mermaid\nflowchart TD\n  A[Fever] -->|yes| B[Test]\n```", "page_idx": 2, "bbox": [100, 420, 900, 800]},
    {"type": "code", "code_body": "```mermaid\ngraph LR\n  X --> Y\n```", "code_caption": ["Figure 3"], "page_idx": 2},
    {"type": "code", "code_body": "print('hi')", "sub_type": "code", "page_idx": 2},
    {"type": "equation", "text": "$$\nE = mc^2\n$$", "text_format": "latex", "page_idx": 2},
    {"type": "list", "sub_type": "text", "list_items": ["First item", "Second item"], "page_idx": 2},
    {"type": "list", "sub_type": "ref_text", "list_items": ["[1] A. Author. 2020."], "page_idx": 2},
    {"type": "ref_text", "text": "[2] B. Author. 2021.", "page_idx": 2},
    {"type": "page_footnote", "text": "* Corresponding author", "page_idx": 2},
    {"type": "discarded", "text": "Journal of Tests", "page_idx": 2, "bbox": [100, 20, 400, 40]},
    {"type": "aside_text", "text": "Draft", "page_idx": 2},
    {"type": "phonetic", "text": "extra type kept as text", "page_idx": 2},
]  # fmt: skip


def test_old_and_new_content_list_conventions():
    assert detect_format(OLD_STYLE) == "content_list"
    doc = parse_mineru_json(OLD_STYLE, source="memory", doc_id="0123456789abcdef", name="old")
    by_id = {b.block_id: b for b in doc.blocks}
    assert doc.page_count == 3 and doc.page_sizes == [None, None, None]
    assert by_id["p1-e0"].kind is BlockKind.HEADING and by_id["p1-e0"].level == 1 and by_id["p1-e0"].bbox is None
    assert by_id["p1-e2"].caption == "Figure 1 Old-style caption" and by_id["p1-e2"].footnote == "Source: x"
    assert by_id["p1-e3"].kind is BlockKind.PARAGRAPH  # a bare "3" in body text stays text
    assert by_id["p2-e0"].level == 2 and by_id["p2-e0"].bbox == (0.1, 0.08, 0.5, 0.1)
    table = by_id["p2-e1"]
    assert (
        table.table.header_rows == [["Drug", "Dose"]]
        and table.caption == "Table 1 Doses"
        and table.footnote == "a) adults"
    )
    assert table.extra_pages == [3] and table.extra_bboxes == [(0.1, 0.06, 0.9, 0.3)]  # the ghost on page 3
    assert by_id["p2-e2"].kind is BlockKind.PAGE_NUMBER
    assert "p3-e0" not in by_id and "p3-e1" not in by_id  # ghost table and emptied text dropped, ids kept
    flow = by_id["p3-e2"]
    assert flow.kind is BlockKind.FLOWCHART and flow.mermaid == "flowchart TD\n  A[Fever] -->|yes| B[Test]"
    assert flow.caption == "Figure 2 Triage"
    assert by_id["p3-e3"].kind is BlockKind.FLOWCHART and by_id["p3-e3"].mermaid == "graph LR\n  X --> Y"
    assert by_id["p3-e4"].kind is BlockKind.CODE and by_id["p3-e4"].text == "print('hi')"
    assert by_id["p3-e5"].kind is BlockKind.EQUATION and by_id["p3-e5"].text == "$$\nE = mc^2\n$$"
    assert by_id["p3-e6"].kind is BlockKind.LIST and by_id["p3-e6"].items == ["First item", "Second item"]
    assert by_id["p3-e7"].kind is BlockKind.REFERENCE and by_id["p3-e7"].items == ["[1] A. Author. 2020."]
    assert by_id["p3-e8"].kind is BlockKind.REFERENCE
    assert by_id["p3-e9"].kind is BlockKind.FOOTNOTE and not by_id["p3-e9"].is_furniture
    assert by_id["p3-e10"].kind is BlockKind.HEADER  # discarded, top of the page
    assert by_id["p3-e11"].kind is BlockKind.ASIDE
    assert by_id["p3-e12"].kind is BlockKind.PARAGRAPH and by_id["p3-e12"].source_type == "phonetic"
    assert doc.title == ""  # the only first-page heading is numbered


def test_docvortex_code_block_in_mermaid_is_a_flowchart():
    """4.x code blocks carry ``guess_lang``; a Mermaid one becomes a flowchart."""
    data = {
        "schema": "docvortex.middle", "schema_version": "2.0",
        "metadata": {"producer": {"name": "mineru", "version": "4.0.12"}, "document": {"page_count": 1}},
        "extensions": {"docvortex_layout": {"pages": [{"page_idx": 0, "width_pt": 600, "height_pt": 800}]}},
        "pages": [{"page_idx": 0, "blocks": [
            {"type": "paragraph_title", "index": 0, "bbox": [0.1, 0.1, 0.5, 0.12], "level": 2,
             "content": [{"type": "text", "content": "4.2 Algorithm"}]},
            {"type": "code", "index": 1, "bbox": [0.1, 0.2, 0.9, 0.5], "sub_type": "code", "guess_lang": "mermaid",
             "content": [{"type": "code_body", "index": 1, "bbox": [0.1, 0.2, 0.9, 0.5], "content": "flowchart LR\n  A --> B"},
                         {"type": "code_caption", "index": 2, "content": [{"type": "text", "content": "Figure 2 "},
                                                                          {"type": "equation_inline", "content": "x^2"}]}]},
            {"type": "image", "index": 3, "bbox": [0.1, 0.55, 0.9, 0.9], "sub_type": "flowchart",
             "content": [{"type": "image_body", "index": 3, "bbox": [0.1, 0.55, 0.9, 0.9], "image_path": "images/a.jpg",
                          "content": "A -> B"}]},
        ]}],
    }  # fmt: skip
    doc = parse_mineru_json(data, source="memory", doc_id="f" * 16, name="code")
    heading, code, image = doc.blocks
    assert heading.level == 2 and doc.page_sizes == [(600.0, 800.0)] and doc.parser_version == "4.0.12"
    assert code.kind is BlockKind.FLOWCHART and code.mermaid == "flowchart LR\n  A --> B"
    assert code.caption == "Figure 2 $x^2$"
    assert image.kind is BlockKind.FLOWCHART and image.mermaid is None and image.text == "A -> B"
