"""Searching an index: the searcher (prefetch + fusion inside Qdrant), the second stage, calibrated relevance, evidence packing, results."""
