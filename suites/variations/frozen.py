"""Frozen variation sets (``--variations``) aligned on a dataset's judged queries."""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from bench.core.errors import BenchError
from perturb import PAPER_ORDER
from perturb.io.sets import VariationSet, check_set_names, read_tsv


def align(vs, qids: List[str], texts: List[str]):
    """A frozen/imported set on the dataset's judged queries: queries it lacks keep their text."""
    by_qid = {q: (t, a, d) for q, t, a, d in zip(vs.qids, vs.texts, vs.applied, vs.details)}
    judged = set(qids)
    unknown = [q for q in by_qid if q not in judged]
    missing = [q for q in qids if q not in by_qid]
    out_t, out_a, out_d = [], [], []
    for q, orig in zip(qids, texts):
        t, a, d = by_qid.get(q, (orig, False, ""))
        try:
            t.encode("utf-8")
        except UnicodeEncodeError as exc:  # a \\uD800 escape in the file: a lone surrogate, no text can hold it
            raise BenchError(f"{vs.name}: query {q!r} holds a lone surrogate code point "
                             f"({t[exc.start:exc.end].encode('unicode_escape').decode()}), which is not text. Fix: "
                             f"remove the escape from the file or make the set again (bench perturb)") from None
        if not a and t != orig:  # an unchanged row holds the original text the set was made from
            raise BenchError(f"{vs.name}: query {q!r} is marked not applied, but its text {t[:60]!r} is not the "
                             f"dataset's {orig[:60]!r} ({stale_rows(by_qid, qids, texts)} such rows): the set was made from "
                             f"other query texts. Fix: make the sets on this dataset (bench perturb --dataset ...), or "
                             f"evaluate the dataset they were made on")
        out_t.append(t)
        out_a.append(bool(a) and t != orig)
        out_d.append(d if t != orig else "")
    aligned = VariationSet(name=vs.name, label=vs.label, config=dict(vs.config), seed=vs.seed, qids=list(qids),
                           texts=out_t, applied=out_a, details=out_d, status=vs.status, reason=vs.reason,
                           source=vs.source)
    return aligned, unknown, missing


def stale_rows(by_qid, qids, texts) -> int:
    return sum(1 for q, orig in zip(qids, texts) if q in by_qid and not by_qid[q][1] and by_qid[q][0] != orig)


def read_frozen(folder: Path, qids: List[str], texts: List[str], names: Optional[Sequence[str]], timer):
    """The sets of ``folder`` (``--variations``), aligned on the judged queries, in the paper's order
    then by name; ``names`` (``--generators``) chooses among them (:func:`chosen_sets`). Returns the
    sets and the notes (query ids ignored, queries missing)."""
    sets: List[VariationSet] = []
    notes: List[str] = []
    files = sorted(folder.glob("*.tsv"))
    if not files:
        raise BenchError(f"{folder}: no variation sets (*.tsv) found. Write them with `bench perturb`.")
    rank = {n: i for i, n in enumerate(PAPER_ORDER)}
    named: List[Tuple[str, str, str]] = []
    for path in sorted(files, key=lambda p: (rank.get(p.stem, len(rank)), p.stem)):
        with timer("variations_read"):
            frozen = read_tsv(path)  # its errors name the file
            try:
                vs, unknown, missing = align(frozen, qids, texts)
            except BenchError as exc:
                raise BenchError(f"{path}: {exc}") from None
        named.append((vs.name, vs.label, str(path)))
        check_set_names(named)  # reserved, equal or one file name: the error names both sets and files
        if unknown:
            notes.append(f"{path.name}: {len(unknown)} query ids not among the dataset's judged queries ignored")
        if missing:
            notes.append(f"{path.name}: {len(missing)} of {len(qids)} judged queries are not in the set; they keep "
                         f"their original text and count as not applied")
        sets.append(vs)
    return chosen_sets(sets, names, folder), notes


def chosen_sets(sets: List[VariationSet], names: Optional[Sequence[str]], folder: Path) -> List[VariationSet]:
    """The frozen sets ``names`` (``--generators`` with ``--variations``: the sets of
    the folder to evaluate, matched by set name, case-insensitively); None: every set of the folder.
    A name no set of the folder has is an error listing the sets there."""
    if names is None:
        return sets
    have = {vs.name.casefold(): vs.name for vs in sets}
    missing = [n for n in names if n.casefold() not in have]
    if missing:
        raise BenchError(f"--generators {','.join(missing)}: no such set in the --variations folder {folder} (sets "
                         f"there: {', '.join(have.values()) or 'none'}). Fix: name sets of the folder, or leave out "
                         f"--generators to evaluate all of them")
    wanted = {n.casefold() for n in names}
    return [vs for vs in sets if vs.name.casefold() in wanted]
