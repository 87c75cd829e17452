"""Exact and approximate indexes and the retrievers built on them."""
