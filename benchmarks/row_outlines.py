"""Table-row outlines against the PDF's text layer: does each ``table_row`` unit's box hold its row?

Usage::

    python benchmarks/row_outlines.py PARSED_DIR PDF_DIR [NAME ...] [--list KIND] [--grid-source SRC]

``PARSED_DIR`` holds MinerU outputs (``<NAME>.zip`` or folders) or PDFs (``<NAME>.pdf``, read from the PDF
alone: the product route of ``structaware units PDF``), ``PDF_DIR`` the PDFs (``<NAME>.pdf``); without names,
every parse with its PDF. Each document is loaded with its PDF (``load_document``) and built into units (``build_units``), as ``structaware units --json --pdf PDF ZIP`` does. For each table
row unit (a long cell spanning rows, said once, is a unit of its own) it reads the text under the row's box(es) from PDFium's characters
(a character is under a box when its centre is; boxes are 0..1 of the displayed page, origin top-left;
on a page printed twice over, the second copy's characters are left out, as the readers leave them out)
and compares words (NFKC, casefolded, letters and digits; each CJK character a word):

* ``cov``: share of the row's characters (its cells' words, by length) found under its boxes (a word
  is found when it occurs in the box's words run together: a word split over two lines counts);
* ``foreign``: share of the characters under the boxes that are no word of the row.

A row is ``boxed`` when it has a box of its own (not the whole table's region), ``good`` when
``cov >= 0.9`` and ``foreign <= 0.3``. Kinds of bad rows: ``unboxed``; ``unread`` (the table's region
on the row's page does not hold 90 % of the row either: a parse whose words the text layer does not
print, nothing a box can fix; or the page has no text layer to judge the box against); ``merged``
(what is missing is a cell repeated from the row above or below, a merged cell printed once); ``short``
(the box misses other lines of the row); ``foreign`` (the box holds too much of other rows). Prints one line per document and the totals; ``--list KIND``
prints the bad rows of that kind (row text cut to 100 characters, the figures: evaluation only).
"""

from __future__ import annotations

import argparse
import ctypes
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pypdfium2
import pypdfium2.raw as pdfium_c

from structaware_readers.load.loader import load_document
from structaware_readers.models import BlockKind, ParsedDocument, Unit, UnitType
from structaware_readers.text.ghost_copy import pdfium_ghosts
from structaware_readers.units import build_units

MIN_COV, MAX_FOREIGN = 0.9, 0.3
_WORD = re.compile(r"[^\W_]+")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af]")
_DEVICE = 100_000


def words(text: str) -> list[str]:
    out: list[str] = []
    for word in _WORD.findall(unicodedata.normalize("NFKC", text).casefold()):
        out.extend(list(word) if _CJK.search(word) else [word])
    return out


@dataclass
class PageChars:
    """A page's characters in PDFium's order with their centres (0..1 of the displayed page)."""

    chars: list[str]
    centres: list[tuple[float, float]]

    def text_in(self, boxes: list[tuple[float, float, float, float]]) -> str:
        out = []
        for ch, (x, y) in zip(self.chars, self.centres):
            inside = any(b[0] <= x <= b[2] and b[1] <= y <= b[3] for b in boxes)
            out.append(ch if inside else " ")
        return "".join(out)


class PdfChars:
    def __init__(self, pdf: Path) -> None:
        self.doc = pypdfium2.PdfDocument(str(pdf))
        self.pages: dict[int, PageChars] = {}

    def page(self, number: int) -> PageChars:
        if number not in self.pages:
            page = self.doc[number - 1]
            text = page.get_textpage()
            x, y = ctypes.c_int(), ctypes.c_int()
            chars, centres = [], []
            ghost = pdfium_ghosts(text)  # a page printed twice over is read once, as the readers read it
            for i in range(text.count_chars()):
                ch = " " if i in ghost else text.get_text_range(i, 1)
                left, bottom, right, top = text.get_charbox(i)
                pdfium_c.FPDF_PageToDevice(
                    page,
                    0,
                    0,
                    _DEVICE,
                    _DEVICE,
                    0,
                    (left + right) / 2,
                    (top + bottom) / 2,
                    ctypes.byref(x),
                    ctypes.byref(y),
                )
                chars.append(ch)
                centres.append((x.value / _DEVICE, y.value / _DEVICE))
            text.close()
            page.close()
            self.pages[number] = PageChars(chars, centres)
        return self.pages[number]


def _cov(row: list[str], found: list[str]) -> float:
    joined = "".join(found)
    total = sum(len(w) for w in row)
    return sum(len(w) for w in row if w in joined) / total if total else 1.0


def _foreign(row: list[str], found: list[str]) -> float:
    joined = "".join(row)
    total = sum(len(w) for w in found)
    return sum(len(w) for w in found if w not in joined) / total if total else 0.0


def _regions(doc: ParsedDocument) -> dict[str, tuple[float, float, float, float] | None]:
    out: dict[str, tuple[float, float, float, float] | None] = {}
    for b in doc.blocks:
        if b.kind is not BlockKind.TABLE:
            continue
        out[b.block_id] = b.bbox
        for eid, box in zip(b.extra_ids, b.extra_bboxes):
            out.setdefault(eid, box)
    return out


