"""drbench: robustness and few-shot benchmarks for dense retrieval models.

Importing this package does nothing heavy: no torch, faiss or spaCy, no downloads, no writes.
"""
__version__ = "0.1.0"
