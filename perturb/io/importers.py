"""External variation sets imported as :class:`~perturb.io.sets.VariationSet`: RoDR-style
``qid<TAB>text`` files and Penha et al.'s (ECIR 2022) human-validated CSV files.
"""
from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Tuple

from bench.core.errors import DataError
from bench.core.io import sha256_hex
from perturb.io.sets import PathLike, VariationSet, read_utf8


def import_rodr_tsv(path: PathLike, name: str, originals: Optional[Dict[str, str]] = None,
                    label: Optional[str] = None) -> VariationSet:
    """A RoDR-style ``qid<TAB>text`` file (one query per line, no header; ``#`` lines skipped).

    ``applied`` is "text differs from the original" when ``originals`` (qid -> text) is given;
    without originals every row counts as applied (nothing to compare with) and says so.
    """
    path = Path(path)
    raw, content = read_utf8(path)
    qids, texts, applied, details = [], [], [], []
    seen: Dict[str, int] = {}
    for k, line in enumerate(content.split("\n"), start=1):
        line = line.rstrip("\r")
        if not line.strip() or line.startswith("#"):
            continue
        if "\t" not in line:
            raise DataError("expected 'qid<TAB>text'", str(path), k, "separate the query id and the text with one tab")
        q, t = line.split("\t", 1)
        q = q.strip()
        if not q:
            raise DataError("empty query id", str(path), k, "every line needs a query id before the tab")
        if q in seen:
            raise DataError(f"query id {q!r} repeats line {seen[q]}", str(path), k, "keep one line per query id")
        seen[q] = k
        qids.append(q)
        texts.append(t)
        if originals is None:
            applied.append(True)
            details.append("imported (original unknown)")
        elif q not in originals:
            applied.append(True)
            details.append("imported (query id not among the originals)")
        else:
            changed = t != originals[q]
            applied.append(changed)
            details.append("imported" if changed else "")
    config = {"format": "rodr-tsv", "file": path.name, "sha256": sha256_hex(raw),
              "compared_with_originals": originals is not None}
    return VariationSet(name=name, label=label or name, config=config, seed=None, qids=qids, texts=texts,
                        applied=applied, details=details, source=f"rodr:{path.name}")


def csv_records(path: Path, content: str, columns,
                strip_names: bool = False) -> Iterator[Tuple[int, Dict[str, str]]]:
    """(line, {column: cell}) of each non-blank row of a comma-separated file whose header holds
    ``columns`` (with ``strip_names``, header names compared without surrounding spaces); an empty
    file, a missing column or a row with another number of fields is an error naming the file and
    line."""
    reader = csv.reader(io.StringIO(content, newline=""))
    header = [c.strip() if strip_names else c for c in next(reader, [])]
    if not header:
        raise DataError("empty file", str(path), 1, f"expected the header {','.join(columns)}")
    missing = [c for c in columns if c not in header]
    if missing:
        raise DataError(f"missing columns {missing}", str(path), 1, f"the header must contain {','.join(columns)}")
    col = {c: header.index(c) for c in columns}
    for row in reader:
        line = reader.line_num
        if not row or all(not c.strip() for c in row):
            continue
        if len(row) != len(header):
            raise DataError(f"expected {len(header)} comma-separated fields, found {len(row)}", str(path), line,
                            "quote fields that contain commas")
        yield line, {c: row[col[c]] for c in columns}


PENHA_COLUMNS = ("dataset", "q_id", "method", "transformation_type", "original_query", "variation", "valid",
                 "follow_category")


def _bool_cell(value: str, path: Path, line: int, column: str) -> bool:
    v = value.strip().lower()
    if v in ("true", "1"):
        return True
    if v in ("false", "0"):
        return False
    raise DataError(f"column {column!r} must be True or False, found {value!r}", str(path), line,
                    "use True/False as in the published files")


def import_penha_csv(path: PathLike, valid_only: bool = True) -> List[VariationSet]:
    """Penha et al. (ECIR 2022) human-validated variations: one VariationSet per ``method``.

    With ``valid_only`` only rows judged ``valid == True`` are kept. Where a query id appears
    twice for one method (the ANTIQUE file has three such pairs), the kept row is the first
    valid one (when filtering), preferring a row whose variation differs from the original.
    """
    path = Path(path)
    raw, content = read_utf8(path)
    by_method: Dict[str, Dict[str, tuple]] = {}
    dups: Dict[str, int] = {}
    datasets: Dict[str, set] = {}
    types: Dict[str, set] = {}
    for line, get in csv_records(path, content, PENHA_COLUMNS):
        valid = _bool_cell(get["valid"], path, line, "valid")
        follow = _bool_cell(get["follow_category"], path, line, "follow_category")
        if valid_only and not valid:
            continue
        method, qid = get["method"].strip(), get["q_id"].strip()
        if not method or not qid:
            raise DataError("empty method or q_id", str(path), line, "fill in both columns")
        datasets.setdefault(method, set()).add(get["dataset"].strip())
        types.setdefault(method, set()).add(get["transformation_type"].strip())
        entry = (get["original_query"], get["variation"], valid, follow, get["transformation_type"].strip())
        rows = by_method.setdefault(method, {})
        if qid in rows:
            dups[method] = dups.get(method, 0) + 1
            old = rows[qid]
            if old[1] == old[0] and entry[1] != entry[0]:  # prefer a row that changed the query
                rows[qid] = entry
            continue
        rows[qid] = entry
    sets = []
    for method, rows in by_method.items():
        qids = list(rows)
        texts = [rows[q][1] for q in qids]
        applied = [rows[q][1] != rows[q][0] for q in qids]
        details = [f"{rows[q][4]}: valid={rows[q][2]} follow_category={rows[q][3]}" if a else ""
                   for q, a in zip(qids, applied)]
        config = {"format": "penha-ecir2022-csv", "file": path.name, "sha256": sha256_hex(raw), "method": method,
                  "dataset": sorted(datasets[method]), "transformation_type": sorted(types[method]),
                  "valid_only": valid_only, "duplicate_qids_resolved": dups.get(method, 0)}
        sets.append(VariationSet(name=method, label=f"{method}[penha]", config=config, seed=None, qids=qids,
                                 texts=texts, applied=applied, details=details, source=f"penha:{path.name}"))
    return sets


def originals_of_penha(path: PathLike) -> Dict[str, str]:
    """qid -> original query, from a Penha CSV (the queries the variations were made from)."""
    out: Dict[str, str] = {}
    with open(path, encoding="utf-8-sig", newline="") as fh:
        for row in csv.DictReader(fh):
            out.setdefault(row["q_id"].strip(), row["original_query"])
    return out
