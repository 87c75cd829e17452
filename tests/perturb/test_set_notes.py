"""perturb.io.generation.set_notes: the lines a run prints and records about its generated sets: the paper
protocol's deviations, and a validated set's measured shortfall (its spec's caveat), whose figures
are the committed blind measurement's."""
import re
from pathlib import Path

from perturb.io.generation import set_notes
from perturb.rodr.protocol import TEXTFLINT_DEVIATIONS

ROOT = Path(__file__).resolve().parents[2]


#: the shipped sets' output on the held-out pools (the queries of blind7 to blind11, held out of every fit), every
#: changed query labelled: `python benchmarks/lexsub/blind.py census ...`
CENSUS = "swapsyn_census.md"


def _held_out_rows():
    """set -> 'k of n = v% (Wilson 95% lo-hi)' from the pooled rows of :data:`CENSUS` in benchmarks/results
    (recomputed from its counts: labelled, valid)."""
    from bench.evaluation.intervals import wilson_ci

    out = {}
    text = (ROOT / "benchmarks" / "results" / CENSUS).read_text(encoding="utf-8")
    assert all(f"blind-chooser-{i}" in text for i in (7, 8, 9, 10, 11))
    for name in ("SWAPSYN-GLOVE", "SWAPSYN-WNET"):
        got = re.search(rf"^\| {name} \| \*\*pooled\*\* \| \d+ \| (\d+) \| (\d+) \| (\d+) \|", text, re.M)
        changed, n, k = (int(g) for g in got.groups())
        assert n >= changed - 1  # a census: at most one changed query without a label
        lo, hi = wilson_ci(k, n)
        out[name] = f"{k} of {n} = {100 * k / n:.1f}% (Wilson 95% {100 * lo:.1f}-{100 * hi:.1f}%)"
    return out


def test_synonym_caveats_carry_the_committed_blind_measurement():
    rows = _held_out_rows()
    assert set(rows) == {"SWAPSYN-GLOVE", "SWAPSYN-WNET"}
    notes = set_notes(["MISSPELL", "SWAPSYN-GLOVE", "SWAPSYN-WNET", "TRANSTENSE"])
    assert len(notes) == 2
    for name, note in zip(("SWAPSYN-GLOVE", "SWAPSYN-WNET"), notes):
        assert note.startswith(f"{name}: ") and rows[name] in note


def test_sets_without_a_caveat_and_unknown_names_add_nothing():
    assert set_notes(["ORIGINAL", "MISSPELL", "EXTRAPUNC", "NOSTOPWORD", "SWAPWORDS", "MY-OWN-SET"]) == []


def test_the_paper_protocol_notes_are_its_deviations():
    names = ["MISSPELL", "EXTRAPUNC", "SWAPSYN-GLOVE"]
    assert set_notes(names, "rodr") == [TEXTFLINT_DEVIATIONS["MISSPELL"], TEXTFLINT_DEVIATIONS["SWAPSYN-GLOVE"]]
