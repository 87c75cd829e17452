"""Variation sets: generating them, writing/reading them as TSV (importers: :mod:`perturb.io.importers`).

TSV layout (UTF-8, ``\\n`` line ends)::

    # drbench variation set
    # name: MISSPELL
    # label: MISSPELL
    # config: {"errors_per_query": 1, ...}        (canonical JSON on one line)
    # seed: 0                                      ("none" for imported sets)
    # status: ok
    # source: generated
    # reason:                                      (why a set is "missing")
    # fingerprint: <sha256>
    # too_long: {"max_chars": 1000, "n": 2, ...}  (only when queries exceeded the generator's bound)
    qid<TAB>text<TAB>applied<TAB>detail
    1<TAB>what similarity laws ...<TAB>1<TAB>typos:swap 'laws'->'lwas'

Fields are escaped so any string round-trips: backslash as ``\\\\``, tab ``\\t``, newline ``\\n``,
carriage return ``\\r`` and the other line-breaking characters as ``\\uXXXX``. ``applied`` is 1/0.
The fingerprint is SHA-256 over the canonical TSV rows, the label and the config JSON; reading
a file whose rows do not match its fingerprint fails (it was edited or truncated). Every field of
:class:`VariationSet` is written and read back (``tests/perturb/test_set_roundtrip.py`` checks it
as a property over all of them).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple, Union

from bench.core.errors import DataError
from bench.core.io import atomic_write_text, sha256_hex
from bench.core.io import safe_name
from perturb import DEFAULT_PROTOCOL

PathLike = Union[str, Path]
COLUMNS = ("qid", "text", "applied", "detail")
MAGIC = "# drbench variation set"
_HEADER_KEYS = ("name", "label", "config", "seed", "status", "source", "reason", "fingerprint")
_OPTIONAL_KEYS = ("too_long",)  # written only when set, so files without them keep their bytes


# --------------------------------------------------------------------------- escaping
_ESCAPE = {"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"}
_OTHER_BREAKS = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
_NEEDS = re.compile("[\\\\\t\n\r" + _OTHER_BREAKS + "]")
_UNESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)", re.S)


def escape_field(s: str) -> str:
    return _NEEDS.sub(lambda m: _ESCAPE.get(m.group(0), f"\\u{ord(m.group(0)):04x}"), s)


def unescape_field(s: str) -> str:
    def rep(m: "re.Match[str]") -> str:
        tok = m.group(1)
        if len(tok) == 5:
            return chr(int(tok[1:], 16))
        return {"\\": "\\", "t": "\t", "n": "\n", "r": "\r"}.get(tok, "\\" + tok)

    return _UNESCAPE.sub(rep, s)


def _canonical_config(config: dict) -> str:
    return json.dumps(config, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


# --------------------------------------------------------------------------- the set
@dataclass
class VariationSet:
    name: str
    label: str
    config: dict
    seed: Optional[int]
    qids: List[str]
    texts: List[str]
    applied: List[bool]
    details: List[str]
    status: str = "ok"  # or "missing"
    reason: str = ""
    source: str = "generated"
    #: queries longer than the generator's bound, left unchanged: {"n", "max_chars", "reason"} (None: none);
    #: written as the optional ``# too_long:`` header line, not part of the fingerprint (the rows say what
    #: the set holds)
    too_long: Optional[dict] = None

    def __post_init__(self):
        n = len(self.qids)
        if not (len(self.texts) == len(self.applied) == len(self.details) == n):
            raise ValueError(f"variation set {self.name!r}: qids/texts/applied/details lengths differ")

    @property
    def n_applied(self) -> int:
        return int(sum(bool(a) for a in self.applied))

    def __len__(self) -> int:
        return len(self.qids)

    def rows_tsv(self) -> str:
        """The canonical TSV rows (column header included), as written to the file."""
        lines = ["\t".join(COLUMNS)]
        for q, t, a, d in zip(self.qids, self.texts, self.applied, self.details):
            lines.append("\t".join((escape_field(str(q)), escape_field(t), "1" if a else "0", escape_field(d))))
        return "\n".join(lines) + "\n"

    def fingerprint(self) -> str:
        return sha256_hex(self.rows_tsv().encode("utf-8"), self.label, _canonical_config(self.config))


def protocol_of(vs: VariationSet) -> str:
    """The protocol a set was made under: its config's ``protocol`` ("rodr"), "validated" for a set
    drbench generated without one, "imported" for an imported set without one."""
    recorded = vs.config.get("protocol") if isinstance(vs.config, dict) else None
    if recorded:
        return str(recorded)
    return DEFAULT_PROTOCOL if vs.source == "generated" else "imported"


def applicability_table(sets: Iterable[VariationSet]) -> List[tuple]:
    """Rows ``(name, label, n_queries, n_applied, percent)``: the RoDR paper's Tables 2-3.
    ``percent`` is a float rounded to 0.1, or "missing" for a set that could not be generated."""
    rows = []
    for vs in sets:
        if vs.status != "ok":
            rows.append((vs.name, vs.label, len(vs), 0, "missing"))
        else:
            pct = round(100.0 * vs.n_applied / len(vs), 1) if len(vs) else 0.0
            rows.append((vs.name, vs.label, len(vs), vs.n_applied, pct))
    return rows


def read_utf8(path: Path, encoding: str = "utf-8-sig", what: str = "cannot read") -> Tuple[bytes, str]:
    """The file's bytes and text; unreadable files and bad UTF-8 are DataErrors naming the file (and line)."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        reason = (exc.strerror or str(exc)).lower()  # the message names the file once, not again in the errno text
        if path.is_dir():
            raise DataError(f"{what}: a folder, not a file", str(path), None,
                            "move the folder out, or rename it so that it does not end in .tsv") from exc
        raise DataError(f"{what}: {reason}", str(path), None, "check the path") from exc
    try:
        return raw, raw.decode(encoding)
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise DataError("not valid UTF-8", str(path), line, "re-save the file as UTF-8") from exc


