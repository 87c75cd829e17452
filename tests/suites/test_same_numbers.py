"""Same command, same numbers (issue 21): a run's files are a function of its inputs, whatever the cache
or process history. Each run is a separate process, since the failure it guards against (a set's config
that depended on what the process happened to load) is invisible inside one process."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import QUERIES as TINY_QUERIES, write_beir

# more queries than the shared tiny collection, so every generator, the synonym swaps included, changes some
QUERIES = {**TINY_QUERIES,
           "6": ("which experiments measured the pressure on a cone at high speed", "aero"),
           "7": ("can the temperature of the surface be predicted accurately", "heat"),
           "8": ("SHOCK WAVE INTERACTION WITH A BOUNDARY LAYER", "aero"),
           "9": ("government jobs that require a clearance", "other")}
QRELS = [("1", "d1", 2), ("2", "d2", 1), ("3", "d3", 2), ("4", "d6", 1), ("5", "d5", 1), ("6", "d4", 1),
         ("7", "d2", 1), ("8", "d4", 2), ("9", "d6", 1)]


def _bench(args, home: Path, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "DRBENCH_HOME": str(home), "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    proc = subprocess.run([sys.executable, "-m", "bench.cli.main", *args, "--no-progress"] if args[0] == "evaluate"
                          else [sys.executable, "-m", "bench.cli.main", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)
    return proc


def _files(run: Path):
    names = ["result.json", "per_query.csv", "per_query.sha256"]
    names += sorted(f"variations/{p.name}" for p in (run / "variations").glob("*.tsv"))
    return {n: (run / n).read_bytes() for n in names}


@pytest.fixture
def collection(tmp_path):
    return write_beir(tmp_path / "tiny", queries=QUERIES, qrels=QRELS)


def test_cold_warm_and_variation_cache_deleted_give_the_same_bytes(tmp_path, collection, tiny_bert):
    home = tmp_path / "home"
    args = ["evaluate", "--model", str(tiny_bert), "--dataset", str(collection), "--suite", "variations"]
    runs = []
    # cold, then warm twice (the second warm run is where a config that depended on what a cache miss
    # happened to load changed), then with the variation cache alone deleted
    states = ("cold", "warm", "warm again", "no-variation-cache")
    for i, prepare in enumerate(states):
        if prepare == "no-variation-cache":
            shutil.rmtree(home / "variations")
            assert (home / "embeddings").exists() or any(home.iterdir())  # only the variation cache went
        out = tmp_path / f"run{i}"
        proc = _bench([*args, "--out", str(out)], home, tmp_path)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
        runs.append(_files(out))
    assert len(runs[0]) == 3 + 8  # all eight sets were written
    for state, run in zip(states[1:], runs[1:]):
        for name in runs[0]:
            assert run[name] == runs[0][name], f"{name}: the {state} run differs from the cold run"
    applied = {s["name"]: s.get("n_applied", 0) for s in json.loads(runs[0]["result.json"])["sets"]}
    assert sum(applied.values()) > 0


def test_two_default_runs_of_different_models_get_a_verdict(tmp_path, collection, tiny_bert):
    home = tmp_path / "home"
    runs = {}
    for name, model in (("dense", str(tiny_bert)), ("bm25", "bm25")):
        runs[name] = tmp_path / name
        proc = _bench(["evaluate", "--model", model, "--dataset", str(collection), "--suite", "variations",
                       "--out", str(runs[name])], home if name == "dense" else tmp_path / "home2", tmp_path)
        assert proc.returncode == 0, proc.stderr[-2000:]
    gate = _bench(["gate", "--baseline", str(runs["dense"]), "--candidate", str(runs["bm25"])], home, tmp_path)
    assert gate.returncode in (0, 1), gate.stdout[-3000:] + gate.stderr[-2000:]  # a verdict, never 2
    assert "not comparable" not in (gate.stdout + gate.stderr).lower()
