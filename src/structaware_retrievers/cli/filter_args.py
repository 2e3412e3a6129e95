"""``structaware query --filter KEY=VALUE...``: several KEY=VALUE words after one ``--filter``
(:func:`expand_filter_values`, :class:`FilterCommand`) and the words turned into one filter dict
of the filter language (:mod:`structaware_retrievers.query.filters`), checked (:func:`parse_filters`)."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

import typer
from typer.core import TyperCommand

from structaware_readers.errors import StructawareError

if TYPE_CHECKING:  # typer carries its own click; importing the click distribution costs time
    import click

__all__ = ["FILTER_KEYS", "FilterCommand", "expand_filter_values", "parse_filters"]

#: ``--filter`` keys; after one ``--filter``, further KEY=VALUE words with these keys are filters too.
FILTER_KEYS = (
    "doc", "doc_id", "page", "type", "unit_type", "grade",
    "doc_name", "file_name", "source", "unit_id", "table_id", "row_index", "flowchart_id", "ordinal",
)  # fmt: skip
_FILTER_WORD = re.compile(rf"^(?:{'|'.join(FILTER_KEYS)})=")


def expand_filter_values(args: list[str]) -> list[str]:
    """``--filter type=a grade=A`` -> ``--filter type=a --filter grade=A``: the KEY=VALUE words
    (known keys only) that follow a ``--filter`` value belong to it, until another word or ``--``."""
    out: list[str] = []
    in_filter = False
    it = iter(args)
    for arg in it:
        if arg == "--":
            out.append(arg)
            out.extend(it)
            break
        if in_filter and _FILTER_WORD.match(arg):
            out += ["--filter", arg]
            continue
        out.append(arg)
        in_filter = False
        if arg == "--filter":
            value = next(it, None)
            if value is not None:
                out.append(value)
                in_filter = True
        elif arg.startswith("--filter="):
            in_filter = True
    return out


class FilterCommand(TyperCommand):
    """A command whose ``--filter`` takes several KEY=VALUE words (see :func:`expand_filter_values`)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, expand_filter_values(list(args)))


def parse_filters(items: list[str]) -> dict[str, Any]:
    """``--filter`` words -> one filter dict of :mod:`structaware_retrievers.query.filters` (what the
    LangChain faces and ``structaware serve`` take), checked by compiling it (usage errors as
    ``typer.BadParameter``); ``{}`` for no filter.

    ``KEY=VALUE`` with a key of ``FILTER_KEYS`` (``a,b``: either; ``page=3-5``: a 1-based range), or
    a JSON object in the dict spelling (``{"page": {"$gte": 4}}``, ``{"$or": [...]}``); all combine
    with AND.
    """
    parts: list[dict[str, Any]] = []
    words: dict[str, list[str]] = {}
    for item in items:
        if item.lstrip().startswith("{"):
            try:
                value = json.loads(item)
            except ValueError as exc:
                raise typer.BadParameter(f"--filter {item!r}: not a JSON object ({exc})") from None
            if not isinstance(value, dict):
                raise typer.BadParameter(f"--filter {item!r}: expected a JSON object")
            parts.append(value)
            continue
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not value:
            raise typer.BadParameter(
                f"--filter {item!r}: expected KEY=VALUE ({', '.join(FILTER_KEYS[:6])}, ...) or a JSON object"
            )
        if key not in FILTER_KEYS:
            raise typer.BadParameter(
                f"--filter {key}: unknown key; use {', '.join(FILTER_KEYS)} (or a JSON object for other keys)"
            )
        words.setdefault(key, []).extend(v.strip() for v in value.split(","))
    for key, values in words.items():
        if key == "page" and len(values) == 1 and "-" in values[0]:
            lo, _, hi = values[0].partition("-")
            parts.append({"page": {"$gte": lo.strip(), "$lte": hi.strip()}})
        else:
            parts.append({key: values if len(values) > 1 else values[0]})
    if not parts:
        return {}
    flt = parts[0] if len(parts) == 1 else {"$and": parts}
    from structaware_retrievers.query.filters import to_point_filter

    try:
        to_point_filter(flt)
    except (StructawareError, ValueError) as exc:
        raise typer.BadParameter(f"--filter: {exc}") from None
    return flt
