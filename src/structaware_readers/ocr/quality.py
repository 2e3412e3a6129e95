"""Character error rate (CER) of OCR text against a reference (the PDF's own text layer)."""

from __future__ import annotations

import unicodedata

__all__ = ["character_error_rate", "edit_distance", "normalise_for_cer"]


def normalise_for_cer(text: str) -> str:
    """NFKC, whitespace removed, dashes/quotes folded to ASCII (typography, not content)."""
    text = unicodedata.normalize("NFKC", text)
    text = text.translate(_FOLD)
    return "".join(text.split())


_FOLD = str.maketrans({"\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2212": "-",
                       "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u00b7": ".", "\u2022": ".",
                       "\u25cf": ".", "\u2027": "."})  # fmt: skip


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance (RapidFuzz when installed, else a plain O(len(a)*len(b)) dynamic programme)."""
    try:
        from rapidfuzz.distance import Levenshtein
    except ImportError:
        Levenshtein = None
    if Levenshtein is not None:
        return int(Levenshtein.distance(a, b))
    if len(a) < len(b):
        a, b = b, a
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def character_error_rate(hypothesis: str, reference: str) -> float:
    """CER of ``hypothesis`` against ``reference`` after :func:`normalise_for_cer` (0 = identical).

    Raises:
        ValueError: the reference is empty after normalisation (no rate can be computed).
    """
    hyp, ref = normalise_for_cer(hypothesis), normalise_for_cer(reference)
    if not ref:
        raise ValueError("the reference text is empty after normalisation")
    return edit_distance(hyp, ref) / len(ref)
