"""The BM25 tokeniser shared by documents and queries, and the CJK share of a text.

See :meth:`structaware_retrievers.encoders.SparseEncoder.tokenize` for the steps.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from functools import cache
from typing import Any

from structaware_retrievers.encoders import model_assets

__all__ = ["LABEL_WORDS", "MAX_TOKEN_CHARS", "Bm25Tokenizer", "cjk_share", "normalize", "stopwords"]

_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_CHAR = re.compile(f"[{_HAN}\u3040-\u30ff\uac00-\ud7af]")  # Han, kana, Hangul syllables


def cjk_share(text: str) -> float:
    """Share of the letters of ``text`` that are Chinese, Japanese or Korean (0.0 for no letters)."""
    letters = [c for c in text if c.isalpha()]
    return sum(1 for c in letters if _CJK_CHAR.match(c)) / len(letters) if letters else 0.0


_TOKEN_RE = re.compile(
    rf"(?P<han>[{_HAN}]+)"  # a run of Chinese characters: segmented by jieba
    r"|(?P<num>\d+(?:[.,]\d+)+)"  # decimals and grouped numbers kept whole: 2.5, 1,000, 2.1.3
    rf"|(?P<word>[^\W_{_HAN}]+)"  # letters/digits of any other script
)
#: a number glued to a unit of two or more letters (``140mmhg``, ``10mg``), split in two; a single
#: letter stays glued (grades ``1a``, ``2b``) and so do ordinals (``3rd``)
_NUM_UNIT_RE = re.compile(r"(\d+)([^\W\d_]{2,})")
_ORDINALS = frozenset({"st", "nd", "rd", "th"})
#: words that name a grade, class or part; the token right after one is kept even when it is a
#: stop word (``Class I``, ``LOE A``, ``Part I``, ``Class A shares``, ``Vitamin D``)
LABEL_WORDS = frozenset(
    {
        "class",
        "grade",
        "loe",
        "level",
        "type",
        "stage",
        "phase",
        "category",
        "tier",
        "part",
        "item",
        "schedule",
        "series",
        "vitamin",
        "appendix",
        "annex",
        "exhibit",
        "note",
        "step",
        "option",
        "group",
    }
)
#: tokens longer than this (in characters) are dropped
MAX_TOKEN_CHARS = 40


@cache
def stopwords(lang: str) -> frozenset[str]:
    """The vendored stop word list ``assets/stopwords/<lang>.txt`` (``#`` lines are comments)."""
    path = model_assets.ASSETS_DIR / "stopwords" / f"{lang}.txt"
    lines = path.read_text(encoding="utf-8").splitlines()
    return frozenset(w.strip() for w in lines if w.strip() and not w.startswith("#"))


_jieba_lock = threading.Lock()
_jieba_tok: Any = None


def _jieba() -> Any:
    """A private, lazily made jieba tokenizer on jieba's default dictionary, whose entries are read
    as segmentation asks for them (:mod:`.jieba_dict`: loading the whole dictionary costs most of a
    one-question process)."""
    global _jieba_tok
    if _jieba_tok is None:
        with _jieba_lock:
            if _jieba_tok is None:
                import logging

                import jieba

                from structaware_retrievers.encoders.jieba_dict import lazy_tokenizer

                jieba.setLogLevel(logging.WARNING)  # no "Building prefix dict" chatter on stderr
                _jieba_tok = lazy_tokenizer()
    return _jieba_tok


def normalize(text: str) -> str:
    """NFKC + lower-case: full-width digits and letters become ASCII, ligatures split (``ﬁ`` ->
    ``fi``), the micro sign becomes Greek mu (``µ`` -> ``μ``), ``²`` -> ``2``. Applied to documents
    and queries alike, so both sides meet on the same tokens; the stored display text is untouched."""
    return unicodedata.normalize("NFKC", text).lower()


class Bm25Tokenizer:
    """Text -> BM25 tokens: NFKC + lower-case, jieba for Chinese, stop words out (except a grade or
    class after a label word), numbers split from glued units, Snowball stems."""

    def __init__(self) -> None:
        from py_rust_stemmers import SnowballStemmer

        self._stemmer = SnowballStemmer("english")
        self.stop = stopwords("en") | stopwords("zh")

    def __call__(self, text: str) -> list[str]:
        text = normalize(text)
        out: list[str] = []
        stop = self.stop
        prev, prev_end = "", -2
        for m in _TOKEN_RE.finditer(text):
            kind = m.lastgroup
            tok = m.group()
            # a label word and the next token separated by blanks or a colon only: "class i", "loe: a"
            after_label = prev in LABEL_WORDS and not text[prev_end : m.start()].strip(" \t:")
            prev, prev_end = tok, m.end()
            if kind == "han":
                out.extend(w for w in _jieba().cut_for_search(tok) if w.strip() and w not in stop)
                continue
            if (tok in stop and not after_label) or len(tok) > MAX_TOKEN_CHARS:
                continue
            if kind == "word":
                glued = _NUM_UNIT_RE.fullmatch(tok)
                if glued and glued.group(2) not in _ORDINALS:
                    out.extend(glued.groups())
                    continue
                if tok.isascii() and tok.isalpha():
                    tok = self._stemmer.stem_word(tok)
            out.append(tok)
        return out
