"""The dataset model: documents, queries (with optional class labels), qrels, and the natural
order of ids."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from bench.core.io import sha256_hex


@dataclass(frozen=True)
class Doc:
    title: str
    text: str

    def full_text(self) -> str:
        """The text a dense encoder sees: title and body joined by a space (BEIR convention)."""
        if self.title and self.text:
            return f"{self.title} {self.text}"
        return self.title or self.text


@dataclass(frozen=True)
class Query:
    text: str
    label: Optional[str] = None  # class label (few-shot suite); None when unknown


@dataclass
class Dataset:
    name: str
    corpus: Dict[str, Doc]
    queries: Dict[str, Query]
    qrels: Dict[str, Dict[str, int]]
    split: str = "test"
    source: str = ""
    notes: List[str] = field(default_factory=list)
    _fingerprint: Optional[str] = field(default=None, repr=False, compare=False)

    def judged_query_ids(self) -> List[str]:
        """Query ids with at least one judgment of grade > 0, in natural order."""
        return sorted((q for q in self.queries if any(g > 0 for g in self.qrels.get(q, {}).values())), key=natural_key)

    def doc_ids(self) -> List[str]:
        return list(self.corpus)

    def fingerprint(self) -> str:
        """SHA-256 of the canonical content: corpus, queries (with labels) and qrels."""
        if self._fingerprint is None:
            import hashlib

            h = hashlib.sha256()
            for did, doc in self.corpus.items():
                h.update(sha256_hex("doc", did, doc.title, doc.text).encode())
            for qid in sorted(self.queries):
                q = self.queries[qid]
                h.update(sha256_hex("query", qid, q.text, q.label or "").encode())
            for qid in sorted(self.qrels):
                for did in sorted(self.qrels[qid]):
                    h.update(sha256_hex("qrel", qid, did, str(self.qrels[qid][did])).encode())
            self._fingerprint = h.hexdigest()
        return self._fingerprint

    def describe(self) -> dict:
        return {
            "name": self.name,
            "fingerprint": self.fingerprint(),
            "split": self.split,
            "n_docs": len(self.corpus),
            "n_queries": len(self.queries),
            "n_judged_queries": len(self.judged_query_ids()),
            "n_qrels": sum(len(v) for v in self.qrels.values()),
        }


def natural_key(s: str) -> Tuple:
    """Sort '2' before '10' and keep non-numeric ids in string order."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", s) if p != "")


# --------------------------------------------------------------------------------------------
# line readers with validation
