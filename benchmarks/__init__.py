"""Accuracy and speed measurements; run each from the repository's root as
``python -m benchmarks.NAME`` (shared parts: ``benchmarks.harness``; results: RESULTS.md)."""
