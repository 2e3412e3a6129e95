"""The search page of ``structaware serve`` rendered on the server: ``GET /?q=...`` answers with the hits in the HTML.

A reader without scripts gets the same page as the script does: ``web/index.html`` is a
:class:`string.Template` filled here with the form's values, the index's documents and the hits;
``web/app.js`` only swaps in the next search's results without a reload.

URL parameters: ``q`` the question; ``k`` the number of hits (1..:data:`MAX_HITS`, default 5);
``mode``; ``unit`` (and ``with``, the table-group rows) one hit by its unit id, the stable link of a
hit. Every other parameter is a filter, ``KEY=VALUE`` as ``structaware query --filter`` takes it
(``page=3-5`` 1-based pages; ``a,b`` either value; empty values are no filter).

Every text of the user or of a document is HTML-escaped. An error renders the page with the typed
error and the HTTP status of the JSON API (:func:`~structaware_retrievers.serve.pages.error_status`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from html import escape
from importlib import resources
from string import Template
from typing import Any, get_args
from urllib.parse import urlencode

from structaware_readers.common.limits import clean_text
from structaware_readers.errors import MalformedInputError, StructawareError
from structaware_retrievers.query.filter_language import ALIASES
from structaware_retrievers.query.filters import to_point_filter
from structaware_retrievers.search.options import Mode, SearchOptions
from structaware_retrievers.serve.pages import error_status, hit_by_ids, unit_ids

__all__ = ["MAX_HITS", "PAGE_FIELDS", "page_filter", "render_page"]

#: The page's parameters that are no filter.
PAGE_FIELDS = ("q", "k", "mode", "unit", "with")
#: Most hits one page shows (the form's ``k`` field allows as many).
MAX_HITS = 50
_FORM_FILTERS = ("doc", "type", "grade", "page")  # the filters the form has a field for
_WHOLE_VALUES = frozenset({"doc_name", "source", "file_name"})  # names and paths may hold commas
_PAGES = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d*)\s*)?$")
_EMPTY_INDEX = "The index holds no documents yet: ingest some (structaware ingest <files>), then search."


def page_filter(params: dict[str, str]) -> dict[str, Any]:
    """The filter dict (:func:`~structaware_retrievers.query.filters.from_dict`'s spelling) of the page's
    filter parameters (every parameter but :data:`PAGE_FIELDS`), checked by compiling it; ``{}`` for none.

    Raises:
        MalformedInputError: a ``page`` that is not ``N``, ``N-M`` or ``N-`` (``field="page"``).
        UnknownFilterError, UnsupportedFilterError: see :func:`~structaware_retrievers.query.filters.to_point_filter`.
    """
    flt: dict[str, Any] = {}
    for key, value in params.items():
        if key in PAGE_FIELDS or not value.strip():
            continue
        if key == "page":
            m = _PAGES.match(value)
            if m is None:
                raise MalformedInputError(f"expected a 1-based page or range (3, 3-5, 3-), got {value!r}", field="page")
            lo, hi = int(m[1]), m[2]
            flt[key] = lo if hi is None else {"$gte": lo, **({"$lte": int(hi)} if hi else {})}
        elif ALIASES.get(key, key) in _WHOLE_VALUES:
            flt[key] = value.strip()
        else:
            values = [v.strip() for v in value.split(",") if v.strip()]
            if values:  # "," alone: no value, no filter
                flt[key] = values if len(values) > 1 else values[0]
    to_point_filter(flt)
    return flt


def _no_hits(params: dict[str, str]) -> str:
    applied = ", ".join(f"{k}={v.strip()}" for k, v in params.items() if k not in PAGE_FIELDS and v.strip())
    return f"No hits: no unit matches this question{f' under the filters {applied}' if applied else ''}."


def _search_args(params: dict[str, str]) -> SearchOptions:
    """``k`` (default 5) and ``mode`` of the page's parameters as the search's options.

    Raises:
        MalformedInputError: ``k`` not a whole number in 1..:data:`MAX_HITS`, an unknown ``mode``.
    """
    k = params.get("k", "").strip() or "5"
    if not k.isdigit() or not 1 <= int(k) <= MAX_HITS:
        raise MalformedInputError(f"expected a number of hits in 1..{MAX_HITS}, got {k!r}", field="k")
    mode = params.get("mode", "").strip() or "hybrid"
    if mode not in get_args(Mode):
        raise MalformedInputError(f"expected a mode of {list(get_args(Mode))}, got {mode!r}", field="mode")
    return SearchOptions(k=int(k), mode=mode)


def render_page(
    index: Any, params: dict[str, str], *, documents: Callable[[], list[dict[str, Any]]] | None = None
) -> tuple[int, bytes]:
    """``GET /``: ``(HTTP status, UTF-8 HTML)`` of the page for ``params`` (the URL's parameters), with
    its hits or its typed error. The caller holds the index lock (this reads the index and searches it).

    ``documents``: what lists the index's documents for the form (default :meth:`StructureIndex.documents`;
    the server's keeps the list while the index is unchanged)."""
    status, message, error = 200, "", None
    records: list[dict[str, Any]] = []
    docs: list[dict[str, Any]] = []
    units = 0
    try:
        docs, units = (documents or index.documents)(), index.count()
        args, flt = _search_args(params), page_filter(params)
        text = clean_text(params.get("q", "")).strip()
        if params.get("unit"):
            records = [{**hit_by_ids(index, unit_ids(params)).to_record(), "rank": None, "score": None}]
            message = "One hit, by its unit id (a stable link)."
        elif text:
            records = [h.to_record() for h in index.query(text, args.replace(filter=flt or None))]
            message = f"{len(records)} hit{'s' if len(records) != 1 else ''}" if records else _no_hits(params)
        elif not units:
            message = _EMPTY_INDEX
        else:
            index.count(flt or None)  # no question yet: the filters are still checked against the index
    except Exception as exc:  # noqa: BLE001 - every error is shown in the page, the server stays up
        status, records, error = error_status(exc), [], exc
    return status, _fill(params, docs, units, records, message, error).encode("utf-8", errors="replace")


def _fill(
    params: dict[str, str],
    docs: list[dict[str, Any]],
    units: int,
    records: list[dict[str, Any]],
    message: str,
    error: Any,
) -> str:
    """The template with the form's values, the documents, the status line and the hits (``records``:
    :meth:`SearchHit.to_record <structaware_retrievers.search.results.SearchHit.to_record>`, best first)."""
    value = {name: escape(params.get(name, "").strip()) for name in ("q", "grade", "page")}
    if error is not None:
        name = type(error).__name__ if isinstance(error, StructawareError) else "InternalError"
        status = f'<strong class="error-name">{escape(name)}</strong> {escape(str(error))}'
    else:
        status = escape(message)
    hidden = "".join(
        f'<input type="hidden" name="{escape(k)}" value="{escape(v)}">'
        for k, v in params.items()
        if k not in (*PAGE_FIELDS, *_FORM_FILTERS) and v.strip()
    )
    q = params.get("q", "").strip()
    page = _template().substitute(
        title=escape(f"{q} - structaware search" if q else "structaware search"),
        index_info=escape(f"{len(docs)} document{'s' if len(docs) != 1 else ''}, {units} units"),
        doc_options="".join(f'<option value="{escape(d["doc_name"])}">{escape(d["doc_name"])}</option>' for d in docs),
        hidden_filters=hidden,
        k=escape(params.get("k", "").strip() or "5"),
        status_class="error" if error is not None else "",
        status=status,
        results="\n".join(_hit_html(record, i) for i, record in enumerate(records)),
        **value,
    )
    for name in ("doc", "type", "mode"):
        page = _choose(page, name, params.get(name, "").strip())
    return page


def _template() -> Template:
    return Template(resources.files("structaware_retrievers.web").joinpath("index.html").read_text(encoding="utf-8"))


def _choose(page: str, name: str, value: str) -> str:
    """``page`` with ``value`` selected in its ``<select name=name>`` (added to the list when the list
    lacks it: a document or unit types named in the URL keep their filter on the next search)."""
    if not value:
        return page
    start = page.index(f'<select id="{name}" name="{name}">')
    end = page.index("</select>", start)
    block, option = page[start:end], f'<option value="{escape(value)}">'
    if option in block:
        block = block.replace(option, option[:-1] + " selected>", 1)
    else:
        block += f'<option value="{escape(value)}" selected>{escape(value)}</option>'
    return page[:start] + block + page[end:]


def _grade_text(grade: dict[str, Any] | None) -> str:
    if not grade or not (grade.get("grade") or grade.get("strength")):
        return ""
    against = "against" if grade.get("direction") == "against" else ""
    return " ".join(p for p in ("Grade", grade.get("grade"), grade.get("strength"), against) if p)


def _link(route: str, record: dict[str, Any], **extra: Any) -> str:
    params = {"unit": record["unit_id"], **extra}
    if record["group_unit_ids"]:
        params["with"] = ",".join(record["group_unit_ids"])
    return escape(f"{route}?{urlencode(params)}")


def _hit_html(record: dict[str, Any], index: int) -> str:
    """One hit as the page shows it (``record``: :meth:`SearchHit.to_record`): its rank, unit type,
    grade, document and 1-based pages as a link to the hit alone; its context and text (a table group's
    rows one per line); its elements and score; beside it, each page's picture with the unit outlined
    (``data-bboxes``: the regions on that page, 0..1 of the page, origin top-left)."""
    grade = _grade_text(record["grade"])
    lines = record["text"].split("\n") if record["unit_type"] == "table_row" else [record["text"]]
    row = ' class="row"' if len(lines) > 1 else ""
    rank = f"{record['rank']}. " if record["rank"] else ""
    badge = ""
    if grade:
        system = escape(str(record["grade"].get("system") or ""))
        badge = f'<span class="badge grade" title="evidence grade ({system})">{escape(grade)}</span>'
    where = "elements " + " + ".join(dict.fromkeys(record["element_ids"]))
    if record["rank"] and isinstance(record["score"], (int, float)):
        where += f" · score {record['score']:.4f}"
    about = (
        f'<h2><a href="{_link("/", record)}" class="hit-link">{rank}<span class="badge type">{escape(record["unit_type"])}</span>'
        f'{badge}{escape(record["doc"])} p. {", ".join(map(str, record["pages"]))}</a></h2>'
        + (f'<p class="context">{escape(record["context"])}</p>' if record["context"] else "")
        + '<div class="text">' + "".join(f"<span{row}>{escape(line)}</span>" for line in lines) + "</div>"
        + f'<p class="where">{escape(where)}</p>'
    )  # fmt: skip
    figures = []
    for page in record["pages"]:
        boxes = [b for b, p in zip(record["bboxes"], record["element_pages"]) if b and p == page]
        alt = f"Page {page} of {record['doc']} with the {record['unit_type'].replace('_', ' ')} outlined"
        url = _link("/image", record, page=page)
        figures.append(
            f'<figure><a href="{url}" target="_blank" title="open the page image"><img src="{url}" alt="{escape(alt)}"'
            f' loading="lazy" data-page="{page}" data-bboxes="{escape(json.dumps(boxes))}"></a>'
            f"<figcaption>p. {page}</figcaption></figure>"
        )
    return (
        f'<li class="hit" data-unit-id="{escape(record["unit_id"])}" data-index="{index}">'
        f'<div class="about">{about}</div><div class="pages">{"".join(figures)}</div></li>'
    )
