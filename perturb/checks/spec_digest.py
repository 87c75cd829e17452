"""Each generator's output on a probe set, as a digest tied to its spec version.

The variation cache is keyed on a generator's spec (name, protocol, version), not on its source
files, so a change of output must come with a new version. ``tests/perturb/test_spec.py`` compares
every built-in generator's digest on the probe queries (``tests/perturb/data/probe_queries.tsv``:
questions, titles, chat and web queries) with the one recorded for its version and fails, naming
the generator, when the output changed and the version did not.

    python -m perturb.checks.spec_digest PROBE.tsv DIGESTS.json [--write]

prints each generator's version and digest, and with ``--write`` records them.
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import json
import sys
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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("probe", type=Path)
    ap.add_argument("digests", type=Path)
    ap.add_argument("--write", action="store_true", help="record the current versions and digests")
    args = ap.parse_args(argv)
    now = current(probe_queries(args.probe))
    for key, v in now.items():
        print(f"{key:28s} version {v['version']}  {v['digest'][:16]}")
    if args.write:
        args.digests.write_text(json.dumps(now, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {args.digests}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
