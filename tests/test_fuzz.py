"""Property-based fuzzing (hypothesis): every input ends in units or in one typed error (issue 12).

Properties, each over generated inputs seeded with ``../shared/cases/robustness`` (when present)
and the small MinerU fixtures of ``tests/fixtures``:

* MinerU JSON and Unstructured elements JSON (structure-aware: known item types and fields with
  hostile values; byte mutations of real inputs) and zips: ``load_document`` + ``build_units`` return units whose text
  encodes as UTF-8, or raise a :class:`StructawareError` naming the file;
* the store: any sparse/dense vector and id reaches the engine valid or raises ``StoreError``
  (never a native panic);
* the query path: any text and ``k`` gives hits or a ``StructawareError``.

Profiles (``HYPOTHESIS_PROFILE``): ``ci`` (default, bounded so the module runs in about a minute on
2 cores) and ``long`` (``benchmarks/bench_robustness.py`` runs the CLI per input with a timeout and
an RSS cap instead; see BENCHMARKS.md).
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from robust_worker import HashModel
from structaware_readers.errors import StoreError, StructawareError
from structaware_readers.load.loader import load_document
from structaware_readers.units import build_units
from structaware_retrievers.encoders import DenseEncoder, EmbeddingCache, SparseEncoder, SparseVector
from structaware_retrievers.index.structure_index import StructureIndex
from structaware_retrievers.store import PointRecord

settings.register_profile(
    "ci", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
settings.register_profile(
    "long", max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

ROBUSTNESS = Path(__file__).resolve().parents[1].parent / "shared" / "cases" / "robustness"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _seeds() -> list[bytes]:
    files = sorted(ROBUSTNESS.glob("*.json")) if ROBUSTNESS.is_dir() else []
    files += sorted(p for p in FIXTURES.rglob("*content_list*.json") if p.stat().st_size < 200_000)[:4]
    return [p.read_bytes() for p in files] or [b"[]"]


SEEDS = _seeds()

# -- MinerU content lists with hostile values ------------------------------------------------------

HUGE = st.sampled_from(["1" + "0" * 5000, "1" + "0" * 400, "1e400", "-1e400", "Infinity", "NaN", "-0", "1e-400"])
SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=40),
    st.sampled_from(["\ud800", "<table><tr><td rowspan=1000 colspan=1000>x</td></tr></table>", "Grade A " * 50]),
)
VALUE = st.recursive(
    SCALAR,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
TYPES = st.sampled_from(
    ["text", "title", "table", "image", "list", "equation", "code", "header", "footer", "discarded", "x"]
)
FIELDS = st.sampled_from(["text", "text_level", "page_idx", "bbox", "table_body", "table_caption", "table_footnote",
                          "img_path", "list_items", "code_body", "image_caption"])  # fmt: skip


@st.composite
def content_list_text(draw: st.DrawFn) -> str:
    """JSON text of a content list: real item shapes, any field values, some numbers out of range."""
    items = []
    for _ in range(draw(st.integers(1, 6))):
        item: dict = {"type": draw(TYPES), "text": draw(st.text(max_size=60)), "page_idx": draw(st.integers(0, 3))}
        for key in draw(st.lists(FIELDS, max_size=4)):
            item[key] = draw(VALUE)
        items.append(item)
    text = json.dumps(items, allow_nan=True)
    if draw(st.booleans()):  # put a literal no JSON encoder would write into a numeric field
        text = text.replace('"page_idx": 0', f'"page_idx": {draw(HUGE)}', 1)
    prefix = draw(st.sampled_from(["", "\ufeff", " " * 9000, "\n\t"]))
    return prefix + text


EL_TYPES = st.sampled_from(["Title", "NarrativeText", "Table", "TableChunk", "CompositeElement", "ListItem", "Header",
                            "Footer", "Image", "FigureCaption", "PageNumber", "Weird"])  # fmt: skip
MD_KEYS = st.sampled_from(["page_number", "coordinates", "text_as_html", "orig_elements", "table_id", "chunk_index",
                           "parent_id", "category_depth", "filetype", "num_carried_over_header_rows"])  # fmt: skip


@st.composite
def unstructured_text(draw: st.DrawFn) -> str:
    """JSON text of Unstructured elements: real element shapes, any metadata values."""
    elements = []
    for i in range(draw(st.integers(1, 6))):
        md: dict = {"page_number": draw(st.integers(1, 3)), "filetype": "application/pdf"}
        for key in draw(st.lists(MD_KEYS, max_size=4)):
            md[key] = draw(VALUE)
        if draw(st.booleans()):
            md["coordinates"] = {"points": draw(st.lists(st.lists(SCALAR, max_size=3), max_size=5)),
                                 "system": "PixelSpace", "layout_width": draw(SCALAR), "layout_height": 1000}  # fmt: skip
        elements.append({"type": draw(EL_TYPES), "element_id": f"e{i}", "text": draw(st.text(max_size=60)),
                         "metadata": md})  # fmt: skip
    text = json.dumps(elements, allow_nan=True)
    if draw(st.booleans()):
        text = text.replace('"page_number": 1', f'"page_number": {draw(HUGE)}', 1)
    return text


@given(text=unstructured_text())
def test_fuzz_unstructured_elements(tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    p = tmp_path_factory.mktemp("uns") / "elements.json"
    p.write_text(text, encoding="utf-8", errors="surrogatepass")
    _units_or_typed_error(p)


@st.composite
def mutated_seed(draw: st.DrawFn) -> bytes:
    """A seed input with a few byte-level edits (flip, delete, duplicate a slice, truncate)."""
    data = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 4))):
        if not data:
            break
        at = draw(st.integers(0, len(data) - 1))
        op = draw(st.sampled_from(["flip", "delete", "dup", "truncate", "insert"]))
        if op == "flip":
            data[at] = draw(st.integers(0, 255))
        elif op == "delete":
            del data[at : at + draw(st.integers(1, 16))]
        elif op == "dup":
            data[at:at] = data[at : at + draw(st.integers(1, 64))] * draw(st.integers(1, 50))
        elif op == "truncate":
            del data[at:]
        else:
            data[at:at] = draw(st.sampled_from([b"[", b"{", b"\\ud800", b"99999999999999999999999", b"\xff", b"\x00"]))
    return bytes(data)


def _units_or_typed_error(path: Path) -> None:
    try:
        units = build_units(load_document(path))
    except StructawareError as exc:
        assert exc.path, f"error without a file: {exc!r}"
        return
    for u in units:
        u.text.encode("utf-8")
        (u.context or "").encode("utf-8")


@given(text=content_list_text())
def test_fuzz_content_lists(tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    p = tmp_path_factory.mktemp("cl") / "x_content_list.json"
    p.write_text(text, encoding="utf-8", errors="surrogatepass")
    _units_or_typed_error(p)


@given(data=mutated_seed())
def test_fuzz_mutated_seed_inputs(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    p = tmp_path_factory.mktemp("mut") / "input.json"
    p.write_bytes(data)
    _units_or_typed_error(p)


@given(
    members=st.lists(st.tuples(st.sampled_from(["a.json", "auto/x_content_list.json", "b/middle.json"]), mutated_seed()),
                     min_size=1, max_size=3, unique_by=lambda m: m[0]),
    method=st.sampled_from([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED]),
    corrupt=st.integers(min_value=-1, max_value=400),
)  # fmt: skip
def test_fuzz_zips(tmp_path_factory: pytest.TempPathFactory, members: list, method: int, corrupt: int) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=method) as zf:
        for name, data in members:
            zf.writestr(name, data)
    raw = bytearray(buf.getvalue())
    if 0 <= corrupt < len(raw):
        raw[corrupt] ^= 0xFF
    p = tmp_path_factory.mktemp("zip") / "out.zip"
    p.write_bytes(bytes(raw))
    _units_or_typed_error(p)


# -- the store and the query path -------------------------------------------------------------


@pytest.fixture(scope="module")
def small_index(tmp_path_factory: pytest.TempPathFactory) -> StructureIndex:
    cache = EmbeddingCache()
    ix = StructureIndex(
        tmp_path_factory.mktemp("fuzz") / "ix",
        dense=DenseEncoder(model=HashModel(), cache=cache),
        sparse=SparseEncoder(cache=cache),
    )
    seed = FIXTURES.rglob("*content_list*.json")
    summary = ix.ingest([next(seed)], optimize=False)
    assert summary.ok and ix.count() > 0
    yield ix
    ix.close()


ANY_INT = st.integers(min_value=-(2**65), max_value=2**65)
ANY_FLOAT = st.floats(allow_nan=True, allow_infinity=True)


@pytest.mark.integration
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(
    pid=st.one_of(st.uuids().map(str), st.uuids().map(lambda u: u.hex), st.uuids().map(lambda u: str(u).upper()),
                  st.text(max_size=40)),
    indices=st.lists(st.one_of(ANY_INT, st.sampled_from([0, 1, 2**32 - 1, 2**32])), max_size=6),
    values=st.lists(st.one_of(ANY_FLOAT, st.integers(-5, 5)), max_size=6),
    dense=st.lists(ANY_FLOAT, min_size=15, max_size=17),
)  # fmt: skip
def test_fuzz_store_points(small_index: StructureIndex, pid: str, indices: list, values: list, dense: list) -> None:
    before = small_index.count()
    point = PointRecord(id=pid, payload={"doc_id": "fuzz"}, dense=dense, sparse=SparseVector(indices, values))
    try:
        small_index.store.upsert([point])
    except StoreError as exc:
        assert exc.field in ("id", "dense", "sparse")
        assert small_index.count() == before
        return
    small_index.store.delete_ids([pid])  # accepted: keep the index as it was
    assert small_index.count() == before


@pytest.mark.integration  # an index folder on the embedded engine
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(
    text=st.text(max_size=200) | st.sampled_from(["\udcff\udcfe", "的" * 500, "a" * 20_000]),
    k=st.integers(min_value=-5, max_value=10**4),
    mode=st.sampled_from(["hybrid", "dense", "sparse"]),
)
def test_fuzz_queries(small_index: StructureIndex, text: str, k: int, mode: str) -> None:
    try:
        hits = small_index.query(text, k=k, mode=mode)  # type: ignore[arg-type]
    except StructawareError:
        return
    assert len(hits) <= k and [h.rank for h in hits] == list(range(1, len(hits) + 1))
