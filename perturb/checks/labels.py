"""Human validity labels of variation pairs, read with where each came from, and matched to a
run's variation sets ("validity measured by the project itself").

A label says that one (original, variation) pair of one set keeps the query's information need
(valid) or not. Two file formats are read:

* the labelling sample ``bench perturb --audit N`` writes (``audit_sample.tsv``, columns
  :data:`SAMPLE_COLUMNS`) with its ``valid`` column filled: 1/0, true/false, yes/no,
  valid/invalid; an empty cell (or ``?``) is "not labelled";
* a Penha et al. (ECIR 2022) CSV (columns ``method``, ``q_id``, ``variation``, ``valid``);
* a labelled set of ``benchmarks/data/validity/`` (:mod:`perturb.checks.devset`: the set is the
  ``generator`` column, rows without a label are left out).

Every row is checked when the file is read (a bad row is a :class:`DataError` naming the file and
line), so a run with ``--labels`` fails before any encoding. :func:`match_labels` then keeps the
labels that judge a pair of this run: the set (by name or display label), the query and the
variation text must all be the run's, and the run must have changed the query. A label for
another text (another seed or version of the generator) judges another pair and is not used;
each reason for leaving a label out is counted and reported.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple, Union

from bench.core.errors import BenchError, DataError
from bench.core.io import sha256_hex
from perturb.io.importers import csv_records
from bench.core.sheet import unsheet_text
from perturb.checks.devset import COLUMNS as DEVSET_COLUMNS
from perturb.checks.devset import OLD_COLUMNS as OLD_DEVSET_COLUMNS
from perturb.checks.devset import read_devset
from perturb.io.sets import read_utf8, unescape_field

PathLike = Union[str, Path]
SAMPLE_COLUMNS = ("set", "qid", "original", "variation", "detail", "valid", "note")
PENHA_LABEL_COLUMNS = ("method", "q_id", "variation", "valid")
TRUE_VALUES = ("1", "true", "yes", "y", "valid", "faithful")
FALSE_VALUES = ("0", "false", "no", "n", "invalid", "unfaithful")
#: why a label was not used, in report order
UNUSED_REASONS = {
    "set_not_in_run": "its set is not among this run's variation sets",
    "query_not_in_run": "its query is not among this run's evaluated queries",
    "not_applied": "this run's generator left the query unchanged",
    "variation_differs": "this run's variation of the query is another text than the labelled one",
}


def parse_label(value: str, path: PathLike, line: int) -> Optional[bool]:
    """True (valid), False (not valid) or None (not labelled) from one ``valid`` cell."""
    v = value.strip().lower()
    if v in ("", "?"):
        return None
    if v in TRUE_VALUES:
        return True
    if v in FALSE_VALUES:
        return False
    raise DataError(f"label {value!r} in column 'valid' is not 1/0, true/false or empty", str(path), line,
                    "write 1 (the variation keeps the query's meaning) or 0 (it does not); leave it empty if unsure")


@dataclass(frozen=True)
class Label:
    set: str  # the set as the file names it (name or display label)
    qid: str
    variation: str  # the labelled variation text
    valid: bool
    where: str  # "file:line"


@dataclass
class LabelFile:
    path: Path
    format: str  # "audit-sample", "penha-csv" or "devset"
    sha256: str
    rows: int  # data rows read
    labels: List[Label] = field(default_factory=list)  # the labelled rows (unlabelled ones left out)

    def describe(self) -> Dict[str, object]:
        return {"file": self.path.name, "format": self.format, "sha256": self.sha256, "rows": self.rows,
                "labelled": len(self.labels)}


def read_label_file(path: PathLike) -> LabelFile:
    """Read and check every row of one label file (audit sample TSV, Penha CSV or labelled set)."""
    path = Path(path)
    raw, content = read_utf8(path)
    first = content.split("\n", 1)[0].rstrip("\r")
    if first.split("\t") == list(SAMPLE_COLUMNS):
        return _read_sample(path, raw, content)
    if tuple(first.split("\t")) in (DEVSET_COLUMNS, OLD_DEVSET_COLUMNS):
        return _read_devset(path, raw)
    if "\t" not in first and set(PENHA_LABEL_COLUMNS) <= {c.strip() for c in next(csv.reader([first]), [])}:
        return _read_penha(path, raw, content)
    head = first.split("\t")
    if len(head) > 1:  # tab-separated: an audit sample with a wrong header line
        _sample_header_problem(path, head)
    raise DataError("neither a labelled audit sample (tab-separated: " + ", ".join(SAMPLE_COLUMNS) + ") nor a "
                    "Penha et al. CSV (with columns " + ", ".join(PENHA_LABEL_COLUMNS) + ")", str(path), 1,
                    "label the audit_sample.tsv written by `bench perturb --audit N` and keep its header line")


def _sample_header_problem(path: Path, head: List[str]) -> None:
    """Raise the error that says what is wrong with a tab-separated header that is not the audit
    sample's: quoted names (saved by a spreadsheet as quoted text), or a column missing, extra,
    renamed or moved."""
    want = list(SAMPLE_COLUMNS)
    fix = ("save it as tab-separated text without quotes, with the header " + "\\t".join(want)
           + " (the one `bench perturb --audit N` wrote)")
    if any(len(h) >= 2 and h[0] == h[-1] and h[0] in "\"'" for h in head):
        unquoted = [h[1:-1] if len(h) >= 2 and h[0] == h[-1] and h[0] in "\"'" else h for h in head]
        if unquoted == want:
            raise DataError("the header's column names are in quotes (a spreadsheet's quoted-text export); the "
                            "audit sample is plain tab-separated text", str(path), 1, fix)
    extra = [h for h in head if h not in want]
    missing = [c for c in want if c not in head]
    if not set(head) & set(want):
        return  # nothing like an audit sample: the general message applies
    parts = []
    if extra:
        parts.append("unexpected column(s) " + ", ".join(repr(h) for h in extra))
    if missing:
        parts.append("missing column(s) " + ", ".join(repr(c) for c in missing))
    if not parts:
        parts.append(f"columns in another order ({', '.join(head)})")
    raise DataError("not the audit sample's header: " + "; ".join(parts), str(path), 1, fix)


def _need(value: str, column: str, path: Path, line: int) -> str:
    if not value.strip():
        raise DataError(f"empty {column!r}", str(path), line, f"every labelled row needs its {column}")
    return value.strip()


def _read_sample(path: Path, raw: bytes, content: str) -> LabelFile:
    out = LabelFile(path, "audit-sample", sha256_hex(raw), 0)
    for k, line in enumerate(content.split("\n")[1:], start=2):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        parts = line.split("\t")
        if len(parts) != len(SAMPLE_COLUMNS):
            raise DataError(f"expected {len(SAMPLE_COLUMNS)} tab-separated fields, found {len(parts)}", str(path), k,
                            "keep the columns " + ", ".join(SAMPLE_COLUMNS) + " (a tab inside a note is written \\t)")
        rec = dict(zip(SAMPLE_COLUMNS, (unescape_field(unsheet_text(p)) for p in parts)))
        out.rows += 1
        val = parse_label(rec["valid"], path, k)
        if val is not None:
            out.labels.append(Label(_need(rec["set"], "set", path, k), _need(rec["qid"], "qid", path, k),
                                    rec["variation"], val, f"{path}:{k}"))
    return out


def _read_penha(path: Path, raw: bytes, content: str) -> LabelFile:
    out = LabelFile(path, "penha-csv", sha256_hex(raw), 0)
    for k, row in csv_records(path, content, PENHA_LABEL_COLUMNS, strip_names=True):
        out.rows += 1
        val = parse_label(row["valid"], path, k)
        if val is not None:
            out.labels.append(Label(_need(row["method"], "method", path, k), _need(row["q_id"], "q_id", path, k),
                                    row["variation"], val, f"{path}:{k}"))
    return out


def _read_devset(path: Path, raw: bytes) -> LabelFile:
    out = LabelFile(path, "devset", sha256_hex(raw), 0)
    for k, c in enumerate(read_devset(path), start=2):
        out.rows += 1
        if c.valid is not None:
            out.labels.append(Label(_need(c.generator, "generator", path, k), _need(c.qid, "qid", path, k),
                                    c.variation, c.valid, f"{path}:{k}"))
    return out


def read_label_files(paths: Sequence[PathLike], option: str = "--labels") -> List[LabelFile]:
    """Every file read and checked; a missing file, a file without one label, or two labels that
    disagree about the same pair (same set, query and variation text) are errors."""
    files: List[LabelFile] = []
    seen: Dict[Tuple[str, str, str], Label] = {}
    for p in paths:
        p = Path(p)
        if not p.is_file():
            raise BenchError(f"{option}: label file {p} not found. Give the labelled audit_sample.tsv of `bench perturb "
                             f"--audit N` or a Penha et al. CSV")
        lf = read_label_file(p)
        if not lf.labels:
            raise DataError(f"no labelled row among {lf.rows} (the 'valid' column is empty everywhere)", str(p), None,
                            "fill the 'valid' column with 1 (keeps the meaning) or 0 (does not)")
        for lab in lf.labels:
            key = (lab.set, lab.qid, lab.variation)
            old = seen.get(key)
            if old is not None and old.valid != lab.valid:
                raise DataError(f"two labels disagree about set {lab.set!r}, query {lab.qid!r}: {old.where} says "
                                f"{_word(old.valid)}, this row says {_word(lab.valid)}", lab.where.rsplit(":", 1)[0],
                                int(lab.where.rsplit(":", 1)[1]), "keep one label per pair")
            seen.setdefault(key, lab)
        files.append(lf)
    return files


def _word(valid: bool) -> str:
    return "valid" if valid else "not valid"


@dataclass
class LabelMatch:
    """The labels that judge pairs of a run: run set name -> qid -> valid, and what was left out."""

    by_set: Dict[str, Dict[str, bool]]
    unused: Dict[str, int]  # reason (UNUSED_REASONS) -> labels
    unknown_sets: List[str]  # set names in the files that are not in the run
    n_labels: int

    def notes(self) -> List[str]:
        out = []
        for reason, n in self.unused.items():
            if n:
                what = UNUSED_REASONS[reason]
                if reason == "set_not_in_run":
                    what += f" ({', '.join(self.unknown_sets)})"
                out.append(f"--labels: {n} of {self.n_labels} labels not used: {what}")
        return out


def match_labels(files: Sequence[LabelFile], sets: Sequence, skip: Sequence[str] = ()) -> LabelMatch:
    """The labels of ``files`` that judge a pair of ``sets`` (VariationSet; those named in
    ``skip``, e.g. ORIGINAL, and those not built are left out)."""
    names: Dict[str, object] = {}
    for vs in sets:
        if vs.name in skip or vs.status != "ok":
            continue
        names.setdefault(vs.name, vs)
        names.setdefault(vs.label, vs)
    index = {vs.name: {q: k for k, q in enumerate(vs.qids)} for vs in names.values()}
    by_set: Dict[str, Dict[str, bool]] = {}
    where: Dict[Tuple[str, str], str] = {}
    unused = {r: 0 for r in UNUSED_REASONS}
    unknown: List[str] = []
    n = 0
    for lf in files:
        for lab in lf.labels:
            n += 1
            vs = names.get(lab.set)
            if vs is None:
                unused["set_not_in_run"] += 1
                if lab.set not in unknown:
                    unknown.append(lab.set)
                continue
            k = index[vs.name].get(lab.qid)
            if k is None:
                unused["query_not_in_run"] += 1
            elif not vs.applied[k]:
                unused["not_applied"] += 1
            elif vs.texts[k] != lab.variation:
                unused["variation_differs"] += 1
            else:
                got = by_set.setdefault(vs.name, {})
                if lab.qid in got and got[lab.qid] != lab.valid:
                    path, line = lab.where.rsplit(":", 1)
                    raise DataError(f"two labels disagree about set {vs.name!r}, query {lab.qid!r}: "
                                    f"{where[(vs.name, lab.qid)]} says {_word(got[lab.qid])}, this row says "
                                    f"{_word(lab.valid)}", path, int(line), "keep one label per pair")
                got[lab.qid] = lab.valid
                where.setdefault((vs.name, lab.qid), lab.where)
    return LabelMatch(by_set, unused, sorted(unknown), n)


def check_match(match: LabelMatch, files: Sequence[LabelFile], run_sets: Sequence[str]) -> None:
    """No label judges a pair of this run: an error that says why, before any work is done."""
    if any(match.by_set.values()):
        return
    why = "; ".join(match.notes()) or "no labels"
    names = ", ".join(str(f.path) for f in files)
    raise BenchError(f"--labels: none of the {match.n_labels} labels in {names} judges a pair of this run ({why}). "
                     f"This run's variation sets: {', '.join(run_sets) or 'none'}. Label the sample of this run's "
                     f"sets (`bench perturb --audit N` with the same dataset and seed, or `--variations` with the "
                     f"labelled sets)")
