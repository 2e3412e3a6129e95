"""``structaware query --filter KEY=VALUE...``: several KEY=VALUE words after one ``--filter``
(:func:`expand_filter_values`, :class:`FilterCommand`) and the words checked as a
:class:`~structaware_retrievers.filters.SearchFilter` (:func:`parse_filters`)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import typer
from typer.core import TyperCommand

from structaware_readers.errors import StructawareError

if TYPE_CHECKING:  # typer carries its own click; importing the click distribution costs ~25 ms
    import click

__all__ = ["FILTER_KEYS", "FilterCommand", "expand_filter_values", "parse_filters"]

#: ``--filter`` keys; after one ``--filter``, further KEY=VALUE words with these keys are filters too.
FILTER_KEYS = ("doc", "doc_id", "page", "type", "unit_type", "grade")
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
    """``--filter`` words -> :class:`~structaware_retrievers.filters.SearchFilter` fields, checked
    by building one (usage errors as ``typer.BadParameter``); ``{}`` for no filter."""
    fields: dict[str, list[str]] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not value:
            raise typer.BadParameter(f"--filter {item!r}: expected KEY=VALUE (doc, doc_id, page, type, grade)")
        fields.setdefault(key.strip(), []).extend(v.strip() for v in value.split(","))
    kwargs: dict = {}
    for key, values in fields.items():
        if key == "doc":
            kwargs["doc_names"] = values
        elif key == "doc_id":
            kwargs["doc_ids"] = values
        elif key in ("type", "unit_type"):
            kwargs["unit_types"] = values
        elif key == "grade":
            kwargs["grades"] = values
        elif key == "page":
            lo, _, hi = values[0].partition("-")
            try:
                kwargs["page_from"] = int(lo)
                kwargs["page_to"] = int(hi or lo)
            except ValueError:
                raise typer.BadParameter(f"--filter page={values[0]}: expected N or N-M (1-based pages)") from None
        else:
            raise typer.BadParameter(f"--filter {key}: unknown key; use doc, doc_id, page, type or grade")
    if not kwargs:
        return {}
    from structaware_retrievers.filters import SearchFilter

    try:
        SearchFilter(**kwargs)
    except (StructawareError, ValueError) as exc:
        raise typer.BadParameter(f"--filter: {exc}") from None
    return kwargs
