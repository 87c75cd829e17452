"""Write synthetic, schema-valid run folders (see bench/results/writer.py) from numpy arrays, so the
statistics / report / gate tests need no model.

    write_run(tmp_path / "run", {"ORIGINAL": {"MRR@10": a}, "MISSPELL": {"MRR@10": b}})

``values`` maps set name -> measure -> per-query array (all the same length); the first set
should be ORIGINAL. Query ids default to "q0", "q1", ...
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence

import numpy as np

ORIGINAL = "ORIGINAL"
AVG = "VARIATIONS (AVG.)"


def rng_for(seed: int, *keys: str) -> np.random.Generator:
    digest = hashlib.sha256("\x1f".join([str(seed), *keys]).encode("utf-8")).digest()
    return np.random.default_rng(np.random.SeedSequence(np.frombuffer(digest, dtype="<u4").tolist()))


def _fp(*parts: Any) -> str:
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).hexdigest()[:16]


def mrr_like(rng: np.random.Generator, n: int, p_hit: float = 0.6, depth: int = 10) -> np.ndarray:
    """Per-query reciprocal-rank values: rank ~ geometric(p_hit), 0 beyond ``depth``."""
    ranks = rng.geometric(p_hit, size=n)
    return np.where(ranks <= depth, 1.0 / ranks, 0.0)


def degrade(rng: np.random.Generator, values: np.ndarray, fraction: float, factor: float = 0.5) -> np.ndarray:
    """A copy of values where a random ``fraction`` of queries are multiplied by ``factor``."""
    out = np.array(values, dtype=np.float64, copy=True)
    hit = rng.random(out.size) < fraction
    out[hit] *= factor
    return out


def write_run(folder: Path, values: Mapping[str, Mapping[str, Sequence[float]]], *,
              model: str = "toy-model", dataset: str = "toy-data", seed: int = 0, suite: str = "variations",
              qids: Optional[List[str]] = None, applied: Optional[Mapping[str, Sequence[int]]] = None,
              dataset_fingerprint: Optional[str] = None, set_fingerprints: Optional[Mapping[str, str]] = None,
              missing_sets: Sequence[str] = (), labels: Optional[Mapping[str, str]] = None,
              statistics: bool = False, model_fingerprint: Optional[str] = None) -> Path:
    """Write result.json, per_query.csv and timings.json into ``folder``; return the folder."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    sets = list(values)
    measures = list(next(iter(values.values())))
    n = len(next(iter(next(iter(values.values())).values())))
    qids = list(qids) if qids is not None else [f"q{i}" for i in range(n)]
    applied = dict(applied or {})
    for s in sets:
        if s not in applied:
            applied[s] = [0] * n if s == ORIGINAL else [1] * n
    means = {s: {m: float(np.mean(np.asarray(values[s][m], dtype=float))) for m in measures} for s in sets}
    set_entries = []
    for s in sets:
        entry: Dict[str, Any] = {
            "name": s, "label": (labels or {}).get(s, s), "status": "ok",
            "fingerprint": (set_fingerprints or {}).get(s, _fp("set", s, dataset, seed)),
            "config": {}, "n_queries": n, "n_applied": int(np.sum(applied[s])), "n_evaluated": n,
            "metrics": means[s],
            "drop_rate": None if s == ORIGINAL else {
                m: ((means[ORIGINAL][m] - means[s][m]) / means[ORIGINAL][m] if means[ORIGINAL][m] else None)
                for m in measures},
        }
        set_entries.append(entry)
    for s in missing_sets:
        set_entries.append({"name": s, "label": s, "status": "missing", "reason": "resource not found (test)"})
    var = [s for s in sets if s != ORIGINAL]
    summary = {}
    if var:
        avg = {m: float(np.mean([means[s][m] for s in var])) for m in measures}
        summary[AVG] = {"sets": var, "metrics": avg,
                        "drop_rate": {m: ((means[ORIGINAL][m] - avg[m]) / means[ORIGINAL][m]
                                          if ORIGINAL in means and means[ORIGINAL][m] else None) for m in measures}}
    result: Dict[str, Any] = {
        "schema_version": 1, "suite": suite, "drbench_version": "0.1.0",
        "libraries": {"numpy": np.__version__}, "seed": seed,
        "model": {"name": model, "fingerprint": model_fingerprint or _fp("model", model), "spec": {}},
        "dataset": {"name": dataset, "fingerprint": dataset_fingerprint or _fp("dataset", dataset), "split": "test",
                    "n_docs": 100, "n_queries": n, "n_judged_queries": n},
        "measures": measures,
        "retrieval": {"top_k": 100, "index": "faiss.IndexFlatIP", "similarity": "cos"},
        "sets": set_entries,
        "summary": summary,
    }
    if statistics:
        import pandas as pd

        from bench.evaluation.stats import variation_statistics

        result["statistics"] = variation_statistics(per_query_frame(values, qids, applied), var, measures)
    (folder / "result.json").write_text(json.dumps(result, sort_keys=True, indent=2, allow_nan=False) + "\n",
                                        encoding="utf-8")
    lines = [",".join(["set", "qid", "applied", *measures])]
    for s in sets:
        for i, q in enumerate(qids):
            lines.append(",".join([s, q, str(int(applied[s][i])), *[repr(float(values[s][m][i])) for m in measures]]))
    (folder / "per_query.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (folder / "timings.json").write_text(json.dumps({"total": 0.0}) + "\n", encoding="utf-8")
    return folder


def per_query_frame(values: Mapping[str, Mapping[str, Sequence[float]]], qids: Optional[List[str]] = None,
                    applied: Optional[Mapping[str, Sequence[int]]] = None):
    """The long per-query DataFrame (as bench.results.rundir.load_per_query returns it)."""
    import pandas as pd

    sets = list(values)
    measures = list(next(iter(values.values())))
    n = len(next(iter(next(iter(values.values())).values())))
    qids = list(qids) if qids is not None else [f"q{i}" for i in range(n)]
    rows = []
    for s in sets:
        app = (applied or {}).get(s) or ([0] * n if s == ORIGINAL else [1] * n)
        for i, q in enumerate(qids):
            rows.append({"set": s, "qid": q, "applied": int(app[i]),
                         **{m: float(values[s][m][i]) for m in measures}})
    return pd.DataFrame(rows, columns=["set", "qid", "applied", *measures])


def write_fewshot_run(folder: Path, *, model: str = "toy-model", dataset: str = "toy-data", seed: int = 0,
                      summary: Optional[Dict[str, Any]] = None) -> Path:
    """A result.json of suite "fewshot" (schema not fixed yet): only the common keys + summary."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    result: Dict[str, Any] = {
        "schema_version": 1, "suite": "fewshot", "drbench_version": "0.1.0", "seed": seed,
        "model": {"name": model, "fingerprint": _fp("model", model), "spec": {}},
        "dataset": {"name": dataset, "fingerprint": _fp("dataset", dataset)},
        "measures": ["MRR@10"],
    }
    if summary is not None:
        result["summary"] = summary
    (folder / "result.json").write_text(json.dumps(result, sort_keys=True, indent=2) + "\n", encoding="utf-8")
    return folder


def synthetic_values(seed: int, n: int = 200, sets: Sequence[str] = ("MISSPELL", "SWAPWORD"),
                     measures: Sequence[str] = ("MRR@10", "nDCG@10"), drops: Optional[Mapping[str, float]] = None,
                     p_hit: float = 0.6, key: str = "run") -> Dict[str, Dict[str, np.ndarray]]:
    """ORIGINAL + variation sets of MRR-like values; ``drops[set]`` = fraction of queries halved."""
    rng = rng_for(seed, "synthetic", key)
    out: Dict[str, Dict[str, np.ndarray]] = {ORIGINAL: {}}
    base = {m: mrr_like(rng, n, p_hit) for m in measures}
    out[ORIGINAL] = base
    for s in sets:
        frac = (drops or {}).get(s, 0.3)
        out[s] = {m: degrade(rng_for(seed, "degrade", key, s, m), base[m], frac) for m in measures}
    return out


def write_bound_per_query(folder: Path, per_query_text: str) -> None:
    """A degraded copy of a real run that stands for another run: its per_query.csv, the checksum
    file and result.json's ``per_query_sha256`` all name the new table (as a run that produced it
    would), so the readers' binding check accepts it as that run's own table."""
    from bench.results.writer import with_per_query_sha256, write_per_query

    folder = Path(folder)
    write_per_query(folder, per_query_text)
    res = json.loads((folder / "result.json").read_text(encoding="utf-8"))
    if "per_query_sha256" in res:
        (folder / "result.json").write_text(json.dumps(with_per_query_sha256(res, per_query_text), indent=2,
                                                       sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
