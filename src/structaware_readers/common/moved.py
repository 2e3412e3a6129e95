"""Old module paths, kept importable for one release after the modules moved into rooms.

``import structaware_readers.loader`` still works: a meta path finder answers each old dotted name with
the module at its new path (the same module object, so patching either name patches both) and warns
with a :class:`DeprecationWarning` naming the new path.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from types import ModuleType

_R = "structaware_readers"
_T = "structaware_retrievers"
#: old dotted module name -> its home now
MOVED: dict[str, str] = {
    f"{_R}.loader": f"{_R}.load.loader",
    f"{_R}.ocr.route": f"{_R}.load.pdf_route",
    f"{_R}.inputs": f"{_R}.common.inputs",
    f"{_R}.limits": f"{_R}.common.limits",
    f"{_R}.user_cache": f"{_R}.common.user_cache",
    f"{_R}.telemetry": f"{_R}.common.telemetry",
    f"{_R}.parse_workers": f"{_T}.index.parse_workers",
    f"{_R}.furniture": f"{_R}.structure.furniture",
    f"{_R}.reading_order": f"{_R}.structure.reading_order",
    f"{_R}.continuations": f"{_R}.structure.continuations",
    f"{_R}.references": f"{_R}.structure.references",
    f"{_R}.front_matter": f"{_R}.structure.front_matter",
    f"{_R}.false_headings": f"{_R}.structure.false_headings",
    f"{_R}.headings": f"{_R}.structure.headings",
    f"{_R}.heading_pass": f"{_R}.structure.heading_pass",
    f"{_R}.heading_evidence": f"{_R}.structure.heading_evidence",
    f"{_R}.outline": f"{_R}.structure.outline",
    f"{_R}.boxed_statements": f"{_R}.structure.boxed_statements",
    f"{_R}.text_layer": f"{_R}.text.layer",
    f"{_R}.text_restore": f"{_R}.text.restore",
    f"{_R}.overlapped_lines": f"{_R}.text.overlapped_lines",
    f"{_R}.glyph_marks": f"{_R}.text.glyph_marks",
    f"{_R}.glyphs": f"{_R}.text.glyphs",
    f"{_R}.inline_markup": f"{_R}.text.inline_markup",
    f"{_R}.text_as_read": f"{_R}.text.as_read",
    f"{_R}.abbreviations": f"{_R}.units.abbreviations",
    f"{_R}.filing_cover": f"{_R}.units.filing_cover",
    f"{_T}.sqlite_file": f"{_R}.common.sqlite_file",
    f"{_T}.index_writer": f"{_T}.index.writer",
    f"{_T}.index_paths": f"{_T}.index.paths",
    f"{_T}.ingest_pipeline": f"{_T}.index.ingest",
    f"{_T}.ingest_ledger": f"{_T}.index.ledger",
    f"{_T}.commit": f"{_T}.index.commit",
    f"{_T}.records": f"{_T}.index.records",
    f"{_T}.record_rerank": f"{_T}.index.record_rerank",
    f"{_T}.index_searcher": f"{_T}.search.searcher",
    f"{_T}.evidence": f"{_T}.search.evidence",
    f"{_T}.results": f"{_T}.search.results",
    f"{_T}.rerank": f"{_T}.search.rerank",
    f"{_T}.calibration": f"{_T}.search.calibration",
    f"{_T}.filters": f"{_T}.query.filters",
    f"{_T}.filter_language": f"{_T}.query.filter_language",
    f"{_T}.point_filter": f"{_T}.query.point_filter",
    f"{_T}.filter_keys": f"{_T}.query.filter_keys",
    f"{_T}.filter_vocabulary": f"{_T}.query.filter_vocabulary",
    f"{_T}.fusion": f"{_T}.query.fusion",
    f"{_T}.locking": f"{_T}.store.locking",
    f"{_T}.model_assets": f"{_T}.encoders.model_assets",
    f"{_T}.evidence_image": f"{_T}.pictures.evidence_image",
    f"{_T}.page_render": f"{_T}.pictures.page_render",
    f"{_T}.source_pdf": f"{_T}.pictures.source_pdf",
    f"{_T}.serve_pages": f"{_T}.serve.pages",
    f"{_T}.serve_render": f"{_T}.serve.render",
    f"{_T}.serve_client": f"{_T}.serve.client",
    f"{_T}.mcp_server": f"{_T}.serve.mcp",
    f"{_T}.show_pictures": f"{_T}.cli.show_pictures",
    f"{_T}.terminal_image": f"{_T}.cli.terminal_image",
}


class _Alias(importlib.abc.Loader):
    """Loads an old name as the module at its new path (already imported or imported now)."""

    def __init__(self, old: str, new: str):
        self.old, self.new = old, new

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        warnings.warn(
            f"{self.old} moved to {self.new}; the old path goes in the next release", DeprecationWarning, stacklevel=2
        )
        module = importlib.import_module(self.new)
        self._spec = module.__spec__  # the import system sets __spec__ to the alias's: put the module's own back
        return module

    def exec_module(self, module: ModuleType) -> None:
        module.__spec__ = self._spec


class _MovedFinder(importlib.abc.MetaPathFinder):
    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        new = MOVED.get(fullname)
        if new is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _Alias(fullname, new))


_FINDER = _MovedFinder()


def install() -> None:
    """Put the finder of old paths on :data:`sys.meta_path` (once per process)."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
