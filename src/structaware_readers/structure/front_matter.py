"""A document's apparatus typed FRONT_MATTER: contents, authors, notices.

Contents lines, author lists, conflicts of interest and disclaimers are text about the document,
not evidence in it; as section units they come back as hits for questions they cannot answer.
:func:`mark_front_matter` retypes PARAGRAPH, LIST and FOOTNOTE blocks (``kind`` only) that are
contents entries (dot leader and page number, or under a contents heading), under an apparatus
heading (``Acknowledgements``, ``Conflicts of interest``, ``Disclaimer``, ``利益冲突`` ...), open with
an apparatus label (``Affiliations:``, ``© <owner>``, ``Downloaded from``), or are mostly names with
credentials. The unit builder makes ``front_matter`` units of them; search leaves those out unless
asked. A clinical heading such as ``Disclosure of the diagnosis`` and tables are never retyped.
"""

from __future__ import annotations

import re
import unicodedata

from structaware_readers.models import Block, BlockKind, ParsedDocument
from structaware_readers.structure.false_headings import CREDENTIALS, false_heading_kind

__all__ = ["is_contents_line", "mark_front_matter"]

_CANDIDATES = {BlockKind.PARAGRAPH, BlockKind.LIST, BlockKind.FOOTNOTE}
#: A dot leader followed, somewhere after it, by a page number (``S12``, ``12``, ``iv``).
_LEADER_PAGE = re.compile(r"(?:\.{4,}|(?:\.\s){4,}|…{2,}|·{4,})[\s.…·]*(?:[A-Z]?-?\d{1,4}|[ivxlc]{1,6})\b")
_LEADER = re.compile(r"\.{4,}|(?:\.\s){4,}|…{2,}|·{4,}")
_ENDS_WITH_PAGE = re.compile(r"\s(?:[A-Z]?\d{1,4}|[ivxlc]{1,6})$")
#: A contents entry that leads with its page number (``S38 Table 1. Factors ...``, ``S14 Abstract``) or an
#: entry of a list of tables, figures or appendices (``Table S5. Adults with ...``, ``Table A5.1. ...``, ``Appendix B. ...``).
_OPENS_ENTRY = re.compile(
    r"^(?:[A-Z]?\d{1,3}\s+(?=[A-Z])|(?i:(?:supplementary\s+)?(?:table|figure|fig\.|box|appendix|annex))\s*"
    r"(?:[A-Z]?\d{1,3}(?:\.\d{1,3})*[a-z]?|[A-Z])[.:]\s)"
)
_NUMBERING = re.compile(
    r"^(?:(?:section|chapter|part|appendix|annex)\s+)?(?:[A-Z]?\d{1,3}(?:\.\d{1,2})*|[IVXLC]{1,6}|[A-Z])[.:)]?\s+", re.I
)
_CONTENTS_HEADING = re.compile(
    r"^(?:table of contents?|contents)(?:\s*\((?:continued|cont[’']?d\.?)\))?$|^目\s*录$|"
    r"^list of (?:tables|figures|tables and figures|figures and tables|boxes|appendices)$",
    re.I,
)
_APPARATUS_HEADING = re.compile(
    r"^(?:acknowledge?ments?|funding statement|role of the funding source|"
    r"authors?[’']?s?[’']? contributions?|author information|authors?[’']? affiliations?|"
    r"data (?:availability|sharing) statement|(?:general )?disclaimers?|copyright(?: notice)?|permissions|"
    r"suggested citation|how to cite(?: this \w+)?|(?:financial )?disclosures?(?: statements?| forms?|"
    r" of (?:relationships?|interests?|potential conflicts?(?: of interests?)?))?|"
    r"participant list|list of participants|©.*|\(c\)\s*\d{4}.*|"
    r"利益冲突(?:声明)?|致\s*谢|作者贡献(?:声明)?|免责声明|版权声明)$|"
    r"\b(?:conflicts? of interests?|competing interests?|declarations? of interests?|duality of interests?)\b",
    re.I,
)
#: Labels that open a notice (disclaimer, licence, copyright, publication) that may run on.
_NOTICE_LABEL = re.compile(
    r"^(?:(?:general )?disclaimers?\b|permissions?\s*:|copyright\b|©(?:\s*(?:\d{4}|(?-i:[A-Z]))|$)|\(c\)\s*\d{4}|"
    r"all rights reserved|"
    r"some rights reserved|this (?:article|document|guideline|supplement|report) (?:is|was|has been) "
    r"(?:co-?)?published|downloaded from\b)",
    re.I,
)
#: Words a paragraph of a disclaimer, licence or copyright notice uses.
_NOTICE_WORDS = re.compile(
    r"(?i)responsib|liab|\brights\b|licen[cs]|permi(?:ssion|t)|reproduc|\bcop(?:y|ies)\b|endors|warrant|"
    r"disclaim|obligat|exempt|commercial"
)
#: A notice shorter than this (characters: a lone ``©`` beside a figure) does not run on.
MIN_NOTICE_CHARS = 60
_LABEL = re.compile(
    r"^(?:authors?(?:/task force members)?\s*:|author/task force member affiliations\s*:|"
    r"affiliations?\s*:|[*†]?\s*corresponding authors?\b|document reviewers\s*:|associations\s*:|"
    r"working groups\s*:|suggested citation\b|cite this (?:article|document|guideline)\b|citation\s*:|"
    r"how to cite\b|isbn\b|conflicts? of interests?\s*:|competing interests?\s*:|"
    r"declarations? of interests?\s*:|funding\s*:|acknowledge?ments?\s*:|author contributions?\s*:|"
    r"引用本文|收稿日期|通信作者|本文编辑|利益冲突|作者贡献|基金项目)",
    re.I,
)
_NAME = r"[A-Z][\w.'’-]+(?:\s+(?:[A-Z][\w.'’-]*|van|von|de|del|la|da)){0,4}"
_NAME_CREDENTIAL = re.compile(rf"{_NAME},\s*(?:{CREDENTIALS})(?![\w/-])")
_NAME_COUNTRY = re.compile(rf"{_NAME}\s*[*†‡]*,?\s*\([A-Z][a-zé]+(?:\s[A-Z][a-z]+){{0,2}}\)")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+")
_INSTITUTION = re.compile(r"\b(?:Department|Hospital|University|Institute|School of)\b|医院|大学|研究所")
#: Characters of text per listed person that still read as a list of people.
CHARS_PER_NAME = 80
#: Pages a contents heading or running head may be on (or this share of the pages, if more); on more
#: pages it is a link back to the contents printed on every page (filings), and marks no contents.
MAX_CONTENTS_PAGES = 6
MAX_CONTENTS_SHARE = 0.1
#: A paragraph this long (characters) with no dot leader and few lines ending in a page number is prose.
PROSE_MIN_CHARS = 120
#: Longest paragraph (characters) read as one member of a list of people.
MAX_PERSON_LINE_CHARS = 200
#: Lower-case words (``of``, ``and``) per person a list of people holds at most; prose naming people holds more.
LOWER_WORDS_PER_NAME = 3
#: Most lower-case words (``of``, ``and``, ``for``) a member list entry holds; prose holds more.
MAX_PERSON_LINE_LOWER_WORDS = 4
_LOWER_WORD = re.compile(r"(?<![\w-])[a-z]+\b")
#: Longest paragraph (characters) read as a contact line.
MAX_CONTACT_CHARS = 600


