"""The words a PDF's text layer prints, page by page (PDFium), to check and restore a parser's text.

Per page: its words (letter runs, lower case, NFKC) and which stand next to each other (also across a check
box or a footnote letter set alone); its line-end hyphens and whether each is part of the word (kept when the
document prints the compound with a hyphen or a half is an abbreviation, dropped when it prints the joined
word) and the word the page continues each on; runs holding figures; dashes the font maps to a control
character; raised figures, written with a caret; fractions set small after a number, written a space apart.
:class:`PdfTextLayer` raises ``InputNotFoundError`` and ``MalformedInputError`` (field ``pdf``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Container
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from structaware_readers.errors import InputNotFoundError, MalformedInputError
from structaware_readers.text.ghost_copy import blanked, pdfium_ghosts
from structaware_readers.text.glyph_marks import (
    MARK_LETTERS,
    UNNAMED,
    Box,
    page_chars,
    page_text,
    raised_letters,
    raised_runs,
    small_fractions,
)

T = TypeVar("T")

#: A word: a run of Latin (with accents), Greek or Cyrillic letters. CJK text has no spaces to lose.
WORD = re.compile(r"[A-Za-z\u00aa\u00b5\u00ba\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\u0370-\u03ff\u0400-\u04ff]+")
#: How PDFium writes a hyphen that ends a line (the line break dropped).
LINE_END_HYPHENS = "\ufffe\x02"
#: A hyphen that ends a line: PDFium's (the line break dropped), or a printed hyphen it leaves as it is
#: (``U+2010`` in ``placebo\u2010`` / ``controlled``), the line break kept.
_BREAK = re.compile(rf"({WORD.pattern})(?:[{LINE_END_HYPHENS}]\s*|[-\u2010\u2011][ \t]*\r?\n[ \t]*)({WORD.pattern})")
_INNER_HYPHEN = re.compile(rf"({WORD.pattern})[-\u2010\u2011]({WORD.pattern})")
#: Private Use Area glyphs (Symbol / Wingdings check boxes, arrows): no letters, and dropped by parsers.
_PUA = "\ue000-\uf8ff"
_ADJACENT = re.compile(rf"({WORD.pattern})[\s{_PUA}]+(?=({WORD.pattern}))")
#: A letter set alone between two words, the next a sentence's first (``Resources d See``): a footnote mark,
#: which parsers drop with its spaces; the two words stand next to each other as a check box's do.
_MARK_BETWEEN = re.compile(rf"({WORD.pattern})\s+[a-z]\s+(?=((?=[A-Z]){WORD.pattern}))")
#: A hyphen ending a run with a word after it on the same line (``Blended- Total``): a table cell wraps a
#: compound there (``Blended-`` / ``yield``), and the text layer reads the cell beside it in between.
_DANGLING = re.compile(rf"({WORD.pattern})-[ \t]+(?=({WORD.pattern}))")
#: The last word of a line and the first of the next.
_LINE_WRAP = re.compile(rf"({WORD.pattern})[ \t]*\r?\n[ \t]*(?=({WORD.pattern}))")
_UNNAMED_LETTER = re.compile(rf"({WORD.pattern})[{UNNAMED}](?=({WORD.pattern}))")
#: Words after a suspended hyphen (``short- and long-term``): the hyphen keeps its space.
SUSPENDED = frozenset({"and", "or", "to", "nor", "und", "oder", "et", "ou"})
_FIGURE = re.compile(r"\d")
#: A run that is a dash alone (``37 0/7 - 38 6/7``); no other punctuation (``$ 31,630`` is one amount).
_LONE_DASH = re.compile(r"[-\u2010-\u2015]")
#: CJK text is written without spaces: a run holding it is never cut.
_CJK = re.compile(r"[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")
#: A figure after one of these continues the number before it (``0.`` / ``71``, ``333-`` / ``181270``).
_JOINERS = ".,-\u2010\u2011\u2013/"
#: A comma and a group of three figures followed by a figure: the end of a number grouped by thousands;
#: or a bracket set against a figure (``1,004,215(21,300)982,915``: a negative amount between two).
_GROUP_RUNS_ON = re.compile(r"(?<=\d),\d{3}(?=\d)")
_GROUP_THEN_FIGURE = re.compile(r"(?<=\d),\d{3}(?=\d)|(?<=\d)(?=\()|(?<=\))(?=\d)")
#: Longest run of figures :func:`split_figures` cuts (characters).
MAX_RUN = 60
#: Punctuation around a run of figures that is not part of it (``(95%``, ``0.71;``).
_EDGE = "()[]{};:,."
#: A page whose text layer holds fewer characters is taken to have none (a scan).
MIN_PAGE_CHARS = 20


def normal(text: str) -> str:
    """``text`` in NFKC (ligatures ``ﬁ`` -> ``fi``, ``²`` -> ``2``), as pages are compared."""
    return unicodedata.normalize("NFKC", text)


@dataclass
class PageWords:
    """What one page's text layer prints (module docstring); all words lower case.

    ``breaks`` maps a word joined across a line-end hyphen (``angiotensinconverting``) to the text
    the writer meant (``angiotensin-converting``, ``recommendations`` or ``short- and``).
    """

    text: str
    words: set[str] = field(default_factory=set)
    pairs: set[tuple[str, str]] = field(default_factory=set)
    breaks: dict[str, str] = field(default_factory=dict)
    tokens: set[str] = field(default_factory=set)  # runs without white space holding a figure, or a lone dash
    token_pairs: set[tuple[str, str]] = field(default_factory=set)
    dashless: dict[str, str] = field(default_factory=dict)  # ``2060`` -> ``20–60`` (an unnamed dash)
    marks: list[Callable[[], dict[str, str]]] = field(default_factory=list, repr=False, compare=False)
    letter_marks: list[Callable[[], dict[str, int]]] = field(default_factory=list, repr=False, compare=False)
    dangling: set[str] = field(default_factory=set)  # words printed with a hyphen ending their run (``blended-``)
    #: Words printed before a line-end hyphen -> the words the page prints after it (``option`` -> ``{pricing}``).
    heads: dict[str, set[str]] = field(default_factory=dict)
    fractions: list[Callable[[], dict[str, str]]] = field(default_factory=list, repr=False, compare=False)

    def raised(self, run: str) -> str | None:
        """``run`` (a run of the page, without white space) written with a caret before its raised
        figures (``2019.12`` -> ``2019.^12``); ``None`` when the page prints no such run."""
        for marks in self.marks:
            found = marks().get(run)
            if found is not None:
                return found
        return None

    def raised_mark(self, word: str) -> int:
        """How many last letters of ``word`` (NFKC, lower case; no word of the page) are a raised mark the
        page sets right after the rest (``lanterntm`` -> 2: ``Lantern`` and a raised ``TM``); 0 when none. The
        glyphs are read only when the page prints the rest and the mark as words."""
        cuts = [k for k in range(1, MARK_LETTERS + 1) if word[:-k] in self.words and word[-k:] in self.words]
        if not cuts or len(word) - cuts[0] < 2:
            return 0
        for marks in self.letter_marks:
            found = marks().get(word)
            if found:
                return found
        return 0

    def dangling_cut(self, word: str) -> int:
        """Where ``word`` (NFKC, lower case; no word of the page) is a word the page prints with a hyphen ending
        its run and a word of the page glued (``blendedyield``: ``Blended-`` and ``yield``, a compound a cell
        wraps): the length of the first; 0 when no such cut is, or more than one."""
        cuts = [k for k in range(2, len(word) - 1) if word[:k] in self.dangling and word[k:] in self.words]
        return cuts[0] if len(cuts) == 1 else 0

    def fraction(self, run: str) -> str | None:
        """``run`` (without white space), a number glued to a fraction the page sets small after it,
        written as printed (``2.331/3`` -> ``2.33 1/3``); ``None`` when the page sets no such fraction."""
        for fractions in self.fractions:
            found = fractions().get(run)
            if found is not None:
                return found
        return None


def meant(first: str, second: str, doc_words: set[str], compounds: set[str]) -> str:
    """What a line-end hyphen between ``first`` and ``second`` means (module docstring), lower case:
    ``"first-second"``, ``"firstsecond"`` or ``"first- second"``."""
    a, b = first.lower(), second.lower()
    if b in SUSPENDED:
        return f"{a}- {b}"
    if f"{a}-{b}" in compounds or any(ch.isupper() for ch in second) or sum(ch.isupper() for ch in first) >= 2:
        return f"{a}-{b}"  # printed inside a line, or an abbreviation's hyphen (LDL-C, IgA-associated)
    if a + b in doc_words:
        return a + b
    if len(a) >= 2 and len(b) >= 2 and a in doc_words and b in doc_words:
        return f"{a}-{b}"
    return a + b


def written(text: str, doc_words: set[str], compounds: set[str], printed: Container[str] | None = None) -> str:
    """``text`` with each line-end hyphen written as :func:`meant` says, in the text's own case; one whose words
    are not in ``printed`` (:attr:`PageWords.breaks`) as printed, with a space (``option- Shop``: a box's text
    reads a line ending in a hyphen, its continuation outside the box, then a line of the column beside it)."""

    def join(m: re.Match[str]) -> str:
        a, b = m.group(1), m.group(2)
        if printed is not None and normal(a + b).lower() not in printed:
            return f"{a}- {b}"
        value = meant(a, b, doc_words, compounds)
        if value == f"{a}-{b}".lower():
            return f"{a}-{b}"
        return f"{a}- {b}" if value == f"{a}- {b}".lower() else a + b

    return _BREAK.sub(join, text)


def document_words(pages: list[str]) -> tuple[set[str], set[str]]:
    """``(words, compounds)`` of a document's pages (NFKC text): the words printed whole (not next
    to a line-end hyphen), and the hyphenated compounds printed inside a line (``self-monitoring``)."""
    words: set[str] = set()
    compounds: set[str] = set()
    for text in pages:
        plain = _BREAK.sub(" ", text)
        words.update(w.lower() for w in WORD.findall(plain))
        compounds.update(f"{m.group(1)}-{m.group(2)}".lower() for m in _INNER_HYPHEN.finditer(plain))
    return words, compounds


def inner_words(pages: list[str]) -> set[str]:
    """The words a document prints inside a line (neither the first nor the last word of one):
    the halves of a word a cell wraps are syllables (``hyper`` / ``tension``), never printed so."""
    out: set[str] = set()
    for text in pages:
        for line in text.splitlines():
            out.update(w.lower() for w in WORD.findall(line)[1:-1])
    return out


def page_words(text: str, doc_words: set[str], compounds: set[str], inner: set[str] | None = None) -> PageWords:
    """A page's :class:`PageWords` (``text`` already NFKC); joins resolved by :func:`meant`;
    ``inner``: :func:`inner_words` of the document (of ``text`` itself when ``None``)."""
    page = PageWords(text=text)
    for m in _BREAK.finditer(text):
        page.breaks[(m.group(1) + m.group(2)).lower()] = meant(m.group(1), m.group(2), doc_words, compounds)
        page.heads.setdefault(m.group(1).lower(), set()).add(m.group(2).lower())
    plain = _BREAK.sub(lambda m: f"{m.group(1)} {m.group(2)}", text)
    page.words = {w.lower() for w in WORD.findall(plain)}
    page.words.update(k for k, v in page.breaks.items() if k == v)
    page.words.update((m.group(1) + m.group(2)).lower() for m in _UNNAMED_LETTER.finditer(plain))
    inner = inner_words([plain]) if inner is None else inner
    for m in _LINE_WRAP.finditer(plain):
        a, b = m.group(1).lower(), m.group(2).lower()
        if a + b in doc_words and a not in inner and b not in inner:  # ``in`` / ``patients`` are two words
            page.words.add(a + b)
    page.dangling = {m.group(1).lower() for m in _DANGLING.finditer(plain) if m.group(2).lower() not in SUSPENDED}
    for m in (*_ADJACENT.finditer(plain), *_MARK_BETWEEN.finditer(plain)):
        page.pairs.add((m.group(1).lower(), m.group(2).lower()))
    runs = [r.strip(_EDGE) for r in plain.split()]
    page.tokens = {r for r in runs if _FIGURE.search(r) or _LONE_DASH.fullmatch(r)}
    page.token_pairs = {(a, b) for a, b in zip(runs, runs[1:]) if _FIGURE.search(a) or _FIGURE.search(b)}
    return page


class PdfTextLayer:
    """A PDF's pages as :class:`PageWords`, read with PDFium once (all pages on first use).

    Args:
        pdf: the PDF, a path or its bytes.
    """

    def __init__(self, pdf: str | Path | bytes) -> None:
        import pypdfium2

        if not isinstance(pdf, bytes) and not Path(pdf).is_file():
            raise InputNotFoundError("no such PDF file", path=str(pdf), field="pdf")
        try:
            doc = pypdfium2.PdfDocument(pdf if isinstance(pdf, bytes) else str(pdf))
        except pypdfium2.PdfiumError as exc:
            where = None if isinstance(pdf, bytes) else str(pdf)
            raise MalformedInputError(f"PDFium cannot open the PDF: {exc}", path=where, field="pdf") from exc
        self._source = pdf
        self._raised: dict[int, dict[str, str]] = {}
        self._letters: dict[int, dict[str, int]] = {}
        self._fractions: dict[int, dict[str, str]] = {}
        try:
            texts, self._dashless = [], []
            for i in range(len(doc)):
                page = doc[i]
                textpage = page.get_textpage()
                text, dashless = page_text(textpage)
                texts.append(text if _has_layer(text, textpage) else "")
                self._dashless.append(dashless)
                textpage.close()
                page.close()
        finally:
            doc.close()
        self.texts = texts
        self.doc_words, self.compounds = document_words(self.texts)
        self.inner = inner_words([_BREAK.sub(" ", t) for t in self.texts])
        self._pages: dict[int, PageWords | None] = {}

    def __len__(self) -> int:
        return len(self.texts)

    def page(self, number: int) -> PageWords | None:
        """Page ``number`` (1-based); ``None`` past the end or for a page without a text layer."""
        if number not in self._pages:
            text = self.texts[number - 1] if 1 <= number <= len(self.texts) else ""
            self._pages[number] = page_words(text, self.doc_words, self.compounds, self.inner) if text else None
            if text:
                self._pages[number].dashless = dict(self._dashless[number - 1])  # type: ignore[union-attr]
                self._pages[number].marks.append(lambda: self._raised_runs(number))  # type: ignore[union-attr]
                self._pages[number].letter_marks.append(lambda: self._raised_letters(number))  # type: ignore[union-attr]
                self._pages[number].fractions.append(lambda: self._small_fractions(number))  # type: ignore[union-attr]
        return self._pages[number]

    def line_end_hyphen(self, first: str, second: str) -> str:
        """What a hyphen ending a line between the words ``first`` and ``second`` means in this document
        (:func:`meant`, lower case): a hyphen that ends a page or column, its word's second half on the next."""
        return meant(first, second, self.doc_words, self.compounds)

    def box_text(self, number: int, bbox: tuple[float, float, float, float]) -> str:
        """The text (NFKC) PDFium prints inside ``bbox`` (0..1, top-left origin) of page ``number`` (1-based);
        read from the PDF on each call (a few blocks ask)."""
        import pypdfium2

        doc = pypdfium2.PdfDocument(self._source if isinstance(self._source, bytes) else str(self._source))
        try:
            page = doc[number - 1]
            width, height = page.get_size()
            x0, y0, x1, y1 = bbox
            return normal(
                page.get_textpage().get_text_bounded(x0 * width, (1 - y1) * height, x1 * width, (1 - y0) * height)
            )
        finally:
            doc.close()

    def _raised_runs(self, number: int) -> dict[str, str]:
        """:func:`raised_runs` of page ``number``, read from its glyphs once."""
        if number not in self._raised:
            self._raised[number] = self._glyphs(number, raised_runs)
        return self._raised[number]

    def _raised_letters(self, number: int) -> dict[str, int]:
        """:func:`raised_letters` of page ``number``, read from its glyphs once."""
        if number not in self._letters:
            self._letters[number] = self._glyphs(number, raised_letters)
        return self._letters[number]

    def _small_fractions(self, number: int) -> dict[str, str]:
        """:func:`small_fractions` of page ``number``, read from its glyphs once."""
        if number not in self._fractions:
            self._fractions[number] = self._glyphs(number, small_fractions)
        return self._fractions[number]

    def _glyphs(self, number: int, read: Callable[[str, Callable[[int], Box]], T]) -> T:
        """``read(chars, box)`` of page ``number``: its characters one by one (those of a second copy as spaces) and
        the box of each (PDFium)."""
        import pypdfium2

        doc = pypdfium2.PdfDocument(self._source if isinstance(self._source, bytes) else str(self._source))
        try:
            textpage = doc[number - 1].get_textpage()
            return read(blanked(page_chars(textpage), pdfium_ghosts(textpage)), textpage.get_charbox)
        finally:
            doc.close()


