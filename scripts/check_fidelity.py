"""Compare every unit's text with the PDF text layer of its pages: is it the PDF's own text?

Reads unit dumps (``--units``: JSON lines with ``source``, ``pages``, ``text``, as ``structaware units
--json`` prints them) or documents (built with the default options, as
``scripts/check_unit_text.py`` does), finds each document's PDF (the input itself, or
``--pdf-dir/<stem>.pdf`` with the stem of the unit's ``source`` or of the input file), reads the text
layer of every page with PDFium (``pypdfium2``), and counts per document:

* **altered numbers**: a number token of a unit's text (``0. 71``, ``72. 0``, ``1,234``: digits joined
  by ``,``, or by ``.`` and at most one space; ``3,393, 3,540``, a table row's two cells, are two,
  and so are ``2011. 10.4``, an entry ending in a year and the next entry's number: a number has one
  decimal point, so the first is checked with its full stop, ``2011.``)
  that the text layer of the unit's pages does not hold. A
  space inside the token must be white space in the text layer; where the token has none, the text
  layer may break the line (a number the PDF splits over two lines: ``0.`` / ``72``, a DOI's
  ``10.10`` / ``80``); a figure or a number's dot may not stand next to the match (``0.7`` is not
  found in ``0.71``). Superscripts compare by their figures (``m^2``, ``m²`` and the text layer's
  ``m2`` are one; a reference mark ``trial^12`` is the layer's ``trial12``; a mark after a number,
  ``1,234.5^6``, is the layer's ``1,234.56``, or the number and the mark apart where the layer reads
  the mark elsewhere: the number must then be printed whole on its own). Table cells are
  compared like any text: each of their numbers must be printed on the unit's pages.
* **glued words**: a run of 4+ Latin, Greek or Cyrillic letters of a unit's text that is no word of
  the text layer of its pages, while a cut of it into 2 or more such words is
  (``Pericardiocentesisisrecommendedfor``); and figures glued to a word of 3+ letters that the text
  layer prints as a word but never glued to those figures (``2009Grade``, a year over a header word;
  ``kg/m^2with``, a mark and the word after it). A word the page prints whole is never glued
  (``methylprednisolone``), nor one it joins across a line-end hyphen, nor one whose letter the
  font maps to a control character (``Yılmazo\\x01glu`` read ``Yılmazoglu``: no one can name the
  letter), nor one a narrow cell wraps without a hyphen (``hyper`` / ``tension``) that the document
  prints whole (:mod:`structaware_readers.text.layer`); CJK text has no spaces to lose.
* **broken hyphens**: a hyphen ending a line of the PDF (PDFium writes it ``U+FFFE``) that the unit
  does not write as the writer meant it (:func:`structaware_readers.text.layer.meant`): dropped from
  a compound (``angiotensinconverting`` for ``angiotensin-converting``) or kept with a space
  (``patient- centered``, ``asso- ciated``). ``short- and`` is meant (a suspended hyphen), and so is
  ``recommendations`` for the layer's ``rec\ufffeommendations``.
* **markup**: HTML tags and entities, as ``check_unit_text.py`` counts them (its class is used).
  ``^x``, this package's plain-text writing of a superscript (``1.73 m^2``, ``Class^a``), is no
  markup: the page prints a raised mark, which the text layer glues to its word (``m2``,
  ``Classa``, ``Personsa``); the caret keeps it apart from the word and from the figure before it
  (``10^9/L`` is not ``109/L``), in paragraphs and table cells alike
  (:mod:`structaware_readers.inline_markup`, ``table_recovery.reading_direction``). It is counted
  apart (``superscripts``), not as a fault.

A table row names its columns (``table.headers`` of the unit): a table that runs over several
pages prints its header once, on the page where it starts (the page of its block id ``p<N>-e<j>``,
the unit's ``table.table_id``), so a row on a later page is checked as two texts: its column headers
against that page and the row's pages, the rest against the row's pages only.

A flow path whose chart is a picture (the text layer holds fewer than 20 characters inside the
chart's box: the element ``flow.flowchart_id`` of the unit's ``element_ids`` / ``bboxes``) was read
from the picture (OCR); the text layer has nothing to compare it with, so it is counted apart
(``from pictures``) and checked for markup only, like a page without a text layer.

Pages whose text layer holds fewer than 20 characters (scans, pages read by OCR) are not compared:
a unit is checked on its pages that have a text layer, and skipped when none has. Without a PDF
(none found), a document's units are checked for markup only, and the line says so.

Prints one line per document, the totals and up to ``--examples`` examples of each count; exit code
1 when anything is counted. Runs on every development set::

    # unit dumps (multi_cpg, cpg: PDFs by the zip's stem), one file a document
    for z in ../shared/bench/multi_cpg/mineru-4.0.12-flash/*.zip; do n=$(basename "$z" .zip)
        structaware units --json --pdf ../shared/bench/multi_cpg/pdfs/$n.pdf "$z" > OUT/$n.jsonl; done
    python scripts/check_fidelity.py --units OUT/*.jsonl --pdf-dir ../shared/bench/multi_cpg/pdfs \\
        --pdf-dir ../shared/bench/cpg/pdfs
    # documents directly: PDFs (cpg_zh, finance), or MinerU zips beside --pdf-dir
    python scripts/check_fidelity.py ../shared/bench/cpg_zh/pdfs/*.pdf
    python scripts/check_fidelity.py ../shared/bench/cpg/mineru-4.0.12-flash/*.zip --pdf-dir ../shared/bench/cpg/pdfs
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_unit_text import MARKUP, _units_of
from structaware_readers.text.layer import MIN_PAGE_CHARS, WORD, PageWords, PdfTextLayer, merge, normal, split_glued

#: A number token of a unit's text: digits joined by ``,`` or by ``.`` and at most one space
#: (``0. 71``); a comma and a space part two numbers (``3,393, 3,540``: two table cells, a list).
NUMBER = re.compile(r"(?<![\d.,])\d+(?:(?:\. ?|,)\d+)*")
SUPERSCRIPT = re.compile(r"\^(\w{1,3})")
_KEPT_HYPHEN = re.compile(rf"({WORD.pattern})- ({WORD.pattern})")
MIN_GLUED = 4  # shorter runs of letters are not checked for glue
#: Figures and the word glued after them (``2009Grade``: a year over a header word; ``2with``: a mark
#: and the word after it), not after a letter (``mTBI2``, ``H2O`` are names).
_FIGURE_WORD = re.compile(r"(?<![^\W\d_])\d+(?:[.,]\d+)*([^\W\d_]{3,})")


_SUPERSCRIPT_FIGURES = re.compile(r"\^(\d+(?:[,–-]\d+)*)")


def _mark(m: re.Match[str]) -> str:
    """A superscript of letters loses its caret; one of figures keeps it for :data:`_SUPERSCRIPT_FIGURES`."""
    return m.group(0) if m.group(1)[0].isdigit() else m.group(1)


def _for_numbers(text: str) -> str:
    """NFKC with the superscript caret dropped: ``m^2`` and ``m²`` read ``m2``, as the text layer;
    a mark of figures is one number (``trial^26,76`` holds ``26,76``) and ends there (``m^2, 44%``
    holds ``2`` and ``44``, not ``2, 44``)."""
    return normal(_SUPERSCRIPT_FIGURES.sub(r"\1 ", SUPERSCRIPT.sub(_mark, text)))


def _for_words(text: str) -> str:
    """NFKC with a superscript set apart: ``Persons^a`` is the word ``Persons`` and a mark."""
    return normal(SUPERSCRIPT.sub(r" \1", text))


class PdfLayers:
    """The pages of a PDF as :class:`~structaware_readers.text.layer.PageWords` (1-based), read once."""

    def __init__(self, pdf: Path):
        self._layer = PdfTextLayer(pdf)
        self._pdf = pdf
        self._doc = None

    def region_chars(self, number: int, bbox: list[float]) -> int:
        """Characters other than white space the text layer of page ``number`` (1-based) holds inside
        ``bbox`` (``x0, y0, x1, y1`` in 0..1 of the page, from its top left)."""
        import pypdfium2

        if self._doc is None:
            self._doc = pypdfium2.PdfDocument(str(self._pdf))
        if not 1 <= number <= len(self._doc):
            return 0
        page = self._doc[number - 1]
        width, height = page.get_size()
        x0, y0, x1, y1 = bbox
        text = page.get_textpage().get_text_bounded(x0 * width, height - y1 * height, x1 * width, height - y0 * height)
        return len("".join(text.split()))

    def page(self, number: int) -> PageWords | None:
        """Page ``number``; ``None`` past the end or without a text layer."""
        return self._layer.page(number)


@lru_cache(maxsize=4096)
def _number_pattern(token: str) -> re.Pattern[str]:
    out = []
    for piece in re.split(r"(\d+)", token):
        if not piece:
            continue
        if piece.isdigit():  # the PDF may break a long figure over two lines (a DOI: 10.10 / 80)
            out.append(r"(?:[ \t]*\r?\n)?".join(piece))
        elif piece.endswith(" "):
            out.append(re.escape(piece.strip()) + r"\s+")
        else:
            out.append(re.escape(piece) + r"\s*")
    return re.compile(r"(?<![\d])(?<!\d[.,])" + "".join(out) + r"(?![.,]?\d)")


def number_tokens(text: str) -> list[str]:
    """The number tokens of ``text`` (:data:`NUMBER`), a token's ``. `` joining two numbers of which one
    holds a decimal point of its own parted (:func:`_parted`)."""
    return [t for token in NUMBER.findall(_for_numbers(text)) for t in _parted(token)]


def _parted(token: str) -> list[str]:
    """``token`` cut at each ``. `` where the figures on either side hold a point of their own: a number
    has one decimal point, so ``2011. 10.4`` is a list entry ending in a year, then the next entry's
    number (``2011.``, with its full stop, and ``21.1``), while ``0. 71`` stays one token, a number
    with a space put in."""
    out = [token.split(". ")[0]]
    for part in token.split(". ")[1:]:
        if "." in out[-1] or "." in part:
            out[-1] += "."
            out.append(part)
        else:
            out[-1] += ". " + part
    return out


#: A number and a raised mark of figures after it (``1,234.5^6``).
_NUMBER_MARK = re.compile(r"(?<![\d.,])(\d+(?:[.,]\d+)*)\^(\d+(?:[,\u2013-]\d+)*)")


def _marks_apart(text: str, page: PageWords) -> str:
    """``text`` with a raised mark of figures after a number set apart from it (``1,234.5 ^6``) where the
    page does not print the two glued (its text layer reads the mark elsewhere, not after the number):
    the number is then checked on its own, whole, and the mark on its own."""

    def apart(m: re.Match[str]) -> str:
        glued = normal(m.group(1) + m.group(2))
        return m.group(0) if _number_pattern(glued).search(page.text) else f"{m.group(1)} ^{m.group(2)}"

    return _NUMBER_MARK.sub(apart, text) if "^" in text else text


def altered_numbers(text: str, page: PageWords) -> list[str]:
    """Number tokens of ``text`` that the page text does not hold (module docstring)."""
    return [t for t in number_tokens(_marks_apart(text, page)) if not _number_pattern(t).search(page.text)]


def glued_words(text: str, page: PageWords) -> list[str]:
    """Runs of letters of ``text`` that are no word of the page but 2+ of its words, and figures glued
    to a word of the page that the page never prints glued (``2009Grade``, ``m^2with``)."""
    text = _for_words(text)
    found = [
        w for w in WORD.findall(text)
        if len(w) >= MIN_GLUED and split_glued(w, page, adjacent=False) is not None
    ]  # fmt: skip
    for run in text.split():
        if "%" in run or "://" in run or "www." in run:
            continue  # a web address (``%20Opioid``: an escaped space, the line broken after it)
        for m in _FIGURE_WORD.finditer(run):
            if m.group(1).lower() in page.words and m.group(0) not in page.text:
                found.append(m.group(0))
    return found


def broken_hyphens(text: str, page: PageWords) -> list[str]:
    """A hyphen the writer meant dropped (``angiotensinconverting``), or a line-end hyphen kept with
    its space where none was meant (``patient- centered``, ``asso- ciated``; ``short- and`` is meant)."""
    text = _for_words(text)
    out = []
    for w in WORD.findall(text):
        value = page.breaks.get(w.lower())
        if value is not None and value != w.lower() and w.lower() not in page.words:
            out.append(w)
    for m in _KEPT_HYPHEN.finditer(text):
        value = page.breaks.get((m.group(1) + m.group(2)).lower())
        if value is not None and value != m.group(0).lower():
            out.append(m.group(0))
    return out


@dataclass
class Counts:
    units: int = 0
    checked: int = 0
    numbers: int = 0
    glued: int = 0
    hyphens: int = 0
    markup: int = 0
    superscripts: int = 0
    pictures: int = 0
    examples: dict[str, list[str]] = field(default_factory=dict)

    def add(self, other: Counts) -> None:
        for name in ("units", "checked", "numbers", "glued", "hyphens", "markup", "superscripts", "pictures"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def note(self, kind: str, line: str, limit: int) -> None:
        ex = self.examples.setdefault(kind, [])
        if len(ex) < limit:
            ex.append(line)

    @property
    def faults(self) -> int:
        return self.numbers + self.glued + self.hyphens + self.markup


#: A flow path names its boxes ``Box 4: ...`` (the algorithm's own box numbers, printed in its
#: image or on its description page, not always on the unit's pages): not a number of the text.
BOX_LABEL = re.compile(r"\bBox \d+[a-z]?:")
#: The page a table starts on, in its block id (``p19-e5``).
TABLE_PAGE = re.compile(r"^p(\d+)-e\d+$")


def _header_page(unit: dict) -> int | None:
    """The page a table row's table starts on (its header's page), when it is not one of the row's."""
    table = unit.get("table") or {}
    m = TABLE_PAGE.match(str(table.get("table_id") or ""))
    page = int(m.group(1)) if m else None
    return page if page is not None and page not in (unit.get("pages") or []) else None


