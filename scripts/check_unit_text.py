"""Count units whose text or context holds markup or mojibake (issue 21, item 4: text as a reader sees it).

Reads documents (anything ``structaware units`` reads: PDFs, MinerU outputs, Unstructured JSON),
builds their units with the default options, and counts the units whose ``text`` or ``context``
holds:

* **markup**: an inline HTML tag (``<sup>``, ``<sub>``, ``<b>``, ``<br>``... any tag of
  :data:`structaware_readers.inline_markup.INLINE_TAGS`, plus table tags ``<td>``/``<tr>``/``<table>``)
  or an HTML entity written with its semicolon (``&lt;``, ``&amp;``, ``&#8805;``);
* **mojibake**: U+FFFD, U+FFFE (PDFium's line-end hyphen), pdfminer's ``(cid:N)`` for an unmapped glyph, C0/C1 control characters
  (other than tab and newline), Private Use Area code points (a symbol font without a Unicode map),
  or UTF-8 read as Windows-1252/Latin-1 (``â€™``, ``Ã©``, ``Â `` followed by a continuation
  character), or GBK/UTF-8 confusion seen as a run of Latin-1 letters between CJK text.

Prints one line per document (units, markup units, mojibake units), the totals, and up to
``--examples`` examples of each. Exit code 1 when any unit is counted (a check for CI or a release).

Usage::

    STRUCTAWARE_CACHE_DIR=... HF_HUB_OFFLINE=1 python scripts/check_unit_text.py \\
        ../shared/bench/cpg/mineru-4.0.12-flash/*.zip --pdf-dir ../shared/bench/cpg/pdfs
    python scripts/check_unit_text.py ../shared/bench/cpg_zh/pdfs/*.pdf
    python scripts/check_unit_text.py --units dump/*.jsonl      # unit dumps (one JSON unit a line)
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

_TAGS = (
    r"sup|sub|b|i|u|s|em|strong|span|small|big|mark|font|a|ins|del|code|br|p|div|li|ul|ol|eq|td|th|tr|table|tbody|thead"
)
MARKUP = re.compile(
    rf"</?(?:{_TAGS})(?:\s[^<>]*)?/?>|&(?:#\d{{1,7}}|#[xX][0-9a-fA-F]{{1,6}}|[A-Za-z][A-Za-z0-9]{{1,31}});",
    re.IGNORECASE,
)
MOJIBAKE = re.compile(
    "[\ufffd\ufffe]"  # replacement character; PDFium's line-end hyphen, left unread
    r"|\(cid:\d+\)"  # pdfminer: glyph without a Unicode map
    "|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]"  # control characters
    "|[\ue000-\uf8ff]"  # Private Use Area
    "|[\u00c2\u00c3][\u0080-\u00bf\u00a0-\u00bf]"  # UTF-8 read as Latin-1 (Ã©, Â )
    "|\u00e2\u20ac[\u0080-\u00bf\u2018-\u201e\u2122\u0153\u0161\u017e\u2020-\u2026\u0178]"  # â€™ â€œ (UTF-8 read as cp1252)
    "|\u00ef\u00bc|\u00e3\u0080"  # fullwidth / CJK punctuation read as Latin-1
)


def classify(text: str) -> tuple[str | None, str | None]:
    """(first markup found, first mojibake found) in ``text``, ``None`` for none."""
    m, j = MARKUP.search(text), MOJIBAKE.search(text)
    return (m.group(0) if m else None, j.group(0) if j else None)


def _units_of(path: Path, pdf_dir: Path | None) -> list[dict]:
    from structaware_readers.loader import load_document
    from structaware_readers.units import build_units

    pdf = None
    if pdf_dir is not None:
        cand = pdf_dir / f"{path.name.split('.')[0]}.pdf"
        pdf = cand if cand.exists() else None
    doc = load_document(path, pdf=pdf) if pdf else load_document(path)
    return [u.model_dump(mode="json") for u in build_units(doc)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("inputs", nargs="+", type=Path)
    ap.add_argument("--units", action="store_true", help="inputs are unit dumps (JSON lines)")
    ap.add_argument("--pdf-dir", type=Path, default=None, help="PDFs of parser outputs, by file stem")
    ap.add_argument("--examples", type=int, default=5)
    args = ap.parse_args(argv)
    total = n_markup = n_moji = 0
    ex_markup: list[str] = []
    ex_moji: list[str] = []
    for path in args.inputs:
        if args.units:
            units = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        else:
            units = _units_of(path, args.pdf_dir)
        dm = dj = 0
        for u in units:
            markup, moji = classify(f"{u['text']}\n{u['context']}")
            where = f"{path.name} p{u['pages'][0] if u['pages'] else '?'} {u['unit_type']}"
            if markup:
                dm += 1
                if len(ex_markup) < args.examples:
                    ex_markup.append(f"{where}: {markup!r} in {u['text'][:160]!r}")
            if moji:
                dj += 1
                if len(ex_moji) < args.examples:
                    ex_moji.append(f"{where}: {moji!r} in {u['text'][:160]!r}")
        total, n_markup, n_moji = total + len(units), n_markup + dm, n_moji + dj
        print(f"{path.name}: {len(units)} units, {dm} with markup, {dj} with mojibake", flush=True)
    print(f"TOTAL: {total} units, {n_markup} with markup, {n_moji} with mojibake")
    for title, ex in (("markup", ex_markup), ("mojibake", ex_moji)):
        for line in ex:
            print(f"  {title}: {line}")
    return 1 if n_markup or n_moji else 0


if __name__ == "__main__":
    sys.exit(main())
