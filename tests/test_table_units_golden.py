"""The table units of the CDC fixture and both synthetic guidelines are those of before issue 9.

``fixtures/golden/table_units_before.json`` was written by ``fixtures/golden/make_table_units.py`` on
main's code before the table-shape rules of issue 9 (commit 32e82fe): every table_row and
recommendation unit (text, context, pages, element ids, headers, cells) of two renderings of each
document. The one intended change: a row's pairs are joined with ``"; "`` instead of ``", "``
(``Population: Adults 18-20 y; Clinic target: <140/90 mmHg``), as the issue's cases write them, so a
value holding a comma (``75 mg/m² d1, d8``) is no longer ambiguous. Issue 11 made a second one: a
recommendation's text ends at its grade label; text after it that is neither a note nor a
recommendation (the synthetic guidelines' filler paragraph merged by MinerU) goes to the section.
Issue 10 made a third: heading levels come from numbering in context, so a section context may
lose ancestors (``REFERENCES`` is top level); the unit's own heading stays. Issue 9 (third session)
made a fourth: a table without a caption takes the title line or lead-in sentence just before it as
its title (``Table`` -> ``Table: V.a. Hand Hygiene``). Everything else must be equal.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

GOLDEN = Path(__file__).parent / "fixtures" / "golden"


def _load_maker():
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_table_units", GOLDEN / "make_table_units.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _old_separator(unit: dict) -> dict:
    """The unit as the old builder wrote it: pairs ``h1: v1; h2: v2`` joined with ``", "``."""
    if unit["type"] != "table_row" or not unit["headers"]:
        return unit
    pairs = [f"{h}: {c.strip()}" for h, c in zip(unit["headers"], unit["cells"]) if c.strip()]
    assert unit["text"] == "; ".join(pairs), "a fixture row whose text is not its plain header: value pairs"
    return {**unit, "text": ", ".join(pairs)}


BEFORE = json.loads((GOLDEN / "table_units_before.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def now() -> dict[str, list[dict]]:
    return _load_maker().snapshot()


@pytest.mark.parametrize("key", sorted(BEFORE))
def test_table_units_are_unchanged_but_for_the_pair_separator(now, key):
    before, after = BEFORE[key], now[key]
    assert len(after) == len(before)
    assert sum(u["type"] == "table_row" for u in after) == sum(u["type"] == "table_row" for u in before)
    for old, new in zip(before, after, strict=True):
        if new["type"] == "recommendation" and " | Grade (" in new["context"]:
            # the grade marks moved from the statement's text to one part of its context
            new = {**new, "context": new["context"].split(" | Grade (")[0]}
        old_head, _, _ = old["context"].partition(" | ")
        new_head, _, new_rest = new["context"].partition(" | ")
        if new["type"] == "table_row" and old_head == "Table" and new_head != old_head:
            # issue 9, third session: the table's title from the line just before it
            assert new_head.startswith("Table: ") and not new_head.startswith("Table: Note")
            new = {**new, "context": f"{old_head} | {new_rest}" if new_rest else old_head}
        if new["context"] != old["context"] and "Section: " in new["context"]:
            # issue 10: heading levels from numbering in context; a back-matter heading such as
            # REFERENCES is top level, no longer nested under the numbered heading before it
            new_head, new_path = new["context"].split("Section: ", 1)
            old_head, old_path = old["context"].split("Section: ", 1)
            assert new_head == old_head and new_path.split(" > ")[-1] == old_path.split(" > ")[-1]
            new = {**new, "context": old["context"]}
        if new["type"] == "recommendation" and new["text"] != old["text"]:
            assert old["text"].startswith(new["text"])
            new = {**new, "text": old["text"]}
        assert _old_separator(new) == old
