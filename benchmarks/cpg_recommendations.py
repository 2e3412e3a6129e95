"""Recommendation units of the VA/DoD guidelines against each guideline's own recommendation table.

Every VA/DoD guideline in ``../shared/bench/cpg`` prints its recommendations once as a ruled table
(columns ``Topic / Sub-topic / # / Recommendation / Strength / Category``, the topic written
vertically). That table, read here from the PDF's text layer with pdfplumber's ruled-table finder
(independent of the parser and of structaware's own table code), is the ground truth: one
recommendation per numbered row (``#`` cell ``1.``, ``2.``...), its text, its strength and direction
(``Strong for``, ``Weak against``, ``Neither for nor against``, ``Not applicable``) and its category
(``Reviewed, New-added``...).

What is measured (per guideline and in all), on the units ``load_document(zip, pdf=pdf)`` +
``build_units`` give (the product route of ``structaware units <zip> --pdf <pdf>``):

* ``truth``: recommendations in the guideline's table; ``rec``: ``recommendation`` units;
* ``found``: table recommendations matched by at least one ``recommendation`` unit (recall); a
  unit matches a recommendation when it holds >= 85% of the recommendation's character 6-grams
  (lower case, letters and digits only, so glued words still match) and has no more other 6-grams
  than the recommendation has, or 80 (its grade label, a number): a unit is one recommendation, not
  a section holding several; a unit matches only the recommendation it holds the largest share of
  (two recommendations worded alike are not both matched by one unit);
* ``in_table``: of those, matched by a unit built from the table itself (``Unit.table`` set);
* ``strength ok``: matched units whose grade has the table's strength and direction (every
  matching unit must agree);
* ``unmatched``: ``recommendation`` units matching no recommendation of the table, all listed in
  ``<out>/unmatched.txt`` to be read (precision: how many of them are no recommendation at all);
* ``people/refs/toc paths``: units whose section path holds a person's name with a credential or
  rank (participant lists), a bibliography entry or a table-of-contents line;
* ``discussion``: units under a bare ``Discussion`` heading, and how many of them name in their
  context the recommendation they discuss (a table recommendation's first 60 characters);
* with ``--questions``: the 20 ``recommendation`` questions of ``questions/vadod_dev.jsonl``, each
  asked of one hybrid index of all ten guidelines (default fusion, top 5): whether a top-5 hit is a
  ``recommendation`` unit holding the gold recommendation with the strength and direction of the
  question's answer.

Run::

    HF_HUB_OFFLINE=1 nice -n 10 .venv/bin/python benchmarks/cpg_recommendations.py --out /tmp/recs \\
        [--shared ../shared] [--questions --cache-dir /work/devsets/cache] [--docs NAME ...]

Figures: ``docs/benchmarks/recommendations.md``. Ground truth is cached in ``<out>/truth.json``
(keyed by PDF size); the report is ``<out>/report.md``, printed too.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

_NUM = re.compile(r"^(\d{1,3})\.?$")
_STRENGTH = re.compile(
    r"(?i)^(strong|weak)\s*(for|against)$|^(neither)\s+for\s+nor\s+against$|^(not\s+applicable|n/?a)$"
)
#: a person's name with a credential or a military rank (participant lists)
_PERSON = re.compile(
    r"(?:,\s*(?:MD|M\.D\.|PhD|Ph\.D\.|PharmD|DO|RN|MSN|BSN|MPH|MS|MA|MSW|LCSW|DNP|NP|FNP(?:-BC)?|PA-C|RD|"
    r"DPT|PT|OTR/L|CPO|FACP|FACC|MBA|MHA|PsyD|ABPP|CDE|BCPS|CRNP|APRN)\b)|"
    r"^(?:Lt\s*Col|LTC|COL|CDR|LCDR|CAPT|Capt|MAJ|Maj|CPT|Col|Lt|LT|Dr)\.?\s+[A-Z][a-z]+"
)
#: a bibliography entry: "12. Smith AB, Doe C. Title. J Med. 2019;12:34-56", "... et al."
_REFERENCE = re.compile(
    r"\bet\s+al\b|\b(?:19|20)\d\d\s*;\s*\d+|\bdoi\s*:|\bPMID\b|^\[?\d+[\].]?\s+[A-Z][a-zA-Z'-]+\s+[A-Z]{1,3}[,.]"
)
_TOC = re.compile(r"(?:\.\s*){4,}\s*\d+\s*$|\s\.{2,}\s*\d+$")
_STRENGTH_OF_ANSWER = re.compile(r"(?i)\b(strong|weak)\s+(for|against)\b|\b(neither)\s+for\s+nor\s+against\b")


@dataclass
class TruthRec:
    number: int
    text: str
    strength: str  # "strong" / "weak" / ""
    direction: str  # "for" / "against" / "neither" / ""
    category: str
    page: int


@dataclass
class DocReport:
    name: str
    truth: list[TruthRec]
    rec_units: int = 0
    found: int = 0
    in_table: int = 0
    strength_ok: int = 0
    strength_bad: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)
    bad_paths: Counter[str] = field(default_factory=Counter)
    bad_path_examples: list[str] = field(default_factory=list)
    discussion: int = 0
    discussion_named: int = 0


def _norm(text: str) -> str:
    return re.sub(r"[^0-9a-z]", "", text.lower())


def _grams(text: str, n: int = 6) -> set[str]:
    s = _norm(text)
    return {s[i : i + n] for i in range(max(1, len(s) - n + 1))}


def _strength(cell: str) -> tuple[str, str]:
    m = _STRENGTH.match(" ".join(cell.split()))
    if not m:
        return "", ""
    if m.group(3):
        return "", "neither"
    if m.group(4):
        return "", ""
    return m.group(1).lower(), m.group(2).lower()


# ----------------------------------------------------------------------------- ground truth


def read_truth(pdf_path: Path, max_pages: int = 60) -> list[TruthRec]:
    """The numbered rows of the guideline's recommendation table(s), from pdfplumber's ruled tables.

    A table counts when a header row names ``Recommendation``, ``Strength`` and ``Category`` (not
    ``Evidence``, not a year: evidence and earlier-version tables are not the guideline's own). In a
    data row, the cells after the ``#`` cell are recommendation, strength, category (empty cells
    skipped); a row without a number continues the previous recommendation."""
    import pdfplumber

    out: list[TruthRec] = []
    with pdfplumber.open(str(pdf_path)) as pdf:
        for i, page in enumerate(pdf.pages[:max_pages]):
            words = " ".join(w["text"] for w in page.extract_words())
            if not all(k in words for k in ("Recommendation", "Strength", "Category")):
                page.close()
                continue
            for table in page.find_tables():
                rows = [[" ".join((c or "").split()) for c in r] for r in table.extract()]
                head = " ".join(" ".join(r) for r in rows[:3])
                if not all(k in head for k in ("Recommendation", "Strength", "Category")) or re.search(
                    r"Evidence|(?:19|20)\d\d|Direction", head
                ):
                    continue
                for row in rows:
                    k = next((j for j, c in enumerate(row) if _NUM.match(c)), None)
                    rest = [c for c in row[k + 1 :] if c] if k is not None else []
                    if k is not None and len(rest) >= 2:
                        strength, direction = _strength(rest[1]) if len(rest) >= 3 else _strength(rest[-1])
                        out.append(
                            TruthRec(
                                int(_NUM.match(row[k]).group(1)),
                                rest[0],
                                strength,
                                direction,
                                rest[2] if len(rest) >= 3 else "",
                                i + 1,
                            )
                        )
                    elif k is None and out and out[-1].page == i + 1:
                        tail = [c for c in row if c and not _STRENGTH.match(c)]
                        if tail and len(tail[0]) > 20:
                            out[-1].text += " " + tail[0]
            page.close()
    seen: set[int] = set()
    return [r for r in out if not (r.number in seen or seen.add(r.number))]


# ----------------------------------------------------------------------------- per document


def _path_fault(element: str) -> str:
    if _TOC.search(element):
        return "toc"
    if _REFERENCE.search(element):
        return "reference"
    if _PERSON.search(element):
        return "person"
    return ""


def check_document(name: str, units: list[Any], truth: list[TruthRec]) -> DocReport:
    from structaware_readers.models import UnitType

    rep = DocReport(name, truth)
    tgrams = [_grams(t.text) for t in truth]
    heads = [_norm(t.text)[:60] for t in truth]
    matched: dict[int, list[Any]] = {}
    for u in units:
        faults = {f for el in u.section_path if (f := _path_fault(el))}
        for f in faults:
            rep.bad_paths[f] += 1
        if faults and len(rep.bad_path_examples) < 30:
            rep.bad_path_examples.append(f"p.{u.pages[0]} {sorted(faults)} {' > '.join(u.section_path)[:160]}")
        if u.section_path and u.section_path[-1].strip().lower().rstrip(":") == "discussion":
            rep.discussion += 1
            ctx = _norm(u.context)
            rep.discussion_named += any(h and h in ctx for h in heads)
        if u.unit_type is not UnitType.RECOMMENDATION:
            continue
        rep.rec_units += 1
        ug = _grams(u.text)
        best, j = max(((len(ug & tg) / len(tg), j) for j, tg in enumerate(tgrams)), default=(0.0, -1))
        hit = best >= 0.85 and len(ug) - len(ug & tgrams[j]) <= max(len(tgrams[j]), 80)
        if hit:
            matched.setdefault(j, []).append(u)
        else:
            rep.unmatched.append(
                f"p.{','.join(map(str, u.pages))} [{u.context[:100]}] {' '.join(u.text.split())[:300]}"
            )
    for j, t in enumerate(truth):
        us = matched.get(j, [])
        if not us:
            rep.missing.append(f"#{t.number} p.{t.page} {t.text[:120]}")
            continue
        rep.found += 1
        rep.in_table += any(u.table is not None for u in us)
        bad = [
            u
            for u in us
            if (u.grade.strength if u.grade else "", u.grade.direction if u.grade else "") != (t.strength, t.direction)
        ]
        if bad:
            got = {(u.grade.strength, u.grade.direction) if u.grade else None for u in bad}
            rep.strength_bad.append(
                f"#{t.number} table {t.strength or '-'} {t.direction or '-'}; units {sorted(map(str, got))}"
            )
        else:
            rep.strength_ok += 1
    return rep


# ----------------------------------------------------------------------------- questions


def check_questions(
    bench: Path, units_by_doc: dict[str, list[Any]], docs: dict[str, Any], idx: Path, cache_dir: Path
) -> list[str]:
    """One line per ``recommendation`` question: hit or not, and what the top 5 held."""
    import shutil

    from structaware_readers.models import UnitType
    from structaware_retrievers.encoders import DenseEncoder, EmbeddingCache, SparseEncoder
    from structaware_retrievers.index.structure_index import StructureIndex

    cache = EmbeddingCache(cache_dir / "embeddings.sqlite")
    shutil.rmtree(idx, ignore_errors=True)
    index = StructureIndex(idx, dense=DenseEncoder(cache=cache), sparse=SparseEncoder(cache=cache))
    for stem, units in units_by_doc.items():
        index.add_document(docs[stem], units)
    lines = []
    hits_ok = 0
    qs = [json.loads(x) for x in (bench / "questions" / "vadod_dev.jsonl").read_text().splitlines() if x.strip()]
    qs = [q for q in qs if q["evidence_type"] == "recommendation" and Path(q["doc"]).stem in units_by_doc]
    for q in qs:
        m = _STRENGTH_OF_ANSWER.search(q["answer"])
        want = ("", "neither") if m and m.group(3) else ((m.group(1).lower(), m.group(2).lower()) if m else ("", ""))
        gg = _grams(q["gold_text"])
        top = index.query(q["question"], k=5, mode="hybrid", min_score=0)  # the ranking: every hit kept
        ok = False
        kinds = []
        for h in top:
            u = h.unit
            holds = len(_grams(u.text) & gg) >= 0.85 * len(gg)
            got = (u.grade.strength, u.grade.direction) if u.grade else None
            kinds.append(f"{u.unit_type.value}{'*' if holds else ''}")
            if holds and u.unit_type is UnitType.RECOMMENDATION and got == want:
                ok = True
        hits_ok += ok
        lines.append(f"| {q['qid']} | {'yes' if ok else 'no'} | {want[0] or '-'} {want[1]} | {', '.join(kinds)} |")
    index.close()
    cache.close()
    return [
        (
            f"Recommendation questions: {hits_ok} of {len(qs)} with the gold recommendation in the top 5 as a "
            "`recommendation` unit with the answer's strength and direction (`*`: the hit holds the gold text)"
        ),
        "",
        "| question | hit | answer | top 5 |",
        "|---|---|---|---|",
        *lines,
    ]


# ----------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--shared", type=Path, default=Path(__file__).resolve().parents[1] / ".." / "shared")
    ap.add_argument("--docs", nargs="*", default=None, help="guideline file stems (default: all ten)")
    ap.add_argument(
        "--questions", action="store_true", help="also ask the 20 recommendation questions (builds an index)"
    )
    ap.add_argument("--cache-dir", type=Path, default=None, help="embedding cache folder (default <out>/cache)")
    args = ap.parse_args(argv)

    from structaware_readers.load.loader import load_document
    from structaware_readers.units import build_units

    bench = (args.shared / "bench" / "cpg").resolve()
    args.out.mkdir(parents=True, exist_ok=True)
    stems = args.docs or sorted(p.stem for p in (bench / "pdfs").glob("*.pdf"))
    truth_file = args.out / "truth.json"
    cached = json.loads(truth_file.read_text()) if truth_file.exists() else {}
    reports: list[DocReport] = []
    units_by_doc: dict[str, list[Any]] = {}
    docs: dict[str, Any] = {}
    t0 = time.perf_counter()
    for stem in stems:
        pdf = bench / "pdfs" / f"{stem}.pdf"
        key = f"{stem}:{pdf.stat().st_size}"
        if key not in cached:
            cached[key] = [asdict(t) for t in read_truth(pdf)]
            truth_file.write_text(json.dumps(cached, indent=1))
        truth = [TruthRec(**t) for t in cached[key]]
        doc = load_document(bench / "mineru-4.0.12-flash" / f"{stem}.zip", pdf=pdf)
        units = build_units(doc)
        docs[stem], units_by_doc[stem] = doc, units
        reports.append(check_document(stem, units, truth))
        print(f"{stem}: {len(truth)} in the table, {reports[-1].found} found", flush=True)

    load = os.getloadavg()
    lines = [
        (
            f"Recommendations vs the guidelines' own tables ({len(stems)} VA/DoD guidelines, "
            f"{time.perf_counter() - t0:.0f} s, load average {load[0]:.1f}):"
        ),
        "",
        "| guideline | truth | rec units | found (recall) | from table | strength ok | unmatched units | people/refs/toc paths | discussion (named) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    tot = Counter()
    for r in reports:
        n = len(r.truth)
        bad = sum(r.bad_paths.values())
        lines.append(
            f"| {r.name} | {n} | {r.rec_units} | {r.found} ({r.found / max(n, 1):.0%}) | {r.in_table} | "
            f"{r.strength_ok} | {len(r.unmatched)} | {bad} ({dict(r.bad_paths) or ''}) | {r.discussion} ({r.discussion_named}) |"
        )
        tot.update(
            truth=n,
            rec=r.rec_units,
            found=r.found,
            in_table=r.in_table,
            ok=r.strength_ok,
            unmatched=len(r.unmatched),
            bad=bad,
            disc=r.discussion,
            named=r.discussion_named,
        )
    lines.append(
        f"| **all** | {tot['truth']} | {tot['rec']} | {tot['found']} ({tot['found'] / max(tot['truth'], 1):.1%}) | "
        f"{tot['in_table']} | {tot['ok']} | {tot['unmatched']} | {tot['bad']} | {tot['disc']} ({tot['named']}) |"
    )
    detail = []
    for r in reports:
        detail += [
            f"## {r.name}",
            "",
            "missing:",
            *r.missing,
            "",
            "strength disagreements:",
            *r.strength_bad,
            "",
            "section paths:",
            *r.bad_path_examples,
            "",
        ]
    (args.out / "details.txt").write_text("\n".join(detail), encoding="utf-8")
    (args.out / "unmatched.txt").write_text(
        "\n".join(f"{r.name} {u}" for r in reports for u in r.unmatched), encoding="utf-8"
    )
    if args.questions:
        lines += [
            "",
            *check_questions(bench, units_by_doc, docs, args.out / "idx", args.cache_dir or args.out / "cache"),
        ]
    text = "\n".join(lines) + "\n"
    (args.out / "report.md").write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
