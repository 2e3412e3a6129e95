"""Chinese consensus recommendation classes ``Ⅰ``/``Ⅱa``/``Ⅱb``/``Ⅲ类推荐`` and evidence levels ``1a``..``5``.

Chinese expert consensuses (and Chinese cardiology guidelines, which copy the ESC classes) grade a
statement ``（Ⅱa类推荐）``, with the evidence level of the Oxford-derived table ``证据等级 1a..5``
beside it or in the text (``（2a证据等级）``, ``均为 1b 证据等级``), or a letter (``A级证据``).
The typesetter often spaces the class (``Ⅱ a 类推荐``, ``Ⅱa 类 推 荐``): spaces between the
characters are allowed. ``Ⅰ类切口``, ``Ⅱ期临床试验`` and ``Ⅲ类手术`` are no grades: the class needs
``类推荐`` and the level ``证据等级``/``证据级别``.

Source: 中国专家共识 grading tables (推荐等级及其代表意义; 证据等级, after the Oxford Centre for
Evidence-Based Medicine levels); Chinese Society of Cardiology guidelines (Ⅰ类推荐，A级证据).
"""

from __future__ import annotations

import re

from structaware_readers.grades.signals import Detector, Scan, Signal

SYSTEM = "CN"

_CLASS = re.compile(r"(?<![A-Za-z0-9])(III|II\s*[ab]|II|IV|I)(?![A-Za-z0-9])\s*类\s*推\s*荐")
_EVIDENCE = re.compile(r"(?<![A-Za-z0-9.])([1-5][abc]?)\s*级?\s*证\s*据\s*(?:等\s*级|级\s*别)")


def _h_class(scan: Scan, m: re.Match[str]) -> None:
    value = re.sub(r"\s+", "", m.group(1))
    scan.add(Signal(SYSTEM, m.start(), m.end(), grade=value))  # Ⅲ: disagreement in some tables, against in others


def _h_evidence(scan: Scan, m: re.Match[str]) -> None:
    scan.add(Signal(SYSTEM, m.start(), m.end(), level=m.group(1)))


CLASS: Detector = (_CLASS, _h_class)
EVIDENCE: Detector = (_EVIDENCE, _h_evidence)
