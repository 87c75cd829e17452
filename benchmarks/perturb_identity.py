"""Byte-identity check of the variation sets: write them, or compare two folders of them.

    python benchmarks/perturb_identity.py write OUT [--datasets chatterbot,/work/shared/data/cranfield]
                                                    [--seeds 0,1,2] [--protocols validated,rodr]
    python benchmarks/perturb_identity.py compare REF NEW [--skip SWAPSYN-GLOVE,SWAPSYN-WNET@validated]

``write`` runs ``bench perturb`` for every (protocol, dataset, seed) with the variation cache off
(``DRBENCH_NO_VARIATION_CACHE=1``), into ``OUT/<protocol>/<dataset>/seed<seed>/``. ``compare`` compares
every ``*.tsv`` and ``applicability.csv`` of ``REF`` with the same path under ``NEW`` byte for byte and
prints one line per differing or missing file, then the counts; ``--skip`` leaves out set files by
name (``NAME`` everywhere, ``NAME@protocol`` in one protocol). Exit status 1 when a compared file
differs or is missing.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATASETS = "chatterbot,/work/shared/data/cranfield"


def dataset_key(name: str) -> str:
    return Path(name).name or name


def write(out: Path, datasets, seeds, protocols) -> None:
    env = dict(os.environ, DRBENCH_NO_VARIATION_CACHE="1",
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    for protocol in protocols:
        for ds in datasets:
            for seed in seeds:
                folder = out / protocol / dataset_key(ds) / f"seed{seed}"
                cmd = [sys.executable, "-c", "from bench.cli import main; main()", "perturb", "--dataset", ds,
                       "--seed", str(seed), "--protocol", protocol, "--out", str(folder), "--force"]
                done = subprocess.run(cmd, env=env, capture_output=True, text=True)
                if done.returncode:
                    sys.exit(f"failed: {' '.join(cmd)}\n{done.stderr[-2000:]}")
                print(f"wrote {folder}", flush=True)


def skipped(path: Path, ref: Path, skip) -> bool:
    protocol = path.relative_to(ref).parts[0]
    return path.stem in skip or f"{path.stem}@{protocol}" in skip


def compare(ref: Path, new: Path, skip) -> int:
    files = sorted(p for p in ref.rglob("*") if p.is_file() and (p.suffix == ".tsv" or p.name == "applicability.csv"))
    same = differ = left_out = 0
    for p in files:
        if skipped(p, ref, skip):
            left_out += 1
            continue
        other = new / p.relative_to(ref)
        if other.is_file() and other.read_bytes() == p.read_bytes():
            same += 1
        else:
            differ += 1
            print(f"{'DIFFERS' if other.is_file() else 'MISSING'} {p.relative_to(ref)}")
    print(f"{same + differ} files compared: {same} identical, {differ} differ; {left_out} skipped")
    return 1 if differ else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("write")
    w.add_argument("out", type=Path)
    w.add_argument("--datasets", default=DEFAULT_DATASETS)
    w.add_argument("--seeds", default="0,1,2")
    w.add_argument("--protocols", default="validated,rodr")
    c = sub.add_parser("compare")
    c.add_argument("ref", type=Path)
    c.add_argument("new", type=Path)
    c.add_argument("--skip", default="SWAPSYN-GLOVE@validated,SWAPSYN-WNET@validated")
    args = ap.parse_args(argv)
    if args.cmd == "write":
        write(args.out, args.datasets.split(","), [int(s) for s in args.seeds.split(",")],
              args.protocols.split(","))
        return 0
    return compare(args.ref, args.new, {s for s in args.skip.split(",") if s})


if __name__ == "__main__":
    sys.exit(main())
