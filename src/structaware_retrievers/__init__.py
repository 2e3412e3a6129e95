"""structaware_retrievers: encoders, Qdrant stores, native hybrid search and evaluation."""

from structaware_readers.common import moved

moved.install()  # old module paths (structaware_retrievers.filters ...) keep importing for one release
