"""perturb.io.generation.set_notes: the lines a run prints and records about its generated sets: the paper
protocol's deviations, and a validated set's measured shortfall (its spec's caveat), whose figures
are the committed blind measurement's."""
import re
from pathlib import Path

from perturb.io.generation import set_notes
from perturb.rodr.protocol import TEXTFLINT_DEVIATIONS

ROOT = Path(__file__).resolve().parents[2]


#: the shipped sets' output on the held-out pools (the queries of blind7 to blind11 and blind14, the long abstract
#: sentences and dictionary example sentences of blind17 and blind18, held out of every fit), every changed query labelled:
#: `python benchmarks/lexsub/blind.py census ...`
CENSUS = "swapsyn_census.md"
#: the census's styles a caveat names: (style row, the caveat's words)
STYLES = (("msmarco-question", "MS MARCO questions"), ("claim-sentence-long", "long abstract sentences"),
          ("dictionary-sentence-2", "dictionary example sentences"))


def _held_out_rows():
    """set -> (pooled 'k of n = v% (Wilson 95% lo-hi', [per-style 'words k of n']) from the rows of :data:`CENSUS` in
    benchmarks/results (recomputed from its counts: labelled, valid)."""
    from bench.evaluation.intervals import wilson_ci

    out = {}
    text = (ROOT / "benchmarks" / "results" / CENSUS).read_text(encoding="utf-8")
    assert all(f"blind-chooser-{i}" in text for i in (7, 8, 9, 10, 11, 14, 17, 18))

    def row(name, style):
        got = re.search(rf"^\| {name} \| {re.escape(style)} \| \d+ \| (\d+) \| (\d+) \| (\d+) \|", text, re.M)
        changed, n, k = (int(g) for g in got.groups())
        assert n >= changed - 1  # a census: at most one changed query without a label
        return n, k

    for name in ("SWAPSYN-GLOVE", "SWAPSYN-WNET"):
        n, k = row(name, "**pooled**")
        lo, hi = wilson_ci(k, n)
        styles = [f"{words} {k} of {n}" for (style, words) in STYLES for n, k in [row(name, style)]]
        out[name] = (f"{k} of {n} = {100 * k / n:.1f}% (Wilson 95% {100 * lo:.1f}-{100 * hi:.1f}%", styles)
    return out


def test_synonym_caveats_carry_the_committed_blind_measurement():
    rows = _held_out_rows()
    assert set(rows) == {"SWAPSYN-GLOVE", "SWAPSYN-WNET"}
    notes = set_notes(["MISSPELL", "SWAPSYN-GLOVE", "SWAPSYN-WNET", "TRANSTENSE"])
    assert len(notes) == 2
    for name, note in zip(("SWAPSYN-GLOVE", "SWAPSYN-WNET"), notes):
        pooled, styles = rows[name]
        assert note.startswith(f"{name}: ") and pooled in note and all(s in note for s in styles)


def test_sets_without_a_caveat_and_unknown_names_add_nothing():
    assert set_notes(["ORIGINAL", "MISSPELL", "EXTRAPUNC", "NOSTOPWORD", "SWAPWORDS", "MY-OWN-SET"]) == []


def test_the_paper_protocol_notes_are_its_deviations():
    names = ["MISSPELL", "EXTRAPUNC", "SWAPSYN-GLOVE"]
    assert set_notes(names, "rodr") == [TEXTFLINT_DEVIATIONS["MISSPELL"], TEXTFLINT_DEVIATIONS["SWAPSYN-GLOVE"]]
