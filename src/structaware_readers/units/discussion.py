"""Which recommendation a discussion section discusses, for its units' context."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from structaware_readers.units.common import title

#: A heading that opens the discussion of the recommendation(s) before it.
DISCUSSION_HEADING = re.compile(
    r"(?i)^(?:[\dA-Za-z]{1,3}(?:\.\d+)*[.)]\s+)?(?:discussion|rationale|remarks|justification|key\s+information|"
    r"(?:summary\s+of\s+(?:the\s+)?)?evidence(?:\s+(?:summary|review|base))?|supporting\s+(?:text|evidence)|"
    r"推荐理由|推荐说明|证据(?:总结|概述|摘要)|说明|讨论)\s*[:：]?$"
)
#: Most recommendations named in one context.
MAX_NAMED = 3


@dataclass
class Discussion:
    """The recommendations printed since the last heading, and the ones the open discussion discusses."""

    recent: list[tuple[str, int]] = field(default_factory=list)  # (title, position among the units built)
    discussed: list[tuple[str, int]] = field(default_factory=list)
    level: int | None = None  # level of the open discussion heading

    def on_heading(self, level: int, text: str) -> None:
        if DISCUSSION_HEADING.match(" ".join(text.split())):
            self.discussed = list(self.recent) or (self.discussed if self.level == level else [])
            self.level = level
        elif self.level is None or level <= self.level:
            self.level, self.discussed, self.recent = None, [], []

    def on_statement(self, *, follows_statement: bool) -> None:
        """A recommendation printed inside an open discussion after its text (not right after another
        recommendation, ``follows_statement``) starts a new group: the text after it discusses it."""
        if self.level is not None and not follows_statement:
            self.discussed, self.recent = [], []

    def on_recommendation(self, text: str, position: int) -> None:
        """A recommendation built from the body text, the ``position``-th unit of the pass; inside an
        open discussion it is also one the discussion's further text discusses."""
        entry = (title(text.strip().splitlines()[0]), position)
        self.recent.append(entry)
        if self.level is not None:
            self.discussed.append(entry)

    def linked(self) -> list[int]:
        """Positions (among the units built) of the recommendations named by :meth:`context`."""
        if self.level is None:
            return []
        return [position for _, position in self.discussed[:MAX_NAMED]]

    def context(self) -> str:
        """``Discusses: <title> | <title>`` inside a discussion, else ``""``."""
        if self.level is None or not self.discussed:
            return ""
        return "Discusses: " + " | ".join(name for name, _ in self.discussed[:MAX_NAMED])


__all__ = ["DISCUSSION_HEADING", "MAX_NAMED", "Discussion"]