def _from_picture(unit: dict, layers: PdfLayers) -> bool:
    """True when ``unit`` is a flow path of a chart whose box holds no text layer (module docstring)."""
    chart = (unit.get("flow") or {}).get("flowchart_id")
    ids = unit.get("element_ids") or []
    if unit.get("unit_type") != "flow_path" or chart not in ids:
        return False
    at = ids.index(chart)
    boxes, pages = unit.get("bboxes") or [], unit.get("element_pages") or []
    if at >= len(boxes) or at >= len(pages) or not boxes[at]:
        return False
    return layers.region_chars(pages[at], boxes[at]) < MIN_PAGE_CHARS


def check_units(units: list[dict], layers: PdfLayers | None, *, examples: int = 5, name: str = "") -> Counts:
    """Counts of one document's units against its PDF's text layers (``None``: markup only)."""
    c = Counts(units=len(units))
    for u in units:
        text = u.get("text") or ""
        where = f"{name} p{(u.get('pages') or ['?'])[0]} {u.get('unit_type', '')}"
        m = MARKUP.search(text)
        if m:
            c.markup += 1
            c.note("markup", f"{where}: {m.group(0)!r} in {text[:120]!r}", examples)
        c.superscripts += len(SUPERSCRIPT.findall(text))
        if layers is None:
            continue
        pages = [la for la in (layers.page(p) for p in u.get("pages") or []) if la is not None]
        if not pages:
            continue
        if _from_picture(u, layers):
            c.pictures += 1
            continue
        page = merge(pages)
        c.checked += 1
        if u.get("unit_type") == "flow_path":
            text = BOX_LABEL.sub("Box:", text)  # the builder's box names, not the page's numbers
        parts = [(text, page)]
        header_page = layers.page(_header_page(u) or 0)
        if header_page is not None:  # the column headers are printed where the table starts
            headers = [h for h in (u.get("table") or {}).get("headers") or [] if h and h in text]
            for h in headers:
                text = text.replace(h, " ")
            parts = [(text, page), (" ".join(headers), merge([*pages, header_page]))]
        for kind, found in (
            ("numbers", [f for t, p in parts for f in altered_numbers(t, p)]),
            ("glued", [f for t, p in parts for f in glued_words(t, p)]),
            ("hyphens", [f for t, p in parts for f in broken_hyphens(t, p)]),
        ):
            if found:
                setattr(c, kind, getattr(c, kind) + len(found))
                for f in found[:2]:
                    c.note(kind, f"{where}: {f!r} in {_around(text, f)!r}", examples)
    return c