def is_contents_line(text: str) -> bool:
    """Whether ``text`` is a table-of-contents entry: a dot leader followed by a page number."""
    return _LEADER_PAGE.search(unicodedata.normalize("NFKC", text)) is not None


def mark_front_matter(doc: ParsedDocument) -> ParsedDocument:
    """Return ``doc`` with its contents, author and notice blocks typed FRONT_MATTER (module
    docstring); ``doc`` itself when none changes."""
    marked = {
        b.page for b in doc.blocks if (b.kind is BlockKind.HEADING or b.is_furniture) and _is_contents_heading(b.text)
    }
    if len(marked) > max(MAX_CONTENTS_PAGES, MAX_CONTENTS_SHARE * doc.page_count):
        marked = set()  # a "Table of Contents" link on every page (filings): no page is the contents
    contents_pages = {
        b.page for b in doc.blocks if b.is_furniture and b.page in marked and _is_contents_heading(b.text)
    }
    body = [i for i, b in enumerate(doc.blocks) if not b.is_furniture]
    person = {i for i in body if _is_person(doc.blocks[i])}
    # a member of a list of people: a name line next to another (a lone "Peter J. Hale, MD" above his
    # vote counts in a filing is evidence)
    listed = {
        i for k, i in enumerate(body) if i in person and set(body[max(k - 1, 0) : k] + body[k + 1 : k + 2]) & person
    }
    changed: dict[int, Block] = {}
    in_contents = in_apparatus = False  # under a contents / apparatus heading
    notice_page: int | None = None  # page of the notice whose paragraphs run on
    for i in body:
        b = doc.blocks[i]
        if b.kind is BlockKind.HEADING:
            if false_heading_kind(b.text):
                # a name, an entry or a contents line: text of the section it sits in, which stays open;
                # a name in a list of people is front matter
                if i in listed or (i in person and in_apparatus):
                    changed[i] = b.model_copy(update={"kind": BlockKind.FRONT_MATTER})
                continue
            # any real heading ends the section (parsers' levels are unreliable: a glossary set one
            # level below the acknowledgements is no part of them)
            in_contents, in_apparatus = bool(marked) and _is_contents_heading(b.text), _is_apparatus_heading(b.text)
            notice_page = None
            continue
        if b.kind not in _CANDIDATES:
            notice_page = None
            continue
        text = unicodedata.normalize("NFKC", b.text).strip()
        lines = _lines(b)
        contents = in_contents or b.page in contents_pages
        if contents and _is_prose(text, lines):
            # running text after the contents: a section the parser left without a heading
            in_contents = contents = False
        if notice_page is not None and (b.page != notice_page or not _NOTICE_WORDS.search(text)):
            notice_page = None  # the notice ends with its page, or at a paragraph that says nothing of rights
        if _NOTICE_LABEL.match(text) and len(text) >= MIN_NOTICE_CHARS:
            notice_page = b.page
        if (
            contents
            or in_apparatus
            or notice_page is not None
            or _mostly_contents(lines)
            or _LABEL.match(text)
            or _NOTICE_LABEL.match(text)
            or _is_name_list(text)
            or i in listed
            or _is_contact(text)
        ):
            changed[i] = b.model_copy(update={"kind": BlockKind.FRONT_MATTER})
    if not changed:
        return doc
    return doc.model_copy(update={"blocks": [changed.get(i, b) for i, b in enumerate(doc.blocks)]})


