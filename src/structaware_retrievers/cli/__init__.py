"""The ``structaware`` command line: units, ingest, query, show, serve, mcp, documents, delete, eval.

Every :class:`structaware_readers.errors.StructawareError` is printed as one line
``error: <file>: <field>: <what is wrong>`` on stderr. Exit codes: ``0`` done (a query without hits
too); ``1`` (``ingest`` only) some inputs failed, the others are indexed; ``2`` nothing done (usage
error, unreadable input, missing or empty index, unknown document id).

Modules: :mod:`.app` (the app, shared options, opening an index), one module per command
(registered here in ``--help`` order), :mod:`.fast_path` (the one-query path) and :mod:`.main` (the
console entry point).
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
