"""``python -m structaware_retrievers.cli``: the ``structaware`` command."""

from structaware_retrievers.cli.main import main

if __name__ == "__main__":  # pragma: no cover
    main()
