"""Text a parser typed as a heading that opens no section: names of people, references, contents lines.

A section path made of such lines misleads every unit below it. :func:`false_heading_kind` names
the kind: ``person`` (a name followed by a credential of :data:`CREDENTIALS`, or a rank of
:data:`RANKS` followed by a name), ``reference`` (a bibliography entry), ``toc`` (a line with a dot
leader). ``Heart Failure, HFrEF, HFpEF`` and ``Role of the MD in Primary Care`` stay headings.
"""

from __future__ import annotations

import re
import unicodedata

from structaware_readers.structure.references import is_citation

#: A box label: ``Sidebar 2:``, ``Sidebar C:``, ``Box 3.``, ``Panel A:``, ``Text box 1:`` and a title: the
#: title of a box beside the text (:mod:`structaware_readers.units.boxed_text`), not a section of the document.
SIDEBAR_LABEL = re.compile(r"(?i)^(?:sidebar|text\s+box|box|panel)\s+[A-Z]?\d{0,3}[a-z]?\s*[:.]\s*\S")

__all__ = ["CREDENTIALS", "RANKS", "SIDEBAR_LABEL", "false_heading_kind"]

#: Degrees and certifications printed after a name (US/UK clinical, nursing, pharmacy, military).
CREDENTIALS = (
    "MD|M\\.D\\.|DO|MBBS|MBBs|MBChB|PhD|Ph\\.D\\.|PharmD|PsyD|EdD|DrPH|ScD|DNP|DPT|DDS|DMD|DVM|OD|"
    "RN|BSN|MSN|NP|FNP|FNP-BC|FNP-C|ANP|APRN|CRNP|CNM|CRRN|PA|PA-C|MPH|MSPH|MHS|MHSc|MHSCR|MS|MSc|BS|BSc|BSC|"
    "MA|MBA|MHA|MSW|LCSW|DCSW|LICSW|RD|LD|CDE|CDCES|BCPS|BCPP|BCACP|OTR/L|OTR|OT|PT|CPO|CSCS|"
    "FACP|FACS|FACC|FACOG|FAAFP|FASN|FCCP|FAHA|FNKF|FAMBS|FACR|ABPP|ABPP-CN|CSOWM|CSG|MC|USN|USA|USAF"
)
#: Military ranks printed before a name (US Army, Navy, Air Force, Marine Corps; abbreviated).
RANKS = "Lt\\.?\\s*Col|LTC|COL|Col|CDR|LCDR|CAPT|Capt|CPT|MAJ|Maj|Lt|LT|1LT|2LT|BG|BGen|RADM|ENS|SFC|SGT|MSG"

_WORD = r"[A-Z](?:[^\W\d_]|['’-])+\.?"
# a first name, then one to four more names, initials (with or without the dot) or a nickname in
# brackets ("Navjit (Nicky) Goraya", "Joseph C Sky"); or an initial and two names or more ("R. Kevin Manning")
_INITIAL = r"[A-Z]\.?(?![^\W\d_])"
_NAME = (
    rf"(?:{_WORD}(?:\s+(?:{_INITIAL}|{_WORD}|\({_WORD}\)|van|von|de|del|la)){{1,4}}"
    rf"|[A-Z]\.\s+{_WORD}(?:\s+(?:{_INITIAL}|{_WORD})){{1,3}})"  # an initial first: two more names ("B. Treatment" is none)
)
#: A credential not in the list: two to six letters, the first and last capitals (``DBH``, ``BCD``, ``PsyD``).
_CREDENTIAL_SHAPE = r"[A-Z][A-Za-z]{0,4}[A-Z]"
# a name, a credential, then only further comma-separated items ("MHSCR", "FACOG (Champion)", "Nurse Midwife")
_PERSON_CREDENTIAL = re.compile(
    rf"^{_NAME}(?:,\s*|\s+)(?:{CREDENTIALS})(?![\w/-])(?:\s*[,;]\s*[^,;]{{1,40}})*(?:\s*\([^()\d]{{1,30}}\))?$"
)
_NAME_THEN_ITEMS = re.compile(rf"^{_NAME}((?:\s*,\s*{_CREDENTIAL_SHAPE}){{2,}})$")
_KNOWN = re.compile(rf"^(?:{CREDENTIALS})$")
_PERSON_RANK = re.compile(rf"^(?:{RANKS})\.?\s+(?:\(Ret\.?\)\s+)?{_NAME}(?:\s*,.*)?$")
_TOC = re.compile(r"\.{5,}|(?:\.\s){4,}|…{2,}")
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)")
_BIB_MARK = re.compile(
    r"\bet\s+al\b|\bdoi\b|10\.\d{4,}/|(?:19|20)\d{2}\s*;\s*\d+|\d+\s*\(\d+\)\s*:\s*\d+", re.IGNORECASE
)
#: Longest heading (characters) read as one person's name.
MAX_NAME_CHARS = 120


def _credentials_after(text: str) -> bool:
    """A name and two or more credential-shaped items, one of them a known credential (``DBH, LCSW, BCD``)."""
    m = _NAME_THEN_ITEMS.match(text)
    return bool(m) and any(_KNOWN.match(item.strip()) for item in m.group(1).split(",") if item.strip())


def false_heading_kind(text: str) -> str:
    """``"person"``, ``"reference"`` or ``"toc"`` when the heading ``text`` is one of those (module
    docstring), else ``""`` (a real heading)."""
    t = " ".join(unicodedata.normalize("NFKC", text).split())
    if _TOC.search(t):
        return "toc"
    if is_citation(t) or (_YEAR.search(t) and _BIB_MARK.search(t)):
        return "reference"
    if len(t) <= MAX_NAME_CHARS and (_PERSON_CREDENTIAL.match(t) or _PERSON_RANK.match(t) or _credentials_after(t)):
        return "person"
    return ""
