"""Which filing a document is, read from its cover page: form, registrant and reporting period."""

from __future__ import annotations

import re
from dataclasses import dataclass

from structaware_readers.models import ParsedDocument

#: The cover is on the first page; a filing with a page of contents first has it on the second.
COVER_PAGES = 2

#: Blocks looked at before the registrant note, and the longest text taken as the registrant's name.
NAME_LOOKBACK = 3
MAX_NAME_CHARS = 80

_FORM = re.compile(r"\bFORM\s+(10-K|10-Q|20-F|40-F)\b", re.IGNORECASE)
_PERIOD = re.compile(
    r"(?:quarterly period|fiscal year|transition period)\s+ended\b\W*(?:[^A-Za-z]{0,3}[A-Za-z ]{0,25}?\W+)??"
    r"((?:January|February|March|April|May|June|July|August|September|October|November|December)"
    r"\s+\d{1,2},\s*\d{4})",
    re.IGNORECASE,
)
_REGISTRANT_NOTE = re.compile(r"\(\s*exact name of registrant", re.IGNORECASE)


@dataclass(frozen=True)
class FilingCover:
    """A filing's identity from its cover page: ``form`` (``"10-Q"``), ``registrant`` (the exact name
    the cover gives, ``""`` when it cannot be told) and ``period_end`` (``"June 30, 2022"``, as printed)."""

    form: str
    registrant: str
    period_end: str

    def label(self) -> str:
        """The filing as a context label: ``<registrant> Form 10-Q for the period ended <date>``."""
        who = f"{self.registrant} " if self.registrant else ""
        return f"{who}Form {self.form} for the period ended {self.period_end}"


def read_filing_cover(doc: ParsedDocument) -> FilingCover | None:
    """The cover of an SEC periodic report, or ``None`` when the first :data:`COVER_PAGES` pages hold no form name
    (``FORM 10-K|10-Q|20-F|40-F``) with a period ended on a full date.
    """
    blocks = [b for b in doc.blocks if b.page <= COVER_PAGES and not b.is_furniture and b.text.strip()]
    text = " ".join(" ".join(b.text.split()) for b in blocks)
    form = _FORM.search(text)
    period = _PERIOD.search(text)
    if form is None or period is None:
        return None
    registrant = ""
    for i, b in enumerate(blocks):
        note = _REGISTRANT_NOTE.search(b.text)
        if note is None:
            continue
        candidates = [b.text[: note.start()]] + [
            blocks[j].text for j in range(i - 1, max(-1, i - 1 - NAME_LOOKBACK), -1)
        ]
        for text in candidates:
            text = " ".join(text.split())
            if text and len(text) <= MAX_NAME_CHARS and not any(ch.isdigit() for ch in text):
                registrant = text
                break
        break
    period_end = " ".join(period.group(1).split())
    return FilingCover(form=form.group(1).upper(), registrant=registrant, period_end=period_end)
