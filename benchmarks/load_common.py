"""The corpus, the ingesting process, the checks and the figures of the load benchmarks
(``load_serve.py``: ``structaware serve`` and ``structaware mcp`` under concurrent clients).

Corpus (built in a work folder from ``tests/fixtures``, parser output only, nothing downloaded):

* *stable* documents, ingested once and never written again: VA/DoD excerpts (hypertension,
  depression, the hypertension algorithm pages), the CDC outpatient guide, the synthetic English and
  Chinese guidelines and the tiny heading/table page; those with a PDF among the fixtures get
  ``<work>/pdfs/<doc_name>.pdf`` so ``GET /image`` (``--pdf``) can draw them;
* *churned* documents, rewritten all the time by the ingesting process: ``copd_live`` (the VA/DoD
  COPD pages: version 1 all three pages, version 2 the first two) and ``zh_live`` (the Chinese
  guideline: version 1 its first three pages, version 2 its first two). A version is a MinerU output
  folder whose ``middle_json.json`` is swapped in place, so each version has its own ``doc_id`` and
  unit ids, and ingesting one replaces the other (same source) in one transaction.

Before the load, both versions are ingested once in turn (quietly) and recorded: every ``doc_id``'s
unit ids (:attr:`Corpus.known`), and each unit's evidence neighbours (:attr:`Corpus.neighbours`,
what ``expand`` must bring). During the load, :class:`Checker` judges every answer against them: a
unit the corpus never had, a document seen with only part of its units (a probe for one document
must see none of its units or all of them), a hit whose neighbours are missing, two versions of a
document at once.

:class:`Churn` is the ingesting side: a loop of real ``structaware ingest`` / ``structaware delete``
commands (each a process of its own) into the served folder until the deadline: three in four cycles
swap a churned document's version, the fourth deletes its current version and ingests it again.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
MINERU = REPO / "tests" / "fixtures" / "mineru"
PDFS = REPO / "tests" / "fixtures" / "pdf"
_T = "mineru-4.0.12_flash-tier_"
STABLE = [
    _T + "vadod_htn_2020_p23-25",
    _T + "vadod_htn_2020_p98-101",
    _T + "vadod_htn_algorithm_pages",
    _T + "vadod_mdd_2022_excerpt",
    _T + "cdc_2016_outpatient_infection_prevention_guide",
    _T + "synthetic_guideline_en",
    _T + "synthetic_guideline_zh",
    _T + "tiny_heading_table",
]
#: churned document name -> (fixture, pages of version 1, pages of version 2)
CHURN = {
    "copd_live": (_T + "vadod_copd_2021_p27-29", 3, 2),
    "zh_live": (_T + "synthetic_guideline_zh", 3, 2),
}
ALL_TYPES = ["section", "table_row", "recommendation", "flow_path", "figure", "reference", "front_matter"]

EN_QUERIES = [
    "blood pressure target for adults",
    "home blood pressure monitoring to confirm the diagnosis",
    "first-line treatment for major depressive disorder",
    "psychotherapy or antidepressant medication",
    "hand hygiene in outpatient settings",
    "cleaning and disinfection of medical equipment",
    "COPD exacerbation inhaled corticosteroids",
    "pulmonary rehabilitation",
    "clinic BP target",
    "strength of recommendation and quality of evidence",
    "injection safety single-dose vials",
    "algorithm for the management of hypertension",
]
ZH_QUERIES = [
    "降压目标",
    "诊室血压目标",
    "动态血压监测",
    "高血压 诊断流程图",
    "推荐意见 强推荐",
    "生活方式干预",
    "血压测量 双上臂",
]


def cli(*args: str) -> list[str]:
    """The command line of ``structaware ARGS`` in this interpreter."""
    return [sys.executable, "-m", "structaware_retrievers.cli", *args]


def _version(fixture: str, pages: int, into: Path) -> Path:
    into.mkdir(parents=True, exist_ok=True)
    data = json.loads((MINERU / fixture / "middle_json.json").read_text(encoding="utf-8"))
    data["pages"] = data["pages"][:pages]
    (into / "middle_json.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return into / "middle_json.json"


@dataclass
class Corpus:
    """The work folder's index and what every document of it holds (see the module docstring)."""

    work: Path
    known: dict[str, frozenset[str]] = field(default_factory=dict)  # doc_id -> its unit ids
    names: dict[str, str] = field(default_factory=dict)  # doc_id -> doc_name
    versions: dict[str, list[str]] = field(default_factory=dict)  # churned name -> doc_id of versions 1, 2
    neighbours: dict[str, frozenset[str]] = field(default_factory=dict)  # unit id -> its neighbours' ids
    pictured: list[str] = field(default_factory=list)  # unit ids of stable documents with a PDF
    units: list[str] = field(default_factory=list)  # unit ids of stable documents

    @property
    def index(self) -> Path:
        return self.work / "index"

    @property
    def pdfs(self) -> Path:
        return self.work / "pdfs"

    def live(self, name: str) -> Path:
        return self.work / "churn" / name

    def put_version(self, name: str, v: int) -> None:
        """Swap version ``v`` (1 or 2) of a churned document into its live folder (atomic rename)."""
        src = self.work / "versions" / name / f"v{v}" / "middle_json.json"
        tmp = self.live(name) / ".middle_json.tmp"
        shutil.copyfile(src, tmp)
        os.replace(tmp, self.live(name) / "middle_json.json")

    @classmethod
    def build(cls, work: Path) -> Corpus:
        """Make the work folder (emptied first, but for its embedding cache), ingest everything (both versions of the churned documents in turn,
        version 2 last) and record what each document holds. Runs in this process; closes the index."""
        from structaware_retrievers.index.structure_index import StructureIndex

        cache = work / "index" / "embeddings.sqlite"  # content-addressed: kept from an earlier run
        kept = work.parent / f".{work.name}-embeddings.sqlite"
        if cache.is_file():
            os.replace(cache, kept)
        shutil.rmtree(work, ignore_errors=True)
        corpus = cls(work)
        if kept.is_file():
            corpus.index.mkdir(parents=True)
            os.replace(kept, cache)
        corpus.pdfs.mkdir(parents=True)
        for name in STABLE:
            pdf = PDFS / (name.removeprefix(_T) + ".pdf")
            if pdf.is_file():
                (corpus.pdfs / f"{name}.pdf").symlink_to(pdf)
        for name, (fixture, v1, v2) in CHURN.items():
            for v, pages in ((1, v1), (2, v2)):
                _version(fixture, pages, work / "versions" / name / f"v{v}")
            corpus.live(name).mkdir(parents=True)
        with StructureIndex(corpus.index) as ix:
            summary = ix.ingest([MINERU / n for n in STABLE])
            summary.raise_for_errors()
            corpus._record(ix, lambda name: name in STABLE)
            for v in (1, 2):
                for name in CHURN:
                    corpus.put_version(name, v)
                ix.ingest([corpus.live(n) for n in CHURN]).raise_for_errors()
                before = set(corpus.known)
                corpus._record(ix, lambda name: name in CHURN)
                for doc_id in set(corpus.known) - before:
                    corpus.versions.setdefault(corpus.names[doc_id], []).append(doc_id)
        assert all(len(v) == 2 for v in corpus.versions.values()), corpus.versions
        return corpus

    def _record(self, ix: Any, wanted: Any) -> None:
        from structaware_readers.models import Unit
        from structaware_retrievers.search.evidence import neighbours

        units = [Unit.from_payload(r.payload) for r in ix.store.scroll()]
        units = [u for u in units if wanted(u.doc_name) and u.doc_id not in self.known]
        by_doc: dict[str, set[str]] = {}
        for u in units:
            by_doc.setdefault(u.doc_id, set()).add(u.unit_id)
            self.names[u.doc_id] = u.doc_name
            self.neighbours[u.unit_id] = frozenset(n.unit_id for n in neighbours(ix.store, u))
            if u.doc_name in STABLE:
                self.units.append(u.unit_id)
                if (self.pdfs / f"{u.doc_name}.pdf").exists() and u.bboxes and u.unit_type.value != "figure":
                    self.pictured.append(u.unit_id)
        self.known.update({d: frozenset(ids) for d, ids in by_doc.items()})