def _has_layer(text: str, textpage: object) -> bool:
    """True when a page holds a text layer: :data:`MIN_PAGE_CHARS` or more characters in its text
    (``text``, as :func:`~structaware_readers.text.glyph_marks.page_text` writes it) or in the text
    PDFium reads (``textpage``, a ``pypdfium2.PdfTextPage``): joining the line breaks PDFium writes
    between the glyphs of one line (a page footer drawn glyph by glyph) does not take a page's text
    layer away."""
    if len(text.strip()) >= MIN_PAGE_CHARS:
        return True
    return bool(text.strip()) and len(textpage.get_text_range().strip()) >= MIN_PAGE_CHARS  # type: ignore[attr-defined]


def merge(pages: list[PageWords]) -> PageWords:
    """One :class:`PageWords` of several pages (a block or unit over a page break)."""
    if len(pages) == 1:
        return pages[0]
    out = PageWords(text="\n".join(p.text for p in pages))
    for p in pages:
        out.words |= p.words
        out.pairs |= p.pairs
        out.breaks.update(p.breaks)
        out.tokens |= p.tokens
        out.token_pairs |= p.token_pairs
        out.dashless.update(p.dashless)
        out.marks.extend(p.marks)
        out.letter_marks.extend(p.letter_marks)
        out.dangling |= p.dangling
        for head, after in p.heads.items():
            out.heads.setdefault(head, set()).update(after)
        out.fractions.extend(p.fractions)
    return out