def _around(text: str, piece: str, width: int = 50) -> str:
    at = _for_words(text).find(piece)
    return text[max(0, at - width) : at + len(piece) + width] if at >= 0 else text[: 2 * width]


def find_pdf(stem: str, pdf_dirs: list[Path]) -> Path | None:
    """``<dir>/<stem>.pdf`` of the first directory that holds it."""
    for d in pdf_dirs:
        cand = d / f"{stem}.pdf"
        if cand.exists():
            return cand
    return None


def _stem(source: str) -> str:
    return Path(source).name.split(".")[0]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("inputs", nargs="+", type=Path)
    ap.add_argument("--units", action="store_true", help="inputs are unit dumps (JSON lines)")
    ap.add_argument("--pdf-dir", type=Path, action="append", default=[], help="PDFs by file stem (repeatable)")
    ap.add_argument("--examples", type=int, default=5)
    args = ap.parse_args(argv)
    total = Counts()
    for path in args.inputs:
        if args.units:
            units = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
            source = units[0].get("source", "") if units else ""
            pdf = find_pdf(_stem(source), args.pdf_dir) or find_pdf(_stem(str(path)), args.pdf_dir)
        else:
            pdf = path if path.suffix.lower() == ".pdf" else find_pdf(_stem(str(path)), args.pdf_dir)
            units = _units_of(path, pdf.parent if pdf is not None and pdf != path else None)
        layers = PdfLayers(pdf) if pdf is not None else None
        c = check_units(units, layers, examples=args.examples, name=path.name)
        note = "" if pdf is not None else " (no PDF found: markup only)"
        print(
            f"{path.name}: {c.units} units, {c.checked} checked, {c.numbers} altered numbers, {c.glued} glued words, "
            f"{c.hyphens} broken hyphens, {c.markup} with markup, {c.superscripts} superscripts, "
            f"{c.pictures} flow paths from pictures{note}",
            flush=True,
        )
        total.add(c)
        for kind, ex in c.examples.items():
            for line in ex:
                total.note(kind, line, args.examples * len(args.inputs))
    print(
        f"TOTAL: {total.units} units, {total.checked} checked, {total.numbers} altered numbers, {total.glued} glued words, "
        f"{total.hyphens} broken hyphens, {total.markup} with markup, {total.superscripts} superscripts, "
        f"{total.pictures} flow paths from pictures"
    )
    for kind, ex in total.examples.items():
        for line in ex[: args.examples * 3]:
            print(f"  {kind}: {line}")
    return 1 if total.faults else 0


if __name__ == "__main__":
    sys.exit(main())