# --------------------------------------------------------------------------- TSV I/O
def format_tsv(vs: VariationSet) -> str:
    head = [MAGIC]
    values = {
        "name": vs.name, "label": vs.label, "config": _canonical_config(vs.config),
        "seed": "none" if vs.seed is None else str(int(vs.seed)), "status": vs.status,
        "source": vs.source, "reason": vs.reason, "fingerprint": vs.fingerprint(),
    }
    for key in _HEADER_KEYS:
        head.append(f"# {key}: {escape_field(values[key])}")
    if vs.too_long is not None:
        head.append(f"# too_long: {escape_field(_canonical_config(vs.too_long))}")
    return "\n".join(head) + "\n" + vs.rows_tsv()


def write_tsv(vs: VariationSet, path: PathLike) -> None:
    """Write atomically (a crash never leaves half a file)."""
    atomic_write_text(path, format_tsv(vs))


def read_tsv(path: PathLike) -> VariationSet:
    path = Path(path)
    _, content = read_utf8(path, "utf-8", "cannot read variation set")
    lines = content.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    header: Dict[str, str] = {}
    i = 0
    while i < len(lines) and lines[i].startswith("#"):
        m = re.match(r"#\s*([a-z_]+):\s?(.*)$", lines[i].rstrip("\r"))
        if m and m.group(1) in _HEADER_KEYS + _OPTIONAL_KEYS:
            header[m.group(1)] = unescape_field(m.group(2))
        i += 1
    if i >= len(lines) or lines[i].rstrip("\r").split("\t") != list(COLUMNS):
        raise DataError(f"expected the column line {'<TAB>'.join(COLUMNS)!r}", str(path), i + 1,
                        "write variation sets with perturb.io.sets.write_tsv, or import RoDR files with import_rodr_tsv")
    if "name" not in header:
        raise DataError("header has no '# name:' line", str(path), 1, "add '# name: <SET NAME>' at the top")
    config = _header_json(header, "config", "{}", path, lines[:i])
    too_long = _header_json(header, "too_long", "null", path, lines[:i])
    seed_s = header.get("seed", "none")
    try:
        seed = None if seed_s in ("", "none", "None") else int(seed_s)
    except ValueError:
        lineno = next((k + 1 for k, l in enumerate(lines[:i]) if l.startswith("# seed:")), 1)
        raise DataError(f"seed {seed_s!r} is not an integer", str(path), lineno, "write '# seed: <int>' or '# seed: none'")
    qids, texts, applied, details = [], [], [], []
    seen: Dict[str, int] = {}
    for k in range(i + 1, len(lines)):
        line = lines[k]
        if line.endswith("\r"):
            raise DataError("line ends with a carriage return (CRLF file)", str(path), k + 1,
                            "convert the file to LF line endings (e.g. dos2unix)")
        parts = line.split("\t")
        if len(parts) != 4:
            raise DataError(f"expected 4 tab-separated fields (qid, text, applied, detail), found {len(parts)}",
                            str(path), k + 1, "escape tabs inside text as \\t, or regenerate the file")
        q, t, a, d = parts
        if a not in ("0", "1"):
            raise DataError(f"'applied' must be 0 or 1, found {a!r}", str(path), k + 1, "use 1 (changed) or 0 (unchanged)")
        q = unescape_field(q)
        if q in seen:
            raise DataError(f"query id {q!r} repeats line {seen[q]}", str(path), k + 1, "keep one row per query id")
        seen[q] = k + 1
        qids.append(q)
        texts.append(unescape_field(t))
        applied.append(a == "1")
        details.append(unescape_field(d))
    vs = VariationSet(name=header["name"], label=header.get("label", header["name"]), config=config, seed=seed,
                      qids=qids, texts=texts, applied=applied, details=details,
                      status=header.get("status") or "ok", reason=header.get("reason", ""),
                      source=header.get("source") or "generated", too_long=too_long)
    fp = header.get("fingerprint")
    if fp and fp != vs.fingerprint():
        lineno = next((k + 1 for k, l in enumerate(lines[:i]) if l.startswith("# fingerprint:")), 1)
        raise DataError("content does not match its fingerprint (edited or truncated?)", str(path), lineno,
                        "regenerate the set with `bench perturb`, or delete the fingerprint line to accept the edit")
    return vs


