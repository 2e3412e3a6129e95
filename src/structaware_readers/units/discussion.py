"""Which recommendation a discussion section discusses, for its units' context.

Guidelines print a recommendation and then its discussion under a bare heading (VA/DoD: a
``Recommendation`` heading, the graded statement, then ``Discussion``); a unit under that heading
alone does not say what it discusses (``Section: VII. Recommendations > Discussion``). Its context
names the recommendations printed just before the heading: ``Discusses: 1. We suggest spirometry
... (Weak for | Reviewed, New-replaced)``.

Rules: the recommendations built from the body text (paragraphs and list items, not table rows)
since the last heading that is no discussion heading are the ones discussed; a discussion heading
(:data:`DISCUSSION_HEADING`: ``Discussion``, ``Rationale``, ``Evidence summary``, ``Summary of
the evidence``, ``Remarks``, ``Justification``, ``推荐理由``, ``证据总结``, ...; numbering such as
``a.`` or ``2.1`` allowed) and every heading below it keep them; the next other heading at the
discussion's level or above forgets them. At most :data:`MAX_NAMED` are named, each by its first
line as a title (:func:`structaware_readers.units.common.title`, at most 160 characters).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from structaware_readers.units.common import title

#: A heading that opens the discussion of the recommendation(s) before it.
DISCUSSION_HEADING = re.compile(
    r"(?i)^(?:[\dA-Za-z]{1,3}(?:\.\d+)*[.)]\s+)?(?:discussion|rationale|remarks|justification|"
    r"(?:summary\s+of\s+(?:the\s+)?)?evidence(?:\s+(?:summary|review|base))?|supporting\s+(?:text|evidence)|"
    r"推荐理由|推荐说明|证据(?:总结|概述|摘要)|说明|讨论)\s*[:：]?$"
)
#: Most recommendations named in one context.
MAX_NAMED = 3


@dataclass
class Discussion:
    """The recommendations printed since the last heading, and the ones the open discussion discusses."""

    recent: list[str] = field(default_factory=list)
    discussed: list[str] = field(default_factory=list)
    level: int | None = None  # level of the open discussion heading

    def on_heading(self, level: int, text: str) -> None:
        if DISCUSSION_HEADING.match(" ".join(text.split())):
            self.discussed = list(self.recent) or (self.discussed if self.level == level else [])
            self.level = level
        elif self.level is None or level <= self.level:
            self.level, self.discussed, self.recent = None, [], []

    def on_recommendation(self, text: str) -> None:
        self.recent.append(title(text.strip().splitlines()[0]))

    def context(self) -> str:
        """``Discusses: <title> | <title>`` inside a discussion, else ``""``."""
        if self.level is None or not self.discussed:
            return ""
        return "Discusses: " + " | ".join(self.discussed[:MAX_NAMED])


__all__ = ["DISCUSSION_HEADING", "MAX_NAMED", "Discussion"]
