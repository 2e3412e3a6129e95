"""The ``structaware`` command line: units, ingest, query, show, serve, mcp, documents, delete, eval.

Every error the package raises on purpose (:class:`structaware_readers.errors.StructawareError`)
is printed as one line ``error: <file>: <field>: <what is wrong>`` on stderr.

Exit codes, the same for every command:

* ``0``: done (``query`` with no hit under a filter is done too: it says so on stderr);
* ``1``: ``ingest`` only: some inputs failed (each named on stderr), the others are in the index
  (ingested now, or unchanged since an earlier ingest);
* ``2``: nothing done: a usage error (bad option or value), an input that cannot be read (for
  ``ingest``: every input failed, or no input was found), an index that is missing or empty
  (``query``, ``documents``), an unknown document id (``delete``).

The package, one module per job: :mod:`.app` (the typer app, shared options, opening an index,
failing), one module per command (:mod:`.units`, :mod:`.ingest`, :mod:`.query` with
:mod:`.filter_args`, :mod:`.show`, :mod:`.serving` for ``serve`` and ``mcp``, :mod:`.index_admin` for
``documents`` and ``delete``, :mod:`.evaluate` for ``eval``), each registering on the app when
imported here, in the order ``structaware --help`` lists them, and the one-query fast path
(:mod:`.fast_path`: server detection, the forked model child, the quick exit) used by the console
entry point :func:`~.main.main`.
"""

# the commands register on the app as they are imported, in the order --help lists them
from structaware_retrievers.cli import units  # noqa: F401, I001 - registers its command; --help order, not sorted
from structaware_retrievers.cli import ingest  # noqa: F401 - registers its command
from structaware_retrievers.cli import query  # noqa: F401 - registers its command
from structaware_retrievers.cli import show  # noqa: F401 - registers its command
from structaware_retrievers.cli import serving  # noqa: F401 - registers its command
from structaware_retrievers.cli import index_admin  # noqa: F401 - registers its commands
from structaware_retrievers.cli import evaluate  # noqa: F401 - registers its command
from structaware_retrievers.cli.app import app
from structaware_retrievers.cli.filter_args import expand_filter_values
from structaware_retrievers.cli.main import main

__all__ = ["app", "expand_filter_values", "main"]
