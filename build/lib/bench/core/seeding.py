"""Seeding, in one place: every random stream is derived from (run seed, component, item).

``rng_for(seed, *keys)`` hashes ``seed`` and the keys (joined by the unit separator U+001F) with
SHA-256 and seeds a numpy ``Generator`` from the digest, so a stream depends only on what it is
for, never on iteration order or on which other components ran. Nothing here seeds globally.
"""
from __future__ import annotations

import hashlib

import numpy as np


def rng_for(seed: int, *keys: object) -> np.random.Generator:
    """A numpy Generator derived from (seed, keys...) through SHA-256."""
    text = "\x1f".join([str(int(seed)), *[str(k) for k in keys]])
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    words = np.frombuffer(digest, dtype="<u4").tolist()
    return np.random.default_rng(np.random.SeedSequence(words))


def torch_seed(seed: int, *keys: str) -> int:
    """An int seed for ``torch.manual_seed`` derived from (seed, "torch", "/".join(keys))."""
    return int(rng_for(seed, "torch", "/".join(keys)).integers(0, 2 ** 31 - 1))
