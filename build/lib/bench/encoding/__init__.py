"""Encoders, the content-addressed embedding cache, corpus shards and executors."""
