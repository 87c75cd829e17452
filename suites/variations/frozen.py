"""Frozen variation sets (``--variations``) aligned on a dataset's judged queries."""
from __future__ import annotations

from typing import List

from bench.core.errors import BenchError
from perturb.io.sets import VariationSet


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
