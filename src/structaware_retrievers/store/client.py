"""``ClientStore``: a collection reached through ``qdrant-client``."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

from qdrant_client import AsyncQdrantClient, QdrantClient
from qdrant_client import models as m

from structaware_readers.errors import StoreError
from structaware_retrievers.encoders import SparseVector
from structaware_retrievers.query.filters import HasId, IsEmpty, Match, PointFilter, Range
from structaware_retrievers.store.base import (
    DENSE,
    HNSW_FILTER_FIELDS,
    PAYLOAD_INDEXES,
    SPARSE,
    PointRecord,
    QueryPlan,
    ScoredRecord,
    VectorStore,
)
from structaware_retrievers.store.common import (
    check_dim,
    checked_batches,
    is_hidden,
    require_filter,
    to_point_record,
    to_scored_record,
    translate_filter,
)

__all__ = ["ClientStore", "to_client_filter"]

_UPSERT_BATCH = 256


def _condition(c: Match | Range | IsEmpty | HasId) -> Any:
    if isinstance(c, Match):
        if len(c.values) == 1:
            return m.FieldCondition(key=c.key, match=m.MatchValue(value=c.values[0]))
        return m.FieldCondition(key=c.key, match=m.MatchAny(any=list(c.values)))
    if isinstance(c, Range):
        return m.FieldCondition(key=c.key, range=m.Range(gte=c.gte, lte=c.lte, gt=c.gt, lt=c.lt))
    if isinstance(c, IsEmpty):
        return m.IsEmptyCondition(is_empty=m.PayloadField(key=c.key))
    return m.HasIdCondition(has_id=list(c.ids))


def to_client_filter(flt: PointFilter | None) -> m.Filter | None:
    """Translate a :class:`PointFilter` to ``qdrant_client.models.Filter`` (``None`` for no filter)."""
    return translate_filter(flt, _condition, m.Filter)


def _sparse(v: SparseVector) -> m.SparseVector:
    return m.SparseVector(indices=list(v.indices), values=list(v.values))


def _vector(v: list[float] | SparseVector) -> Any:
    return _sparse(v) if isinstance(v, SparseVector) else v


def field_index_params(name: str, kind: str) -> m.KeywordIndexParams | m.IntegerIndexParams:
    """The payload index of field ``name`` (``kind`` ``"keyword"``, else integer: exact and range
    matches), with HNSW sub-graphs only for :data:`HNSW_FILTER_FIELDS`."""
    hnsw = name in HNSW_FILTER_FIELDS
    if kind == "keyword":
        return m.KeywordIndexParams(type=m.KeywordIndexType.KEYWORD, enable_hnsw=hnsw)
    return m.IntegerIndexParams(type=m.IntegerIndexType.INTEGER, lookup=True, range=True, enable_hnsw=hnsw)


class ClientStore(VectorStore):
    """One Qdrant collection through ``qdrant-client``: give exactly one of ``client`` (not closed by :meth:`close`),
    ``url`` (with ``api_key``) or ``location`` (``":memory:"`` ...); ``timeout`` in seconds. Raises ``StoreError``
    (none or several given; the server refuses an operation).
    """

    def __init__(
        self,
        collection: str,
        *,
        client: QdrantClient | None = None,
        url: str | None = None,
        api_key: str | None = None,
        location: str | None = None,
        timeout: int | None = None,
    ):
        given = [x is not None for x in (client, url, location)]
        if sum(given) != 1:
            raise StoreError("give exactly one of client=, url= or location=", field="ClientStore")
        self.collection = collection
        self._url, self._api_key, self._timeout = url, api_key, timeout
        self._owns_client = client is None
        if client is not None:
            self.client = client
        elif url is not None:
            self.client = QdrantClient(url=url, api_key=api_key, timeout=timeout)
        else:
            self.client = QdrantClient(location=location)
        self._aclient: AsyncQdrantClient | None = None
        where = url or location or getattr(getattr(client, "_client", None), "location", None) or "client"
        self.location = f"{where}#{collection}"
        self._dim: int | None = None
        self._indexes_checked = False  # ensure_payload_indexes() ran

    @property
    def _is_local(self) -> bool:
        return type(getattr(self.client, "_client", None)).__name__ == "QdrantLocal"

    def _run(self, what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except StoreError:
            raise
        except Exception as exc:  # qdrant-client raises ValueError (local), UnexpectedResponse, grpc errors
            raise StoreError(f"{what} failed: {exc}", path=self.location) from exc

    # -- collection ----------------------------------------------------------------------------
    def exists(self) -> bool:
        return bool(self._run("collection_exists", self.client.collection_exists, self.collection))

    def create(self, dim: int, metadata: dict[str, Any]) -> None:
        check_dim(dim, self.location)
        if self.exists():
            raise StoreError("the collection already exists", path=self.location)
        self._run(
            "create_collection",
            self.client.create_collection,
            self.collection,
            vectors_config={DENSE: m.VectorParams(size=dim, distance=m.Distance.COSINE)},
            sparse_vectors_config={SPARSE: m.SparseVectorParams(modifier=m.Modifier.IDF)},
            metadata=metadata,
        )
        try:
            if metadata and not self.metadata():
                raise StoreError(
                    "the server did not keep the collection metadata (the index config); use a Qdrant version"
                    " that supports collection metadata",
                    path=self.location,
                    field="metadata",
                )
            self._create_indexes(PAYLOAD_INDEXES)
            self._indexes_checked = True
        except StoreError:
            with contextlib.suppress(Exception):  # leave no half-made collection behind
                self.client.delete_collection(self.collection)
            raise
        self._dim = dim

    def _create_indexes(self, wanted: dict[str, str]) -> None:
        with warnings.catch_warnings():
            if self._is_local:
                warnings.filterwarnings("ignore", message="Payload indexes have no effect")
            for name, kind in wanted.items():
                schema = field_index_params(name, kind)
                self._run(
                    "create_payload_index", self.client.create_payload_index, self.collection, name, schema, wait=True
                )

    def ensure_payload_indexes(self) -> list[str]:
        if self._indexes_checked or self._is_local:  # local mode keeps no payload indexes
            return []
        have = set(self._info().payload_schema or {})
        missing = {k: v for k, v in PAYLOAD_INDEXES.items() if k not in have}
        self._create_indexes(missing)
        self._indexes_checked = True
        return sorted(missing)

    def _info(self) -> Any:
        if not self.exists():
            raise StoreError("the collection does not exist (nothing was ingested)", path=self.location)
        return self._run("get_collection", self.client.get_collection, self.collection)

    def dense_dim(self) -> int:
        if self._dim is None:
            vectors = self._info().config.params.vectors
            if not isinstance(vectors, dict) or DENSE not in vectors:
                raise StoreError(
                    f"the collection has no named vector {DENSE!r}; it was not created by structaware",
                    path=self.location,
                    field=DENSE,
                )
            self._dim = int(vectors[DENSE].size)
        return self._dim

    def metadata(self) -> dict[str, Any]:
        return dict(getattr(self._info().config, "metadata", None) or {})

    # -- writes --------------------------------------------------------------------------------
    def upsert(self, points: Sequence[PointRecord]) -> None:
        for chunk in checked_batches(points, self.dense_dim(), self.location, _UPSERT_BATCH):
            batch = [
                m.PointStruct(id=p.id, vector={DENSE: list(p.dense), SPARSE: _sparse(p.sparse)}, payload=p.payload)  # type: ignore[arg-type]
                for p in chunk
            ]
            self._run("upsert", self.client.upsert, self.collection, batch, wait=True)

    def delete_ids(self, ids: Sequence[str]) -> None:
        if ids:
            self._run(
                "delete",
                self.client.delete,
                self.collection,
                points_selector=m.PointIdsList(points=list(ids)),
                wait=True,
            )

    def set_payload(self, ids: Sequence[str], payload: dict[str, Any]) -> None:
        if ids:
            self._run("set payload", self.client.set_payload, self.collection, payload, list(ids), wait=True)

    def delete_payload(self, ids: Sequence[str], keys: Sequence[str]) -> None:
        if ids:
            self._run("delete payload", self.client.delete_payload, self.collection, list(keys), list(ids), wait=True)

    def delete(self, flt: PointFilter) -> int:
        require_filter(flt, self.location)
        n = self.count(flt)
        if n:
            selector = m.FilterSelector(filter=to_client_filter(flt))
            self._run("delete", self.client.delete, self.collection, points_selector=selector, wait=True)
        return n

    # -- reads ---------------------------------------------------------------------------------
    def count(self, flt: PointFilter | None = None) -> int:
        res = self._run("count", self.client.count, self.collection, count_filter=to_client_filter(flt), exact=True)
        return int(res.count)

    def scroll(
        self,
        flt: PointFilter | None = None,
        *,
        fields: Sequence[str] | None = None,
        with_vectors: bool = False,
        batch: int = 1000,
    ) -> Iterator[PointRecord]:
        payload: Any = list(fields) if fields is not None else True
        offset = None
        while True:
            records, offset = self._run(
                "scroll",
                self.client.scroll,
                self.collection,
                scroll_filter=to_client_filter(flt),
                limit=batch,
                offset=offset,
                with_payload=payload,
                with_vectors=with_vectors,
            )
            for r in records:
                yield to_point_record(r, with_vectors)
            if offset is None or not records:
                return

    def retrieve(
        self, ids: Sequence[str], *, with_vectors: bool = False, include_hidden: bool = False
    ) -> list[PointRecord]:
        if not ids:
            return []
        recs = self._run(
            "retrieve", self.client.retrieve, self.collection, list(ids), with_payload=True, with_vectors=with_vectors
        )
        out = [to_point_record(r, with_vectors) for r in recs]
        return out if include_hidden else [r for r in out if not is_hidden(r.payload)]

    def _query_kwargs(self, plan: QueryPlan) -> dict[str, Any]:
        """``query_points`` keyword arguments for ``plan``."""
        qf = to_client_filter(plan.flt)
        base: dict[str, Any] = {
            "collection_name": self.collection,
            "limit": plan.limit,
            "query_filter": qf,
            "with_payload": True,
        }
        if plan.mmr_lambda is not None:  # Qdrant's MMR: diversity = 1 - lambda
            ((using, vector, _),) = plan.searches
            mmr = m.Mmr(diversity=1.0 - plan.mmr_lambda, candidates_limit=plan.depth)
            return {**base, "query": m.NearestQuery(nearest=_vector(vector), mmr=mmr), "using": using}
        if plan.fusion is None:
            ((using, vector, _),) = plan.searches
            return {**base, "query": _vector(vector), "using": using}
        prefetch = [m.Prefetch(query=_vector(v), using=u, limit=plan.depth, filter=qf) for u, v, _ in plan.searches]
        prefetch += [
            m.Prefetch(query=_vector(v), using=u, limit=plan.depth, filter=to_client_filter(f & plan.flt))
            for u, v, _, f in plan.focus
        ]
        weights = [w for _, _, w in plan.searches] + [w for _, _, w, _ in plan.focus]
        fused: Any = (
            m.RrfQuery(rrf=m.Rrf(k=plan.rrf_k, weights=weights))
            if plan.fusion == "rrf"
            else m.FusionQuery(fusion=m.Fusion.DBSF)
        )
        return {**base, "prefetch": prefetch, "query": fused}

    def _search(self, plan: QueryPlan) -> list[ScoredRecord]:
        res = self._run("query_points", self.client.query_points, **self._query_kwargs(plan))
        return [to_scored_record(p) for p in res.points]

    async def _asearch(self, plan: QueryPlan) -> list[ScoredRecord]:
        """The search over ``AsyncQdrantClient`` for a server (``url=``); otherwise in a worker thread."""
        if self._url is None:
            return await super()._asearch(plan)
        if self._aclient is None:
            self._aclient = AsyncQdrantClient(url=self._url, api_key=self._api_key, timeout=self._timeout)
        try:
            res = await self._aclient.query_points(**self._query_kwargs(plan))
        except Exception as exc:
            raise StoreError(f"query_points failed: {exc}", path=self.location) from exc
        return [to_scored_record(p) for p in res.points]

    def close(self) -> None:
        """Close the client if this store opened it (an injected client is left open)."""
        if self._owns_client:
            with contextlib.suppress(Exception):  # closing twice or a dead connection is not an error here
                self.client.close()
        self._aclient = None  # an AsyncQdrantClient closes with its event loop

    def __repr__(self) -> str:
        return f"ClientStore({self.location!r})"
