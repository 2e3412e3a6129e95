"""Reading-order metrics: ROA (reading-order accuracy over adjacent gold pairs) and Kendall tau."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from scipy.stats import kendalltau

__all__ = ["kendall_tau", "roa"]


def _positions(ids: Sequence[Hashable], name: str) -> dict[Hashable, int]:
    pos: dict[Hashable, int] = {}
    for i, x in enumerate(ids):
        if x in pos:
            raise ValueError(f"{name}: duplicate id {x!r} at positions {pos[x]} and {i}")
        pos[x] = i
    return pos


def roa(gold_ids: Sequence[Hashable], pred_ids: Sequence[Hashable]) -> float:
    """Reading-order accuracy: share of adjacent gold pairs kept in order by the prediction. Raises ``ValueError``."""
    if len(gold_ids) < 2:
        raise ValueError(f"gold_ids: ROA needs at least two blocks, got {len(gold_ids)}")
    _positions(gold_ids, "gold_ids")
    pred = _positions(pred_ids, "pred_ids")
    kept = 0
    for a, b in zip(gold_ids, gold_ids[1:]):
        if a in pred and b in pred and pred[a] < pred[b]:
            kept += 1
    return kept / (len(gold_ids) - 1)


def kendall_tau(gold_ids: Sequence[Hashable], pred_ids: Sequence[Hashable]) -> float:
    """Kendall's tau between the gold and the predicted rank of every block present in both. Raises ``ValueError``."""
    gold = _positions(gold_ids, "gold_ids")
    pred = _positions(pred_ids, "pred_ids")
    common = [x for x in gold_ids if x in pred]
    if len(common) < 2:
        raise ValueError(f"kendall_tau needs at least two shared ids, got {len(common)}")
    result = kendalltau([gold[x] for x in common], [pred[x] for x in common])
    return float(result.statistic)