def fewest_cuts(
    text: str, piece_ok: Callable[[str], bool], pair_ok: Callable[[str, str], bool], *, longest: int | None = None
) -> list[int] | None:
    """Cut points ``[0, ..., len(text)]`` of ``text`` into the fewest pieces (2 or more) that each pass
    ``piece_ok`` and each two neighbours ``pair_ok`` (dynamic programme over prefixes; a piece at most
    ``longest`` characters); ``None`` when no such cut exists."""
    n = len(text)
    best: list[list[int] | None] = [None] * (n + 1)  # best[i]: cut points of text[:i]
    best[0] = [0]
    for i in range(1, n + 1):
        for j in range(0 if longest is None else max(0, i - longest), i):
            prev, piece = best[j], text[j:i]
            if prev is None or not piece_ok(piece):
                continue
            if len(prev) > 1 and not pair_ok(text[prev[-2] : j], piece):
                continue
            if best[i] is None or len(prev) + 1 < len(best[i]):  # type: ignore[arg-type]
                best[i] = [*prev, i]
    cuts = best[n]
    return cuts if cuts is not None and len(cuts) >= 3 else None


def split_glued(word: str, page: PageWords, *, adjacent: bool = True) -> list[str] | None:
    """``word`` cut into 2+ words of ``page`` (fewest pieces; each of 2+ letters, or ``a``), slices of
    ``word`` in its own case; with ``adjacent``, each two pieces must stand next to each other on the
    page. ``None`` when ``word`` is a word of the page or no cut fits."""
    low = normal(word).lower()
    if len(low) != len(word) or low in page.words or low in page.breaks:
        return None

    def piece_ok(piece: str) -> bool:
        return (len(piece) >= 2 or piece == "a") and piece in page.words

    def pair_ok(left: str, piece: str) -> bool:
        return not adjacent or (left, piece) in page.pairs

    cuts = fewest_cuts(low, piece_ok, pair_ok, longest=40)
    return None if cuts is None else [word[a:b] for a, b in zip(cuts, cuts[1:])]


