"""Evaluation: metrics, baselines, significance tests and the benchmark harness (paper section 3.3)."""