def _header_json(header: Dict[str, str], key: str, default: str, path: Path, head: List[str]):
    """The JSON value of header line ``key`` (``default`` when the line is absent or empty)."""
    try:
        return json.loads(header.get(key, default) or default)
    except json.JSONDecodeError as exc:
        lineno = next((k + 1 for k, l in enumerate(head) if l.startswith(f"# {key}:")), 1)
        raise DataError(f"{key} is not valid JSON ({exc.msg})", str(path), lineno,
                        f"fix or remove the '# {key}:' line") from exc


# --------------------------------------------------------------------------- a folder of sets
def set_file_name(name: str) -> str:
    """The file name of set ``name`` inside an output folder: ``bench.core.io.safe_name`` (no ``/``,
    no ``..`` path, no leading dot: the file is never hidden and never escapes the folder) + ``.tsv``.
    ``ramsrigouthamg/t5_paraphraser`` -> ``ramsrigouthamg_t5_paraphraser.tsv``."""
    return (safe_name(name, "set").lstrip(".") or "set") + ".tsv"


#: names a variation set may not have: the reference set and the rows the reports add
RESERVED_SET_NAMES = ("ORIGINAL", "VARIATIONS (AVG.)")


def set_name_problem(name: str, label: str = "") -> Optional[str]:
    """Why ``name`` (or its display ``label``) cannot name a variation set, or None: empty, or one
    of :data:`RESERVED_SET_NAMES` (also in another case or with the report's suffixes, e.g.
    ``VARIATIONS (AVG.) applied-only``), which a report would show as a second reference or
    average row."""
    for what, value in (("name", name), ("label", label)):
        if what == "name" and not str(value).strip():
            return "a variation set needs a name (empty)"
        v = " ".join(str(value).split()).upper()
        for reserved in RESERVED_SET_NAMES:
            if v == reserved or (reserved.startswith("VARIATIONS") and v.startswith(reserved.upper())):
                return (f"set {what} {value!r} is reserved ({reserved} is the "
                        f"{'reference set' if reserved == 'ORIGINAL' else 'average row of the reports'})")
    return None