def judge(doc: ParsedDocument, units: list[Unit], pdf: Path) -> list[dict]:
    """One record per table row: its boxes, ``cov``, ``foreign``, ``kind`` (``good`` or a bad kind)."""
    regions = _regions(doc)
    sources = {b.block_id: b.table.grid_source for b in doc.blocks if b.table is not None}
    rows = [u for u in units if u.unit_type is UnitType.TABLE_ROW and u.table is not None]
    chars = PdfChars(pdf)
    by_table: dict[str, list[Unit]] = {}
    for u in rows:
        by_table.setdefault(u.table.table_id, []).append(u)  # type: ignore[union-attr]
    out = []
    try:
        for u in rows:
            tid, r = u.table.table_id, u.table.row_index  # type: ignore[union-attr]
            cells = u.table.cells  # type: ignore[union-attr]
            own = words(" ".join(cells))
            refs = [(e, b, p) for e, b, p in zip(u.element_ids, u.bboxes, u.element_pages) if b is not None]
            boxed = bool(refs) and all(b != regions.get(e) for e, b, _ in refs)
            rec = {
                "doc": doc.name,
                "table": tid,
                "row": r,
                "text": u.text,
                "pages": [p for _, _, p in refs],
                "source": sources.get(tid, "?"),
                "boxes": [b for _, b, _ in refs],
            }
            if not refs:
                rec.update(cov=0.0, foreign=0.0, kind="unboxed")
                out.append(rec)
                continue
            found = words(" ".join(chars.page(p).text_in([b]) for _, b, p in refs))
            in_region = words(
                " ".join(chars.page(p).text_in([regions[e]]) for e, _, p in refs if regions.get(e) is not None)
            )
            cov, foreign = _cov(own, found), _foreign(own, found)
            rec.update(cov=cov, foreign=foreign)
            if not boxed:
                kind = "unboxed"
            elif cov >= MIN_COV and foreign <= MAX_FOREIGN:
                kind = "good"
            elif (in_region or _no_layer(chars, [p for _, _, p in refs])) and _cov(own, in_region) < MIN_COV:
                kind = "unread"
            elif cov < MIN_COV:
                kind = "merged" if _missing_is_repeated(u, by_table[tid], own, found) else "short"
            else:
                kind = "foreign"
            rec["kind"] = kind
            out.append(rec)
    finally:
        chars.doc.close()
    return out


def _no_layer(chars: PdfChars, pages: list[int]) -> bool:
    """None of ``pages`` prints a character in its text layer (a scanned page): nothing to judge a box against."""
    return not any(ch.strip() for p in set(pages) for ch in chars.page(p).chars)


def _missing_is_repeated(u: Unit, table: list[Unit], own: list[str], found: list[str]) -> bool:
    """What the box misses lies in cells equal to the same column of the row above or below."""
    r = u.table.row_index  # type: ignore[union-attr]
    near = [v.table.cells for v in table if abs(v.table.row_index - r) == 1]  # type: ignore[union-attr]
    repeated = {
        c
        for c, cell in enumerate(u.table.cells)  # type: ignore[union-attr]
        if cell.strip() and any(c < len(n) and n[c].strip() == cell.strip() for n in near)
    }
    if not repeated:
        return False
    rest = words(" ".join(cell for c, cell in enumerate(u.table.cells) if c not in repeated))  # type: ignore[union-attr]
    return _cov(rest, found) >= MIN_COV if rest else True


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("parsed", type=Path)
    ap.add_argument("pdfs", type=Path)
    ap.add_argument("names", nargs="*")
    ap.add_argument("--list", default="", help="print the rows of this kind")
    ap.add_argument("--grid-source", default="", help="only rows of tables with this grid source")
    ap.add_argument("--by-source", action="store_true", help="one line per document and grid source")
    args = ap.parse_args()
    names = args.names or sorted(
        {
            p.name.removesuffix(".zip").removesuffix(".pdf")
            for p in args.parsed.iterdir()
            if (args.pdfs / f"{p.name.removesuffix('.zip').removesuffix('.pdf')}.pdf").is_file()
        }
    )
    total: Counter[str] = Counter()
    print("| document | rows | boxed | good | unboxed | unread | merged | short | foreign |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in names:
        src = next(
            (p for p in (args.parsed / f"{name}.zip", args.parsed / name) if p.exists()), args.parsed / f"{name}.pdf"
        )
        pdf = args.pdfs / f"{name}.pdf"
        doc = load_document(src, pdf=pdf)
        recs = judge(doc, build_units(doc), pdf)
        if args.grid_source:
            recs = [r for r in recs if r["source"] == args.grid_source]
        groups = sorted({r["source"] for r in recs}) if args.by_source else [""]
        for source in groups:
            part = [r for r in recs if not source or r["source"] == source]
            c = Counter(r["kind"] for r in part)
            c["rows"] = len(part)
            c["boxed"] = len(part) - c["unboxed"]
            total.update(c)
            print(_line(f"{name} {source}".strip(), c))
        for r in recs:
            if args.list and r["kind"] == args.list:
                print(
                    f"    p{r['pages']} {r['source']} {r['table']} r{r['row']} cov={r['cov']:.2f} "
                    f"foreign={r['foreign']:.2f} {[tuple(round(v, 3) for v in b) for b in r['boxes']]} "
                    f"{r['text'][:100]!r}"
                )
    print(_line("total", total))


def _line(name: str, c: Counter[str]) -> str:
    kinds = ("rows", "boxed", "good", "unboxed", "unread", "merged", "short", "foreign")
    return f"| {name} | " + " | ".join(str(c[k]) for k in kinds) + " |"


if __name__ == "__main__":
    main()
