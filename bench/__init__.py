"""Benchmarks: plain scripts run as `python bench/x.py` from the repo root (see bench/README.md)."""