@dataclass
class Kind:
    """The figures of one request kind: latencies (seconds), errors (with a few examples)."""

    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    examples: list[str] = field(default_factory=list)

    def error(self, what: str) -> None:
        self.errors += 1
        if len(self.examples) < 5:
            self.examples.append(what[:300])


class Tally:
    """Per request kind figures and the consistency violations, shared by the client threads."""

    def __init__(self) -> None:
        self.kinds: dict[str, Kind] = {}
        self.violations: dict[str, int] = {}
        self.violation_examples: list[str] = []
        self.checked: dict[str, int] = {}
        self._lock = threading.Lock()

    def add(self, kind: str, seconds: float, error: str | None = None) -> None:
        with self._lock:
            k = self.kinds.setdefault(kind, Kind())
            k.latencies.append(seconds)
            if error is not None:
                k.error(error)

    def violation(self, what: str, example: str) -> None:
        with self._lock:
            self.violations[what] = self.violations.get(what, 0) + 1
            if len(self.violation_examples) < 10:
                self.violation_examples.append(f"{what}: {example}"[:400])

    def check(self, what: str, n: int = 1) -> None:
        with self._lock:
            self.checked[what] = self.checked.get(what, 0) + n

    def rows(self) -> list[dict[str, Any]]:
        """One row per request kind, then ``all`` (every request)."""
        out = []
        every = Kind([x for k in self.kinds.values() for x in k.latencies], sum(k.errors for k in self.kinds.values()))
        for name, k in [*sorted(self.kinds.items()), ("all", every)]:
            lat = sorted(k.latencies)
            out.append(
                {
                    "kind": name,
                    "requests": len(lat),
                    "errors": k.errors,
                    "p50_ms": round(1000 * pct(lat, 50), 1),
                    "p99_ms": round(1000 * pct(lat, 99), 1),
                    "max_ms": round(1000 * lat[-1], 1) if lat else 0.0,
                    "error_examples": k.examples,
                    "latencies_ms": [round(1000 * x, 1) for x in k.latencies],  # in completion order
                }
            )
        return out

    def report(self) -> dict[str, Any]:
        """The fields both faces' reports share: request kinds, counts, errors and violations."""
        return {
            "kinds": self.rows(),
            "requests": sum(len(k.latencies) for k in self.kinds.values()),
            "errors": sum(k.errors for k in self.kinds.values()),
            "violations": self.violations,
            "violation_examples": self.violation_examples,
            "checked": self.checked,
        }


