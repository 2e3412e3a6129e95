"""The BM25 tokeniser shared by documents and queries, and the CJK share of a text.

See :meth:`structaware_retrievers.encoders.SparseEncoder.tokenize` for the steps.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from functools import cache
from typing import Any

from structaware_retrievers import model_assets

__all__ = ["MAX_TOKEN_CHARS", "Bm25Tokenizer", "cjk_share", "stopwords"]

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
    """A private, lazily initialised jieba tokenizer (the dictionary loads once, ~1 s)."""
    global _jieba_tok
    if _jieba_tok is None:
        with _jieba_lock:
            if _jieba_tok is None:
                import logging

                import jieba

                jieba.setLogLevel(logging.WARNING)  # no "Building prefix dict" chatter on stderr
                tok = jieba.Tokenizer()
                tok.initialize()
                _jieba_tok = tok
    return _jieba_tok


class Bm25Tokenizer:
    """Text -> BM25 tokens: NFKC + lower-case, jieba for Chinese, stop words out, Snowball stems."""

    def __init__(self) -> None:
        from py_rust_stemmers import SnowballStemmer

        self._stemmer = SnowballStemmer("english")
        self.stop = stopwords("en") | stopwords("zh")

    def __call__(self, text: str) -> list[str]:
        text = unicodedata.normalize("NFKC", text).lower()
        out: list[str] = []
        stop = self.stop
        for m in _TOKEN_RE.finditer(text):
            kind = m.lastgroup
            tok = m.group()
            if kind == "han":
                out.extend(w for w in _jieba().cut_for_search(tok) if w.strip() and w not in stop)
                continue
            if tok in stop or len(tok) > MAX_TOKEN_CHARS:
                continue
            if kind == "word" and tok.isascii() and tok.isalpha():
                tok = self._stemmer.stem_word(tok)
            out.append(tok)
        return out
