"""The second stage over a framework's candidates: LlamaIndex nodes and LangChain documents that name units of an
index, re-ordered by ``StructureIndex.rerank`` (:mod:`structaware_retrievers.search.rerank`).
"""

from __future__ import annotations

from collections.abc import Sequence

from structaware_readers.errors import MalformedInputError
from structaware_retrievers.index.records import RecordIndex, point_id
from structaware_retrievers.index.structure_index import StructureIndex
from structaware_retrievers.search.rerank import RerankLike

__all__ = ["rerank_candidates"]


def rerank_candidates(
    index: StructureIndex,
    text: str,
    candidates: Sequence[Sequence[str | None]],
    rerank: RerankLike = True,
    *,
    field: str = "candidate",
) -> list[tuple[int, float]]:
    """``(position in candidates, stage score)``, best first; the score is in [0, 1], relative to the best candidate
    (an order, not a threshold). Candidates naming one unit share its score and keep their given order. Raises
    ``MalformedInputError``, ``IndexNotFoundError``.
    """
    if not candidates:
        return []
    index.searcher.require_index()
    tried = [[point_id(str(i)) for i in ids if i] for ids in candidates]
    found = {r.id for r in RecordIndex(index).get(list(dict.fromkeys(p for ps in tried for p in ps)))}
    points: list[str] = []
    for n, (ids, ps) in enumerate(zip(candidates, tried, strict=True)):
        point = next((p for p in ps if p in found), None)
        if point is None:
            given = [str(i) for i in ids if i]
            raise MalformedInputError(
                f"{given[0]!r} (candidate {n + 1}) is not a unit of this index; rerank candidates found in it"
                if given
                else f"candidate {n + 1} carries no id (no id and no metadata unit_id)",
                field=field,
            )
        points.append(point)
    at: dict[str, list[int]] = {}
    for n, p in enumerate(points):
        at.setdefault(p, []).append(n)
    return [(n, score) for p, score in index.rerank(text, points, rerank) for n in at[p]]
