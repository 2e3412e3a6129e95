"""The query language: filters (dicts, strings, SearchFilter) to Qdrant filters, and the fusion settings."""
