"""perturb.resources.memo: the generators' per-word memos are bounded and forget the oldest first."""
import re
from pathlib import Path

import pytest

from perturb.resources.memo import Memo

ROOT = Path(__file__).resolve().parents[2]


def test_a_memo_keeps_at_most_its_size_and_forgets_the_oldest():
    m = Memo(3)
    for k in "abcd":
        m[k] = k.upper()
    assert list(m) == ["b", "c", "d"] and len(m) == 3
    assert m.setdefault("e", 1) == 1 and "b" not in m and m.setdefault("e", 2) == 1
    m.update({"x": 0, "y": 0})
    assert len(m) == 3 and list(m)[-2:] == ["x", "y"]
    with pytest.raises(ValueError):
        Memo(0)


def test_get_or_compute_computes_once_per_kept_key():
    m, calls = Memo(2), []

    def f(k):
        calls.append(k)
        return k * 2

    assert m.get_or_compute("a", lambda: f("a")) == "aa" and m.get_or_compute("a", lambda: f("b")) == "aa"
    assert calls == ["a"]
    m.get_or_compute("b", lambda: f("b")), m.get_or_compute("c", lambda: f("c"))  # "a" is forgotten
    assert m.get_or_compute("a", lambda: f("a")) == "aa" and calls == ["a", "b", "c", "a"] and len(m) == 2


def test_no_module_level_memo_is_an_unbounded_dict():
    """A module-level ``_NAME = {}`` in perturb is a memo that grows without end; tables that are
    filled once (a resource read whole) say so in their name."""
    kept = {"_TABLES", "_CONTENT_SHA", "_WN_META", "_SHA_MEMO", "_SHA", "_FOUND", "_INDEX"}
    found = []
    for path in (ROOT / "perturb").rglob("*.py"):
        for m in re.finditer(r"^(_[A-Z_]+)(?:: [^=\n]*)? = (?:\{\}|dict\(\))", path.read_text(encoding="utf-8"), re.M):
            if m.group(1) not in kept:
                found.append(f"{path.relative_to(ROOT)}: {m.group(1)}")
    assert found == [], "use perturb.resources.memo.Memo: " + ", ".join(found)
