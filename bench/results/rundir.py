"""Read run folders (see :mod:`bench.results.writer` for the layout) for reports, comparisons, the
leaderboard and the gate. Every problem raises :class:`bench.core.errors.DataError` naming the file.

A run is given either as its folder or as the path of the ``result.json`` inside it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np

from bench.evaluation import exact
from bench.core.errors import DataError
from bench.core.sheet import unsheet_columns
from bench.results.schema import ResultFile
from bench.results.writer import PER_QUERY_SUM

ORIGINAL = "ORIGINAL"
AVG = "VARIATIONS (AVG.)"


@dataclass
class Run:
    folder: Path
    result: Dict[str, Any]
    per_query: Any = None  # pandas.DataFrame or None (not loaded / absent)
    notes: List[str] = field(default_factory=list)  # e.g. "per_query.csv not verified (older run)"

    @property
    def result_path(self) -> Path:
        return self.folder / "result.json"

    @property
    def per_query_path(self) -> Path:
        return self.folder / "per_query.csv"

    @property
    def suite(self) -> str:
        return str(self.result.get("suite", ""))

    @property
    def seed(self) -> Any:
        return self.result.get("seed")

    @property
    def model_name(self) -> str:
        return str((self.result.get("model") or {}).get("name", "?"))

    @property
    def model_fingerprint(self) -> str:
        return str((self.result.get("model") or {}).get("fingerprint", ""))

    @property
    def dataset_name(self) -> str:
        return str((self.result.get("dataset") or {}).get("name", "?"))

    @property
    def dataset_fingerprint(self) -> str:
        return str((self.result.get("dataset") or {}).get("fingerprint", ""))

    @property
    def measures(self) -> List[str]:
        return [str(m) for m in self.result.get("measures") or []]

    @property
    def sets(self) -> List[Dict[str, Any]]:
        return list(self.result.get("sets") or [])

    def set_entry(self, name: str) -> Optional[Dict[str, Any]]:
        for s in self.sets:
            if s.get("name") == name:
                return s
        return None

    @property
    def ok_sets(self) -> List[str]:
        """Names of the sets whose status is "ok", in result order (ORIGINAL first if present)."""
        return [str(s["name"]) for s in self.sets if s.get("status", "ok") == "ok"]

    @property
    def variation_sets(self) -> List[str]:
        return [s for s in self.ok_sets if s != ORIGINAL]

    def label(self, name: str) -> str:
        e = self.set_entry(name)
        return str(e.get("label") or name) if e else name

    def metric(self, set_name: str, measure: str) -> Optional[float]:
        e = self.set_entry(set_name)
        if not e:
            return None
        v = (e.get("metrics") or {}).get(measure)
        return float(v) if isinstance(v, (int, float)) else None

    def values(self, set_name: str, measure: str) -> Any:
        """pandas Series qid -> value of one set (requires the per-query table)."""
        if self.per_query is None:
            raise DataError("per-query table not loaded", str(self.per_query_path))
        sub = self.per_query[self.per_query["set"] == set_name]
        if sub.empty:
            raise DataError(f"set {set_name!r} has no rows", str(self.per_query_path),
                            fix="re-run the suite or pass a complete run folder")
        if measure not in sub.columns:
            raise DataError(f"no column {measure!r}", str(self.per_query_path))
        return sub.set_index("qid")[measure]

    @property
    def display(self) -> str:
        return f"{self.model_name} on {self.dataset_name}"


def _resolve(path: Union[str, Path]) -> Path:
    p = Path(path)
    if p.is_dir():
        return p
    if p.name == "result.json" or p.suffix == ".json":
        return p.parent
    if not p.exists():
        raise DataError("no such run folder or result.json", str(p),
                        fix="pass a run folder (containing result.json) or the path of its result.json")
    raise DataError("not a run folder or result.json", str(p))


def load_result(path: Union[str, Path]) -> Dict[str, Any]:
    """Read a result.json: older schema versions are migrated, the data is checked against the
    model of its layout (:mod:`bench.results.schema`); a problem names the file and the key path."""
    return ResultFile.from_path(path).data  # type: ignore[return-value]


def load_per_query(path: Union[str, Path], measures: Optional[List[str]] = None) -> Any:
    """Read per_query.csv: qid and set as strings, measures as float64, applied as int."""
    import pandas as pd

    p = Path(path)
    if not p.is_file():
        raise DataError("per_query.csv not found", str(p),
                        fix="per-query values are needed for paired statistics; re-run the suite")
    try:
        df = pd.read_csv(p, dtype=str, keep_default_na=False, na_filter=False)
    except Exception as exc:  # pandas raises several parser errors
        raise DataError(f"cannot parse CSV ({exc})", str(p)) from None
    for col in ("set", "qid", "applied"):
        if col not in df.columns:
            raise DataError(f"missing column {col!r} (header: {', '.join(df.columns)})", str(p), 1)
    unsheet_columns(df, ("set", "qid", "label"))  # the writer's spreadsheet escape (bench.core.sheet.csv_text)
    cols = [c for c in df.columns if c not in ("set", "qid", "applied", "label")]  # label: 1 / 0 / empty, kept as text
    if measures:
        missing = [m for m in measures if m not in cols]
        if missing:
            raise DataError(f"missing measure column(s) {', '.join(missing)}", str(p), 1)
    for c in cols + ["applied"]:
        num = pd.to_numeric(df[c], errors="coerce")
        bad = num.isna() & ~df[c].str.lower().isin(["nan"])
        if bad.any():
            i = int(np.flatnonzero(bad.to_numpy())[0])
            raise DataError(f"column {c!r}: not a number: {df[c].iloc[i]!r}", str(p), i + 2)
        df[c] = num.astype(np.float64)
    df["applied"] = df["applied"].astype(np.int64)
    dup = df.duplicated(["set", "qid"])
    if dup.any():
        i = int(np.flatnonzero(dup.to_numpy())[0])
        raise DataError(f"duplicate row for set {df['set'].iloc[i]!r}, qid {df['qid'].iloc[i]!r}", str(p), i + 2)
    return df


def load_run(path: Union[str, Path], *, per_query: bool = True) -> Run:
    """Load a run folder (or its result.json). ``per_query=True`` requires per_query.csv,
    ``False`` skips it, ``None`` loads it when present (and always for a run whose result.json
    records the table's checksum: such a run is not shown without the table its figures come from).

    When the table is loaded it is verified (:func:`verify_per_query`) and so are the figures
    result.json shows (:func:`verify_figures`): every consumer shows only what per_query.csv backs."""
    folder = _resolve(path)
    result = load_result(folder / "result.json")
    run = Run(folder, result)
    want = per_query
    if want is None:
        want = (folder / "per_query.csv").is_file() or bool(result.get("per_query_sha256"))
    if want:
        note = verify_per_query(folder, result)
        if note:
            run.notes.append(note)
        run.per_query = load_per_query(folder / "per_query.csv", run.measures)
        verify_figures(run)
    elif per_query is None:
        run.notes.append(f"{folder / 'result.json'}: figures not verified (no per_query.csv: a run written before "
                         f"checksums)")
    return run


def _sha256_file(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def verify_per_query(folder: Path, result: Optional[Dict[str, Any]] = None) -> Optional[str]:
    """Check per_query.csv against the checksum in result.json (``per_query_sha256``, which binds
    the table to this run's model, dataset and sets) and against the per_query.sha256 beside it.
    A mismatch is a DataError; for a run whose result.json records the checksum (written by this
    version) a missing table or checksum file is one too. A run with neither (written before
    checksums existed) is accepted, and the returned note says so."""
    csv_path, sum_path = folder / "per_query.csv", folder / PER_QUERY_SUM
    bound = str((result or {}).get("per_query_sha256") or "")
    fix = "re-run the suite to regenerate the run folder, or restore the run's original per_query.csv and " + PER_QUERY_SUM
    if bound:
        if not csv_path.is_file():
            raise DataError("per_query.csv not found, although result.json records its checksum", str(csv_path),
                            fix=fix)
        if not sum_path.is_file():
            raise DataError(f"{PER_QUERY_SUM} is missing (result.json of this run records the per-query checksum, "
                            f"so the file was removed)", str(sum_path), fix=fix)
        got = _sha256_file(csv_path)
        if got != bound.lower():
            raise DataError(f"per_query.csv is not the table of this result.json (sha256 {got[:12]}..., result.json "
                            f"records {bound[:12]}...): edited, or copied from another run (model "
                            f"{((result or {}).get('model') or {}).get('name', '?')!s}, dataset "
                            f"{((result or {}).get('dataset') or {}).get('name', '?')!s})", str(csv_path), fix=fix)
    if not sum_path.is_file():
        return f"{csv_path}: not verified (no {PER_QUERY_SUM}: a run written before checksums)"
    if not csv_path.is_file():
        return None  # load_per_query says it is missing
    want = sum_path.read_text(encoding="utf-8", errors="replace").split()
    got = _sha256_file(csv_path)
    if not want or want[0].lower() != got:
        raise DataError(f"per_query.csv does not match its checksum in {PER_QUERY_SUM} (edited or damaged after "
                        f"the run was written; sha256 {got[:12]}..., recorded {(want or ['none'])[0][:12]}...)",
                        str(csv_path), fix=fix)
    return None


def _close(a: Any, b: float) -> bool:
    if not isinstance(a, (int, float)) or isinstance(a, bool):
        return False
    if not np.isfinite(a) or not np.isfinite(b):
        return bool(np.isnan(a) and np.isnan(b))
    return abs(float(a) - b) <= 1e-9 * max(1.0, abs(b))


def verify_figures(run: Run) -> None:
    """The figures result.json shows must be what its per_query.csv gives: for every set with
    metrics, each measure's mean over the set's rows; its drop rate against ORIGINAL; and the
    VARIATIONS (AVG.) summary (mean of its sets' metrics, and its drop rate). A difference beyond
    rounding (1e-9) is a DataError naming the key, the value and what the table gives. Layouts
    without per-set metrics (few-shot) are left to their own readers."""
    df = run.per_query
    if df is None:
        return
    where = str(run.result_path)
    fix = "re-run the suite; a result.json must not be edited by hand"
    means: Dict[str, Dict[str, float]] = {}
    for entry in run.sets:
        metrics = entry.get("metrics")
        if entry.get("status", "ok") != "ok" or not isinstance(metrics, dict):
            continue
        name = str(entry.get("name"))
        rows = df[df["set"] == name]
        if rows.empty:
            raise DataError(f"set {name!r} has metrics in result.json but no rows in per_query.csv", where, fix=fix)
        means[name] = {}
        for m, v in metrics.items():
            if m not in rows.columns:
                continue
            got = exact.mean(rows[m].to_numpy(dtype=np.float64))
            means[name][m] = got
            if not _close(v, got):
                raise DataError(f"sets / {name} / metrics / {m} is {v!r}, but per_query.csv gives {got!r}", where,
                                fix=fix)
    orig = means.get(ORIGINAL, {})
    for entry in run.sets:
        name = str(entry.get("name"))
        drops = entry.get("drop_rate")
        if name not in means or not isinstance(drops, dict):
            continue
        for m, v in drops.items():
            if m in orig and m in means[name] and orig[m] != 0 and v is not None:
                got = (orig[m] - means[name][m]) / orig[m]
                if not _close(v, got):
                    raise DataError(f"sets / {name} / drop_rate / {m} is {v!r}, but per_query.csv gives {got!r}", where,
                                    fix=fix)
    avg = (run.result.get("summary") or {}).get(AVG) if isinstance(run.result.get("summary"), dict) else None
    if isinstance(avg, dict) and isinstance(avg.get("sets"), list):
        members = [str(s) for s in avg["sets"]]
        unknown = [s for s in members if s not in means]
        if unknown:
            raise DataError(f"summary / {AVG} / sets names {', '.join(map(repr, unknown))}, which per_query.csv and "
                            f"the sets do not back", where, fix=fix)
        for key in ("metrics", "drop_rate"):
            for m, v in (avg.get(key) or {}).items():
                if not members or not all(m in means[s] for s in members) or v is None:
                    continue
                got = float(sum(means[s][m] for s in members) / len(members))
                if key == "drop_rate":
                    if m not in orig or orig[m] == 0:
                        continue
                    got = (orig[m] - got) / orig[m]
                if not _close(v, got):
                    raise DataError(f"summary / {AVG} / {key} / {m} is {v!r}, but per_query.csv gives {got!r}",
                                    where, fix=fix)


def paired(run_a: Run, set_a: str, run_b: Run, set_b: str, measure: str) -> Tuple[np.ndarray, np.ndarray, List[str]]:
    """Values of measure for the queries of run_a/set_a and run_b/set_b, paired by qid.

    Raises DataError when the two query sets differ (a paired comparison needs the same queries)."""
    sa = run_a.values(set_a, measure)
    sb = run_b.values(set_b, measure)
    ka, kb = set(sa.index), set(sb.index)
    if ka != kb:
        only_a = sorted(ka - kb)[:3]
        only_b = sorted(kb - ka)[:3]
        raise DataError(f"set {set_a!r} and {set_b!r} are not on the same queries "
                        f"(only in first: {only_a}, only in second: {only_b})",
                        str(run_b.per_query_path))
    qids = list(sa.index)
    a = sa.to_numpy(dtype=np.float64)
    b = sb.loc[qids].to_numpy(dtype=np.float64)
    ok = np.isfinite(a) & np.isfinite(b)
    return a[ok], b[ok], [q for q, k in zip(qids, ok) if k]


def numeric_leaves(d: Any, prefix: str = "") -> Dict[str, float]:
    """The numeric leaves of a nested dict (e.g. a result's ``summary``), keyed by their path
    ``"a / b / c"`` in the file's key order; booleans are not numbers."""
    out: Dict[str, float] = {}
    if isinstance(d, dict):
        for k in d:
            out.update(numeric_leaves(d[k], f"{prefix} / {k}" if prefix else str(k)))
    elif isinstance(d, (int, float)) and not isinstance(d, bool):
        out[prefix] = float(d)
    return out
