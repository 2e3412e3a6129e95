"""Where an index folder is when none is given: ``$STRUCTAWARE_INDEX``, else ``./.structaware/index``.

Its own module (standard library only) so ``structaware query`` can find a running server of the
folder (:mod:`structaware_retrievers.serve.client`) before importing the index and its engines.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["DEFAULT_INDEX_PATH", "ENV_INDEX", "default_index_path"]

#: Default index folder (relative to the working directory).
DEFAULT_INDEX_PATH = Path(".structaware") / "index"
#: Environment variable overriding the default index folder.
ENV_INDEX = "STRUCTAWARE_INDEX"


def default_index_path() -> Path:
    """``$STRUCTAWARE_INDEX`` (``~`` expanded) if set, else :data:`DEFAULT_INDEX_PATH`."""
    env = os.environ.get(ENV_INDEX)
    return Path(env).expanduser() if env else DEFAULT_INDEX_PATH