def check_set_names(named: Sequence[Tuple[str, str, str]]) -> None:
    """Refuse variation sets (``(name, label, where)``: where = the set's file, or how it was made)
    whose name is reserved, or whose names are equal or become one file name once sanitised
    (:func:`set_file_name`, case-insensitive): the error names both sets, their sources and the file."""
    seen: Dict[str, Tuple[str, str]] = {}
    for name, label, where in named:
        problem = set_name_problem(name, label)
        if problem:
            raise DataError(problem, where, None, "rename the set (its name is the '# name:' line of the file; "
                            "`bench perturb --import-rodr --name NEW` for an import)")
        fname = set_file_name(name)
        key = fname.lower()
        if key in seen:
            other, other_where = seen[key]
            if other == name:
                msg = f"two variation sets are named {name!r}: {other_where} and {where}"
            else:
                msg = (f"variation sets {other!r} ({other_where}) and {name!r} ({where}) would both be written to "
                       f"variations/{fname}")
            raise DataError(msg, where, None, "rename one of the two sets, or move one out of the folder")
        seen[key] = (name, where)


def write_sets(sets: Sequence[VariationSet], out: PathLike) -> List[Tuple[VariationSet, Path]]:
    """Write every set with status "ok" into ``out`` under :func:`set_file_name`, read each back
    and check it is the same set. Two set names that sanitise to one file name are an error that
    names both (nothing is written then). Returns (set, path) for the sets written."""
    out = Path(out)
    by_file: Dict[str, str] = {}
    plan = []
    for vs in sets:
        if vs.status != "ok":
            continue
        problem = set_name_problem(vs.name, vs.label)
        if problem:
            raise DataError(problem, str(out / set_file_name(vs.name)), None, "give the set another name (--name)")
        fname = set_file_name(vs.name)
        key = fname.lower()  # also refuse names that differ in case only (case-insensitive file systems)
        if key in by_file:
            raise DataError(f"variation sets {by_file[key]!r} and {vs.name!r} would both be written to {fname}",
                            str(out / fname), None, "rename one of the two sets (e.g. --name), or import them "
                            "into different folders")
        by_file[key] = vs.name
        path = out / fname
        if path.resolve().parent != out.resolve():  # cannot happen with safe_name; kept as a guard
            raise DataError(f"set {vs.name!r} would be written outside {out}", str(path), None, "rename the set")
        plan.append((vs, path))
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for vs, path in plan:
        write_tsv(vs, path)
        back = read_tsv(path)
        if back != vs:
            raise DataError(f"set {vs.name!r} did not read back equal to what was written", str(path), None,
                            "report this as a bug")
        written.append((vs, path))
    return written


def read_sets(folder: PathLike) -> List[Tuple[Path, Optional[VariationSet], str]]:
    """Every ``*.tsv`` set in ``folder`` as (path, set or None, reason it is skipped). Files that are
    not variation sets, or sets whose status is not ok, are reported with the reason, never dropped
    silently."""
    out = []
    for path in sorted(Path(folder).glob("*.tsv")):
        try:
            vs = read_tsv(path)
        except DataError as exc:
            out.append((path, None, f"unreadable: {exc}"))
            continue
        if vs.status != "ok":
            out.append((path, vs, f"status {vs.status}: {vs.reason}"))
        elif not len(vs):
            out.append((path, vs, "no rows"))
        else:
            out.append((path, vs, ""))
    return out


def coverage(vs: VariationSet, judged: Sequence[str]) -> Tuple[int, str]:
    """(number of the set's query ids among ``judged``, reason it is skipped or ""): a set none of
    whose ids are judged queries of the dataset (a Penha ANTIQUE set on Cranfield) is skipped."""
    judged_set = set(judged)
    n = sum(1 for q in vs.qids if q in judged_set)
    if n == 0:
        return 0, f"none of its {len(vs)} query ids is a judged query of the dataset"
    return n, ""
