"""An index built with another dense model: each face says the fix in its own users' terms (issue 27).

The index is built through the LlamaIndex vector store with a user's model (``acme/embed-v1``); the
retrievers' ``from_path`` and the CLI open it with structaware's default model and must refuse it,
naming the model that built it and what *their* users pass: ``from_path(path, model_name=...)`` for
the retrievers, ``STRUCTAWARE_DENSE_MODEL`` for the CLI; never structaware's ``DenseEncoder``, a
class those users never see (the engine's own message, the trap, does name it).
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("llama_index.core")
pytest.importorskip("langchain_core")

from llama_index.core.embeddings import MockEmbedding
from llama_index.core.schema import TextNode

from structaware_readers.errors import ModelMismatchError

pytestmark = pytest.mark.integration  # an index folder on the embedded engine, opened with the default model


@pytest.fixture(scope="module")
def other_model_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from llama_index.vector_stores.structaware import StructureAwareVectorStore

    path = tmp_path_factory.mktemp("other-model") / "index"
    store = StructureAwareVectorStore(path, embed_model=MockEmbedding(embed_dim=4), model_id="acme/embed-v1")
    store.add(
        [TextNode(id_=f"n{i}", text=t, embedding=[1.0, float(i), 0.0, 1.0]) for i, t in enumerate(["a b", "c d"])]
    )
    store.close()
    return path


def test_the_engine_names_its_own_fix(other_model_index: Path) -> None:
    from structaware_retrievers.index.structure_index import StructureIndex

    with pytest.raises(ModelMismatchError) as err:
        StructureIndex(other_model_index)
    assert err.value.stored_model and "DenseEncoder(model_name=" in err.value.message  # the trap: Python users' terms


@pytest.mark.parametrize("face", ["llama_index", "langchain"])
def test_the_retrievers_name_from_path_and_the_model(other_model_index: Path, face: str) -> None:
    if face == "llama_index":
        from llama_index.retrievers.structaware import StructureAwareRetriever
    else:
        from langchain_structaware.retriever import StructureAwareRetriever
    with pytest.raises(ModelMismatchError) as err:
        StructureAwareRetriever.from_path(other_model_index)
    message = err.value.message
    assert err.value.field == "dense.model_id" and str(other_model_index) in str(err.value)
    assert f"from_path(path, model_name={err.value.stored_model!r})" in message
    assert "DenseEncoder" not in message


def test_the_cli_names_the_environment_variable(other_model_index: Path) -> None:
    from typer.testing import CliRunner

    from structaware_retrievers.cli import app

    res = CliRunner().invoke(app, ["query", "a b", "--index", str(other_model_index), "--no-server"])
    assert res.exit_code == 2, res.output
    assert "STRUCTAWARE_DENSE_MODEL=" in res.output and "DenseEncoder" not in res.output