def _heading_words(text: str) -> str:
    t = " ".join(unicodedata.normalize("NFKC", text).split())
    return _NUMBERING.sub("", t, count=1).strip(" :：")


def _is_contents_heading(text: str) -> bool:
    return bool(_CONTENTS_HEADING.match(_heading_words(text)))


def _is_apparatus_heading(text: str) -> bool:
    words = _heading_words(text)
    return len(words) <= 100 and bool(_APPARATUS_HEADING.search(words))


def _lines(b: Block) -> list[str]:
    items = b.items or b.text.splitlines()
    return [unicodedata.normalize("NFKC", t).strip() for t in items if t.strip()]


def _mostly_contents(lines: list[str]) -> bool:
    return bool(lines) and sum(is_contents_line(t) for t in lines) * 2 >= len(lines)


def _is_prose(text: str, lines: list[str]) -> bool:
    """Running text: long, no dot leader, not opening with a contents entry (its title may wrap over the
    lines after it), and most lines not ending in a page number."""
    if len(text) < PROSE_MIN_CHARS or _LEADER.search(text) or _OPENS_ENTRY.match(text):
        return False
    return sum(bool(_ENDS_WITH_PAGE.search(t)) for t in lines) * 2 < len(lines)


def _is_name_list(text: str) -> bool:
    """Mostly people: names with credentials (3+) or with a country in brackets (4+), densely."""
    with_credential = len(_NAME_CREDENTIAL.findall(text))
    with_country = len(_NAME_COUNTRY.findall(text))
    people = max(with_credential if with_credential >= 3 else 0, with_country if with_country >= 4 else 0)
    return (
        people > 0
        and len(text) <= CHARS_PER_NAME * people
        and len(_LOWER_WORD.findall(text)) <= LOWER_WORDS_PER_NAME * people  # prose naming people has more
    )


def _is_person(b: Block) -> bool:
    """A heading the parser made of a person's name, or a paragraph that is a member list entry."""
    if b.kind is BlockKind.HEADING:
        return false_heading_kind(b.text) == "person"
    return b.kind in _CANDIDATES and _is_person_line(unicodedata.normalize("NFKC", b.text).strip())


def _is_person_line(text: str) -> bool:
    """A short paragraph that opens with one person's name and credentials and goes on with a role or
    an affiliation, not a sentence (a member list entry: ``Anna Berg, MD, MPH Lund University Hospital``;
    ``As Dr Jane Roe, MD, noted ... .`` is prose)."""
    return (
        len(text) <= MAX_PERSON_LINE_CHARS
        and _NAME_CREDENTIAL.match(text) is not None
        and not text.endswith((".", "。"))
        and len(_LOWER_WORD.findall(text)) <= MAX_PERSON_LINE_LOWER_WORDS
    )


def _is_contact(text: str) -> bool:
    return len(text) <= MAX_CONTACT_CHARS and bool(_EMAIL.search(text)) and bool(_INSTITUTION.search(text))
