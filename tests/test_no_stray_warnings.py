"""An ingest and a look at its evidence say nothing on stderr but what they mean to: no pypdfium2
"object was still open and will be closed now" at exit, no tqdm "IProgress not found" in a notebook
kernel without ipywidgets.

The run is a child process (both warnings come at import or at exit, once per process), in the
conditions that made them: a notebook kernel's modules present and ipywidgets absent, and Python's
weakref exit hook registered before pypdfium2's (as any library using ``tempfile`` or
``multiprocessing`` first does), so pypdfium2 looks for open documents before they are collected.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

PDF = Path(__file__).resolve().parent / "fixtures" / "pdf" / "tiny_heading_table.pdf"

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("offline_env")]

SCRIPT = textwrap.dedent(
    """
    import sys, types, weakref

    class _Alive: pass
    _alive = _Alive()
    weakref.finalize(_alive, int)  # weakref's exit hook now runs after pypdfium2's

    class ZMQInteractiveShell: pass  # what a Jupyter kernel's get_ipython() returns
    sys.modules["ipykernel"] = types.ModuleType("ipykernel")
    sys.modules["ipykernel.zmqshell"] = types.ModuleType("ipykernel.zmqshell")
    ipython = types.ModuleType("IPython")
    ipython.get_ipython = ZMQInteractiveShell
    sys.modules["IPython"] = ipython
    sys.modules["ipywidgets"] = None  # not installed

    from structaware_retrievers.pictures.evidence_image import evidence_picture
    from structaware_retrievers.index.structure_index import StructureIndex

    with StructureIndex(sys.argv[2]) as ix:
        summary = ix.ingest([sys.argv[1]], progress=True, overlap=False)
        assert summary.documents == 1 and not summary.failed, summary
        hit = ix.query("table", k=1)[0]
        assert evidence_picture(hit, crop=True).png().startswith(b"\\x89PNG")
    print("done")
    """
)


def test_an_ingest_and_its_evidence_pictures_leave_no_stray_warnings_on_stderr(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(PDF), str(tmp_path / "ix")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0 and run.stdout.strip() == "done", run.stderr[-2000:]
    assert "still open" not in run.stderr, run.stderr[-2000:]
    assert "IProgress" not in run.stderr, run.stderr[-2000:]
