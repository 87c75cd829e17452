"""Each generator's output on a probe set, as a digest tied to its spec version.

The variation cache is keyed on a generator's spec (name, protocol, version), not on its source
files, so a change of output must come with a new version. ``tests/perturb/test_spec.py`` compares
every built-in generator's digest on the probe queries (``tests/perturb/data/probe_queries.tsv``:
questions, titles, chat and web queries) with the one recorded for its version and fails, naming
the generator, when the output changed and the version did not.

    python -m benchmarks.tuning digests [--write]

prints each generator's version and digest, and with ``--write`` records them.
"""
from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

SEEDS = (0, 1)


def probe_queries(path: Path) -> List[Tuple[str, str]]:
    with open(path, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    return [(f"p{i}", r["text"]) for i, r in enumerate(rows)]


def digest(gen, queries: Sequence[Tuple[str, str]], seeds: Sequence[int] = SEEDS) -> str:
    """SHA-256 of the generator's (text, applied, detail) on every probe query, for each seed
    (uncached: what the code computes now)."""
    h = hashlib.sha256()
    for seed in seeds:
        for p in gen.perturb_batch(list(queries), seed):
            h.update(json.dumps([p.text, bool(p.applied), p.detail], ensure_ascii=False).encode("utf-8") + b"\n")
    return h.hexdigest()


def current(queries: Sequence[Tuple[str, str]]) -> Dict[str, Dict[str, object]]:
    """``protocol/name`` -> {"version", "digest"} for every built-in generator."""
    from perturb import PAPER_ORDER, PROTOCOLS

    out: Dict[str, Dict[str, object]] = {}
    for protocol, registry in PROTOCOLS.items():
        for name in PAPER_ORDER:
            gen = registry.get(name)()
            gen.check()
            out[f"{protocol}/{name}"] = {"version": gen.spec.version, "digest": digest(gen, queries)}
    return out


def write(path: Path, digests: Dict[str, Dict[str, object]]) -> None:
    path.write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n", encoding="utf-8")
