r"""Retrieval metrics of the reference paper (sections 3.3 and 4.4), as pure functions over ranked results. Ranks are
1-based; lengths are characters of ``context + "\n" + text``.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

#: Default number of results retrieved per query; MRR counts a first hit only within this depth.
DEFAULT_DEPTH = 100
#: Fraction of gold tokens that must be found in the candidate text.
COVERAGE_THRESHOLD = 0.8
#: Context budgets of the paper's Table 5, in characters.
DEFAULT_BUDGETS = (1000, 2000, 4000)
#: Number of top results whose characters make up the context cost.
CONTEXT_TOP = 5
BUDGET_POLICIES = ("stop", "skip")

# control characters left where a JSON writer did not escape a LaTeX backslash (``"\begin"`` read
# as backspace + ``egin``): restored before LaTeX is stripped
_JSON_EATEN = (
    (re.compile("\x08(?=egin)"), r"\\b"),
    (re.compile("\x0c(?=rac)"), r"\\f"),
    (re.compile("\t(?=ext|imes)"), r"\\t"),
    (re.compile("\r(?=ight)"), r"\\r"),
)
_LATEX_ENV = re.compile(r"\\(?:begin|end)\{[A-Za-z*]+\}(?:\{[^{}]*\})?")
_LATEX_SPAN = re.compile(r"\\(?:multicolumn|multirow)\{[^{}]*\}\{[^{}]*\}")
_LATEX_FONT = re.compile(r"\\(?:mathbf|mathrm|mathit|mathsf|textbf|textit|text|boldsymbol|bf)\s*\{([^{}]*)\}")
_SPACED_DIGITS = re.compile(r"(?<=[\d.,]) (?=[\d.,])")
_HTML_TAG = re.compile(r"</?(?:sup|sub|b|i|u|em|strong|br|span|p|div)\b[^<>]*>", re.IGNORECASE)
_LATEX_ESCAPES = re.compile(r"\\([$%&_#{}])")
#: LaTeX commands dropped with their name; any other ``\word`` keeps its word (``\June`` -> ``June``).
_LATEX_NAMES = (
    "hline cline toprule midrule bottomrule multicolumn multirow begin end tabular array left right "
    "frac dfrac times cdot cdots ldots dots quad qquad mathrm mathbf mathit mathsf mathcal mathbb "
    "text textbf textit textrm textsuperscript textsubscript emph underline overline boldsymbol "
    "operatorname bf it rm tiny small footnotesize scriptsize large hspace vspace noindent newline "
    "hfill centering sim approx leq geq le ge pm mp circ prime percent"
)
_LATEX_COMMAND = re.compile(rf"\\(?:{'|'.join(_LATEX_NAMES.split())})(?![A-Za-z])\*?")
_LATEX_BACKSLASH = re.compile(r"\\(?=[A-Za-z])")
_LATEX_SPACING = re.compile(r"\\[,;:! ()\[\]]")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?:\D|$))")
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af"
_TOKEN = re.compile(rf"[{_CJK}]|\d+(?:\.\d+)*|[^\W\d_{_CJK}]+")


def normalize_text(text: str) -> str:
    r"""Normalise text for gold-evidence matching."""
    t = html.unescape(text)
    t = _HTML_TAG.sub(" ", t)
    for pattern, repl in _JSON_EATEN:
        t = pattern.sub(repl, t)
    t = unicodedata.normalize("NFKC", t)
    t = _LATEX_ENV.sub(" ", t)
    t = _LATEX_SPAN.sub(" ", t)
    t = _LATEX_FONT.sub(lambda m: " " + _SPACED_DIGITS.sub("", m.group(1)) + " ", t)
    t = t.replace("\\\\", " ")
    t = _LATEX_SPACING.sub(" ", t)
    t = _LATEX_ESCAPES.sub(r"\1", t)
    t = _LATEX_COMMAND.sub(" ", t)
    t = _LATEX_BACKSLASH.sub("", t)
    t = re.sub(r"[$^_{}~]", " ", t)
    t = t.lower()
    t = _THOUSANDS.sub("", t)
    return t


def tokens(text: str) -> list[str]:
    """Tokens of :func:`normalize_text` output: letter runs, numbers (``12``, ``1.5``) and single
    CJK characters; everything else is a separator."""
    return _TOKEN.findall(normalize_text(text))


def token_counts(text: str) -> Counter[str]:
    """Multiset of :func:`tokens`."""
    return Counter(tokens(text))


def coverage(gold: Counter[str], candidate: Counter[str]) -> float:
    """Fraction (0..1) of the gold token multiset found in the candidate multiset; 0 for empty gold."""
    total = sum(gold.values())
    if total == 0:
        return 0.0
    found = sum(min(n, candidate.get(tok, 0)) for tok, n in gold.items())
    return found / total


def covers(golds: Sequence[Counter[str]], candidate: Counter[str], threshold: float = COVERAGE_THRESHOLD) -> bool:
    """True when ``candidate`` covers any of the gold token multisets at ``>= threshold``."""
    return any(sum(g.values()) and coverage(g, candidate) >= threshold for g in golds)


# ----------------------------------------------------------------------------- rank-level metrics


def first_hit_rank(flags: Sequence[bool]) -> int | None:
    """1-based rank of the first ``True`` in ``flags`` (results in rank order), or ``None``."""
    for i, f in enumerate(flags, start=1):
        if f:
            return i
    return None


def hit_at_k(rank: int | None, k: int) -> float:
    """1.0 when the first hit is within the top ``k``, else 0.0."""
    return 1.0 if rank is not None and rank <= k else 0.0


def reciprocal_rank(rank: int | None, depth: int = DEFAULT_DEPTH) -> float:
    """``1 / rank`` of the first hit, 0.0 when there is none within ``depth``."""
    return 1.0 / rank if rank is not None and rank <= depth else 0.0


def context_cost(lengths: Sequence[int], top: int = CONTEXT_TOP) -> int:
    """Characters of the top ``top`` results (sum of their lengths)."""
    return int(sum(lengths[:top]))


def budget_hit(flags: Sequence[bool], lengths: Sequence[int], budget: int, policy: str = "stop") -> bool:
    """Whether a page hit is among the results taken in rank order within ``budget`` characters. Raises ``ValueError``."""
    if policy not in BUDGET_POLICIES:
        raise ValueError(f"unknown budget policy {policy!r}; expected one of {BUDGET_POLICIES}")
    if len(flags) != len(lengths):
        raise ValueError("flags and lengths must have the same length")
    used = 0
    for hit, n in zip(flags, lengths):
        if used + n > budget:
            if policy == "stop":
                return False
            continue
        used += n
        if hit:
            return True
    return False


# ----------------------------------------------------------------------------- per-query outcome


@dataclass
class QueryOutcome:
    """Everything the metrics need about one query under one method / retriever / scope."""

    qid: str
    evidence_type: str
    page_rank: int | None
    element_rank: int | None
    evidence_rank: int | None
    has_gold_text: bool
    ctx_chars: int
    budget_hits: dict[str, dict[int, bool]] = field(default_factory=dict)
    n_results: int = 0


def outcome_from_flags(
    qid: str,
    evidence_type: str,
    page_flags: Sequence[bool],
    element_flags: Sequence[bool] | None,
    evidence_flags: Sequence[bool] | None,
    lengths: Sequence[int],
    *,
    budgets: Iterable[int] = DEFAULT_BUDGETS,
) -> QueryOutcome:
    """Build a :class:`QueryOutcome` from per-result flags (rank order) and result lengths.

    ``element_flags``/``evidence_flags`` are ``None`` when the question has no gold text.
    """
    budgets = tuple(budgets)
    return QueryOutcome(
        qid=qid,
        evidence_type=evidence_type,
        page_rank=first_hit_rank(page_flags),
        element_rank=first_hit_rank(element_flags) if element_flags is not None else None,
        evidence_rank=first_hit_rank(evidence_flags) if evidence_flags is not None else None,
        has_gold_text=element_flags is not None or evidence_flags is not None,
        ctx_chars=context_cost(lengths),
        budget_hits={pol: {b: budget_hit(page_flags, lengths, b, pol) for b in budgets} for pol in BUDGET_POLICIES},
        n_results=len(page_flags),
    )


def _mean(values: Sequence[float]) -> float | None:
    return float(sum(values) / len(values)) if values else None


def summarize(
    outcomes: Sequence[QueryOutcome],
    *,
    ks: Sequence[int] = (1, 5, 10),
    element_addressable: bool = True,
    depth: int = DEFAULT_DEPTH,
) -> dict[str, float | int | None]:
    """Mean metrics over ``outcomes``, as a flat dict (``n``, ``PH@k``, ``EH@k``, ``EvH@k``, ``MRR_*``, ``Ctx`` in
    characters, ``budget_{policy}@{B}``). Element and evidence means are over questions with gold text only;
    ``EH@k``/``MRR_e`` are ``None`` when the method is not element-addressable.
    """
    n = len(outcomes)
    gold = [o for o in outcomes if o.has_gold_text]
    out: dict[str, float | int | None] = {"n": n, "n_gold_text": len(gold)}
    for k in ks:
        out[f"PH@{k}"] = _mean([hit_at_k(o.page_rank, k) for o in outcomes])
        out[f"EH@{k}"] = _mean([hit_at_k(o.element_rank, k) for o in gold]) if element_addressable else None
        out[f"EvH@{k}"] = _mean([hit_at_k(o.evidence_rank, k) for o in gold])
    out["MRR_p"] = _mean([reciprocal_rank(o.page_rank, depth) for o in outcomes])
    out["MRR_e"] = _mean([reciprocal_rank(o.element_rank, depth) for o in gold]) if element_addressable else None
    out["MRR_ev"] = _mean([reciprocal_rank(o.evidence_rank, depth) for o in gold])
    out["Ctx"] = _mean([o.ctx_chars for o in outcomes])
    policies: dict[tuple[str, int], list[float]] = {}
    for o in outcomes:
        for pol, per_budget in o.budget_hits.items():
            for b, hit in per_budget.items():
                policies.setdefault((pol, int(b)), []).append(1.0 if hit else 0.0)
    for (pol, b), vals in sorted(policies.items()):
        out[f"budget_{pol}@{b}"] = _mean(vals)
    return out


def summarize_by_type(outcomes: Sequence[QueryOutcome], **kwargs: object) -> dict[str, dict[str, float | int | None]]:
    """:func:`summarize` over all queries (key ``"all"``) and per evidence type (sorted keys)."""
    groups: dict[str, list[QueryOutcome]] = {"all": list(outcomes)}
    for o in outcomes:
        groups.setdefault(o.evidence_type, []).append(o)
    return {name: summarize(group, **kwargs) for name, group in groups.items()}  # type: ignore[arg-type]


def metric_vector(outcomes: Sequence[QueryOutcome], metric: str, depth: int = DEFAULT_DEPTH) -> list[float]:
    """Per-query values of one metric (``"PH@5"``, ``"EH@1"``, ``"EvH@5"``, ``"MRR_p"``, ``"MRR_e"``, ``"MRR_ev"``,
    ``"Ctx"``), in the order of ``outcomes``: the input of the paired tests. Raises ``ValueError``.
    """
    name, _, k = metric.partition("@")
    rank_of = {
        "PH": lambda o: o.page_rank,
        "EH": lambda o: o.element_rank,
        "EvH": lambda o: o.evidence_rank,
        "MRR_p": lambda o: o.page_rank,
        "MRR_e": lambda o: o.element_rank,
        "MRR_ev": lambda o: o.evidence_rank,
    }
    if metric == "Ctx":
        return [float(o.ctx_chars) for o in outcomes]
    if name not in rank_of or (name.startswith("MRR") == bool(k)):
        raise ValueError(f"unknown metric {metric!r}")
    get = rank_of[name]
    if name.startswith("MRR"):
        return [reciprocal_rank(get(o), depth) for o in outcomes]
    kk = int(k)
    return [hit_at_k(get(o), kk) for o in outcomes]


def rank_table(outcomes: Iterable[QueryOutcome]) -> Mapping[str, dict[str, int | None]]:
    """``{qid: {"page": rank, "element": rank, "evidence": rank}}`` for the JSON output."""
    return {o.qid: {"page": o.page_rank, "element": o.element_rank, "evidence": o.evidence_rank} for o in outcomes}
