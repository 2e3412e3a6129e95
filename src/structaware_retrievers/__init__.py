"""structaware_retrievers: encoders, Qdrant stores, native hybrid search and evaluation."""