def pct(sorted_values: list[float], p: float) -> float:
    """The ``p``-th percentile (nearest rank) of sorted values; 0 for none."""
    if not sorted_values:
        return 0.0
    i = max(0, min(len(sorted_values) - 1, math.ceil(p / 100 * len(sorted_values)) - 1))
    return sorted_values[i]


class Checker:
    """Judges answers against the corpus (see the module docstring); records into a :class:`Tally`."""

    def __init__(self, corpus: Corpus, tally: Tally) -> None:
        self.corpus = corpus
        self.tally = tally
        self.unit_doc = {u: d for d, ids in corpus.known.items() for u in ids}

    def records(self, records: list[dict[str, Any]], where: str) -> set[str]:
        """Every unit of ``records`` (with table-group rows) must be one the corpus had, of the
        document the record names; returns the unit ids seen."""
        seen: set[str] = set()
        for r in records:
            for uid in [r["unit_id"], *(r.get("group_unit_ids") or [])]:
                seen.add(uid)
                if self.unit_doc.get(uid) != r["doc_id"]:
                    self.tally.violation("unknown unit", f"{where}: {uid} of {r['doc_id']}")
        self.tally.check("units", len(seen))
        return seen

    def probe(self, doc_id: str, records: list[dict[str, Any]], where: str) -> None:
        """An answer listing every unit of ``doc_id`` (all types, a k above its size) must hold
        none of them (not in the index now) or all of them."""
        seen = self.records(records, where)
        want = self.corpus.known[doc_id]
        self.tally.check("probes")
        if seen:
            self.tally.check("probes finding the document")
        if seen and seen != want:
            self.tally.violation("half document", f"{where}: {len(seen)} of {len(want)} units of {doc_id}")

    def expanded(self, records: list[dict[str, Any]], where: str) -> None:
        """Each hit's evidence neighbours (as recorded on the quiet index) must all be handed over."""
        seen = self.records(records, where)
        for r in records:
            if r.get("expanded_from") is None:
                self.tally.check("expanded hits")
                missing = self.corpus.neighbours.get(r["unit_id"], frozenset()) - seen
                if missing:
                    self.tally.violation("hit without its neighbours", f"{where}: {r['unit_id']} misses {len(missing)}")

    def documents(self, docs: list[dict[str, Any]], where: str) -> None:
        """Each listed document with all its units, each churned document in one version at most."""
        self.tally.check("document lists")
        names: dict[str, int] = {}
        for d in docs:
            want = self.corpus.known.get(d["doc_id"])
            names[d["doc_name"]] = names.get(d["doc_name"], 0) + 1
            if want is None or d["units"] != len(want):
                self.tally.violation(
                    "half document", f"{where}: {d['doc_name']} {d['units']} units, want {want and len(want)}"
                )
        for name, n in names.items():
            if n > 1:
                self.tally.violation("two versions", f"{where}: {name} x{n}")