def split_grouped(run: str, page: PageWords) -> list[str] | None:
    """A run of numbers grouped by thousands glued together (``31,204512,660``: a table's column of cells read as one)
    cut where a group of three figures after a comma is followed by a figure (no number is written so: ``31,204`` /
    ``512,660``), and there also where a bracket stands against a figure (``215(21,300)982``;
    """
    if run in page.tokens or len(run) > MAX_RUN or _CJK.search(run) or not _GROUP_RUNS_ON.search(run):
        return None
    pieces, start = [], 0
    for m in _GROUP_THEN_FIGURE.finditer(run):
        pieces.append(run[start : m.end()])
        start = m.end()
    if not pieces:
        return None
    pieces.append(run[start:])
    return pieces if all(p.strip(_EDGE) in page.tokens for p in pieces) else None


def split_figures(run: str, page: PageWords) -> list[str] | None:
    """A run of text holding figures (``80-24080-160``, punctuation at its ends stripped) cut into 2+ runs ``page``
    prints one after the other (``80-240``, ``80-160``; ``≥2times/year`` -> ``≥2``, ``times/year``: a piece without
    figures is words of the page, with the marks between them, in no web address); ``None`` when the page prints
    ``run`` itself or no cut fits.
    """
    if len(run) > MAX_RUN or run in page.tokens or not _FIGURE.search(run) or _CJK.search(run):
        return None

    web = "://" in run or "www." in run  # a web address wraps at any mark: its pieces are no words

    def piece_ok(piece: str) -> bool:
        if piece in page.tokens or (not _FIGURE.search(piece) and piece.lower() in page.words):
            return True
        found = WORD.findall(piece)
        return not web and not _FIGURE.search(piece) and bool(found) and all(w.lower() in page.words for w in found)

    def pair_ok(left: str, piece: str) -> bool:
        joins_a_number = (left[-1] in _JOINERS and _FIGURE.search(left) is not None and piece[0].isdigit()) or (
            left.isdigit() and piece.isdigit()
        )
        return (left, piece) in page.token_pairs and not joins_a_number

    cuts = fewest_cuts(run, piece_ok, pair_ok)
    return None if cuts is None else [run[a:b] for a, b in zip(cuts, cuts[1:])]


__all__ = [
    "LINE_END_HYPHENS", "MIN_PAGE_CHARS", "PageWords", "PdfTextLayer", "SUSPENDED", "WORD", "document_words",
    "inner_words",
    "meant", "merge", "normal", "page_words", "written", "split_figures", "split_grouped", "split_glued",
]  # fmt: skip