class Churn(threading.Thread):
    """The ingesting side (see the module docstring): CLI commands into the index until ``deadline``
    (``time.monotonic()``), each bounded by ``timeout`` seconds. ``cycles`` lists each command's
    document, action, exit code and seconds."""

    def __init__(self, corpus: Corpus, deadline: float, timeout: float = 300.0, *, idle: bool = False) -> None:
        super().__init__(name="churn", daemon=True)
        self.corpus = corpus
        self.deadline = deadline
        self.timeout = timeout
        self.cycles: list[dict[str, Any]] = []
        self.current = dict.fromkeys(CHURN, 2)  # the version in the index after Corpus.build
        self.stop = threading.Event()
        if idle:  # a baseline: no ingest at all
            self.stop.set()

    def _run(self, name: str, action: str, *args: str) -> bool:
        t = time.perf_counter()
        try:
            p = subprocess.run(
                cli(*args, "--index", str(self.corpus.index)), capture_output=True, text=True, timeout=self.timeout
            )
            code, tail = p.returncode, [line for line in p.stderr.splitlines() if line.strip()][-3:]
        except subprocess.TimeoutExpired:
            code, tail = -1, [f"timed out after {self.timeout:.0f} s"]
        self.cycles.append(
            {
                "doc": name,
                "action": action,
                "exit": code,
                "s": round(time.perf_counter() - t, 2),
                "stderr": tail if code else [],
            }
        )
        return code == 0

    def run(self) -> None:
        i = 0
        while time.monotonic() < self.deadline and not self.stop.is_set():
            name = list(CHURN)[i % len(CHURN)]
            if i % 4 == 3:
                doc_id = self.corpus.versions[name][self.current[name] - 1]
                self._run(name, "delete", "delete", doc_id)
                self._run(name, "re-ingest", "ingest", str(self.corpus.live(name)), "--no-progress")
            else:
                v = 3 - self.current[name]
                self.corpus.put_version(name, v)
                if self._run(name, f"swap to v{v}", "ingest", str(self.corpus.live(name)), "--no-progress"):
                    self.current[name] = v
            i += 1

    def summary(self) -> dict[str, Any]:
        failed = [c for c in self.cycles if c["exit"] != 0]
        secs = sorted(c["s"] for c in self.cycles)
        return {
            "commands": len(self.cycles),
            "failed": len(failed),
            "failures": failed[:5],
            "p50_s": round(pct(secs, 50), 2),
            "max_s": secs[-1] if secs else 0.0,
            "actions": {
                a: sum(c["action"].startswith(a) for c in self.cycles) for a in ("swap", "delete", "re-ingest")
            },
        }


class RssWatch(threading.Thread):
    """Samples the resident set (``/proc/<pid>/status``, MiB) of some processes every 0.5 s; ``peak``
    is the largest sample of each, ``hwm`` the kernel's high-water mark (``VmHWM``, the peak resident
    set since the process started), last read while the process was alive."""

    def __init__(self, pids: list[int]) -> None:
        super().__init__(name="rss", daemon=True)
        self.pids = pids
        self.peak = dict.fromkeys(pids, 0.0)
        self.hwm: dict[int, float] = {}
        self.stop = threading.Event()

    @staticmethod
    def _status(pid: int, key: str) -> float:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith(key + ":"):
                    return int(line.split()[1]) / 1024
        except OSError:
            pass
        return 0.0

    def run(self) -> None:
        while not self.stop.wait(0.5):
            self._sample()

    def _sample(self) -> None:
        for p in self.pids:
            self.peak[p] = max(self.peak[p], self._status(p, "VmRSS"))
            self.hwm[p] = max(self.hwm.get(p, 0.0), self._status(p, "VmHWM"))

    def finish(self) -> dict[int, dict[str, float]]:
        self._sample()
        self.stop.set()
        return {p: {"peak_sampled_mib": round(self.peak[p]), "vm_hwm_mib": round(self.hwm[p])} for p in self.pids}


def load_avg() -> str:
    return " / ".join(f"{v:.1f}" for v in os.getloadavg())
