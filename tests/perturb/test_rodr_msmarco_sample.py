"""The RoDR authors' MS MARCO passage dev (small) variation sets (docs/msmarco.md): the first 200
lines of each of their eight files imported with ``bench perturb --import-rodr``, measured, and
evaluated with ``bench evaluate --variations`` on a tiny BEIR folder made from those queries."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.perturb.perturb_helpers import shared_folder

#: drbench's set name -> the file stem of the authors' set (queries.dev.small.<stem>.tsv)
FILES = {"MISSPELL": "MisSpell", "EXTRAPUNC": "ExtraPunc", "BACKTRANS": "BackTrans",
         "SWAPSYN-GLOVE": "SwapSyn_Glove", "SWAPSYN-WNET": "SwapSyn_WNet", "TRANSTENSE": "TransTense",
         "NOSTOPWORD": "NoStopword", "SWAPWORDS": "SwapWords"}
N = 200


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    """(folder of the eight sample files, BEIR folder of their originals, qids in file order)."""
    src = shared_folder("rodr-msmarco-dev")
    if src is None:
        pytest.skip("shared/data/rodr-msmarco-dev (the RoDR authors' MS MARCO dev variation sets) is not beside "
                    "the repository")
    root = tmp_path_factory.mktemp("rodr-msmarco")
    files = root / "authors"
    files.mkdir()
    for stem in FILES.values():
        name = f"queries.dev.small.{stem}.tsv"
        with open(src / name, encoding="utf-8", newline="") as fh:
            head = [next(fh) for _ in range(N)]
        (files / name).write_text("".join(head), encoding="utf-8")
    # the originals: each ExtraPunc text without the run of marks ExtraPunc appended, the query's own
    # trailing marks (one query in eleven ends with some, e.g. "is cortana smart???") told by TRANSTENSE's
    # text (benchmarks/rodr_reference.py's rule)
    from benchmarks.rodr_reference import original_of

    rows = _rows(files / "queries.dev.small.ExtraPunc.tsv")
    keep = dict(_rows(files / "queries.dev.small.TransTense.tsv"))
    originals = {q: original_of(t, [keep[q]]) for q, t in rows}
    assert all(t.startswith(originals[q]) and 1 <= len(t) - len(originals[q]) <= 3 for q, t in rows)
    from tests.conftest import write_beir

    docs = {f"p{q}": ("", f"{t} is answered in this passage") for q, t in originals.items()}
    beir = write_beir(root / "beir", docs, {q: (t, None) for q, t in originals.items()},
                      [(q, f"p{q}", 1) for q in originals], split="dev")
    return files, beir, [q for q, _ in rows], originals


@pytest.mark.parametrize("extrapunc, keeper, want", [
    ("what is paranoid sc!", "what is paranoid sc", "what is paranoid sc"),
    ("who starred in movie reckless?,,", "who stars in movie reckless?", "who starred in movie reckless?"),
    ("what is x????", "what was x?", "what is x?"),  # 3 marks appended to the query's own "?"
    ("what is x????", "what was x??", "what is x??"),
    ("what do swans like to eat??!!", "what does swans like to eat??", "what do swans like to eat??"),
    ("temperature in terryville.?", "temperature in terryville.", "temperature in terryville."),
    ("a b...", "b a", "a b"),
    ("a b...", "b a,", "a b"),  # no keeper fits: the longest cut
])
def test_original_of_an_extrapunc_text(extrapunc, keeper, want):
    from benchmarks.rodr_reference import original_of

    assert original_of(extrapunc, [keeper]) == want
    assert original_of(extrapunc, ["x!", keeper]) == want  # a keeper whose marks fit no cut is passed over


def test_original_of_needs_appended_marks():
    from benchmarks.rodr_reference import original_of

    with pytest.raises(ValueError, match="without appended marks"):
        original_of("what is x", ["what is x"])


def _rows(path: Path) -> list:
    return [line.split("\t", 1) for line in path.read_text(encoding="utf-8").splitlines()]


def test_import_measure_and_evaluate_the_authors_sets(sample, tmp_path, capsys):
    from bench.cli.main import main
    from perturb import PAPER_ORDER
    from perturb.checks.substance import touched
    from perturb.io.sets import read_tsv

    files, beir, qids, originals = sample
    variations = tmp_path / "variations"
    variations.mkdir()
    measured = {}
    for name, stem in FILES.items():
        out = tmp_path / "imports" / name
        assert main(["perturb", "--dataset", str(beir), "--split", "dev", "--import-rodr",
                     str(files / f"queries.dev.small.{stem}.tsv"), "--name", name, "--out", str(out)]) == 0
        vs = read_tsv(out / f"{name}.tsv")
        assert vs.name == name and vs.qids == qids and len(vs) == N  # aligned to the originals, in file order
        assert vs.config["compared_with_originals"] is True
        changed = [i for i, a in enumerate(vs.applied) if a]
        assert all(vs.texts[i] != originals[vs.qids[i]] for i in changed)
        assert all(vs.texts[i] == originals[vs.qids[i]] for i in range(N) if i not in changed)
        words = sum(len(touched(originals[vs.qids[i]], vs.texts[i])) for i in changed)
        measured[name] = (len(changed), words)
        shutil.copy(out / f"{name}.tsv", variations / f"{name}.tsv")
    # queries changed of 200, and the original words the changes touch (perturb.checks.substance.touched)
    assert measured == MEASURED, measured
    shares = {n: c / N for n, (c, _) in measured.items()}
    per_changed = {n: w / c for n, (c, w) in measured.items()}
    assert shares["TRANSTENSE"] == min(shares.values()) >= 0.3  # a tense needs a verb; every other set > 0.8
    assert all(s > 0.8 for n, s in shares.items() if n != "TRANSTENSE")
    assert per_changed["EXTRAPUNC"] == 0  # marks only: no word is touched
    # one word per query (a case-only or inserted-word edit touches none), several stop words, swapped pairs
    assert all(0.8 <= per_changed[n] <= 1.05 for n in ("MISSPELL", "SWAPSYN-GLOVE", "SWAPSYN-WNET", "TRANSTENSE"))
    assert per_changed["NOSTOPWORD"] > 2 and 1 < per_changed["SWAPWORDS"] < 2
    capsys.readouterr()

    run = tmp_path / "run"
    assert main(["evaluate", "--model", "bm25", "--dataset", str(beir), "--split", "dev", "--variations",
                 str(variations), "--no-progress", "--out", str(run)]) == 0
    result = json.loads((run / "result.json").read_text(encoding="utf-8"))
    sets = {s["name"]: s for s in result["sets"]}
    assert list(sets) == ["ORIGINAL", *PAPER_ORDER]
    assert all(sets[n]["status"] == "ok" and sets[n]["n_applied"] == measured[n][0] for n in FILES)
    rr = {n: s["metrics"]["MRR@10"] for n, s in sets.items()}
    assert rr["ORIGINAL"] == 1.0  # each query's passage holds its own text
    # BM25 scores a stemmed bag of words without stop words: marks, tense, dropped stop words and word
    # order leave each query's own passage first; misspellings, synonyms and back-translations do not
    assert {n for n in FILES if rr[n] == 1.0} == {"EXTRAPUNC", "TRANSTENSE", "NOSTOPWORD", "SWAPWORDS"}, rr
    assert min(rr.values()) == rr["MISSPELL"] > 0.9


#: measured on the first 200 lines: (queries changed, original words touched); in the comments the share
#: changed and the words per changed query
MEASURED = {
    "MISSPELL": (200, 198),  # 1.000, 0.99
    "EXTRAPUNC": (200, 0),  # 1.000, 0.00
    "BACKTRANS": (184, 186),  # 0.920, 1.01
    "SWAPSYN-GLOVE": (167, 168),  # 0.835, 1.01
    "SWAPSYN-WNET": (181, 160),  # 0.905, 0.88
    "TRANSTENSE": (63, 63),  # 0.315, 1.00
    "NOSTOPWORD": (181, 455),  # 0.905, 2.51
    "SWAPWORDS": (200, 307),  # 1.000, 1.53
}


def test_touched_word_pairs_and_their_kinds():
    """benchmarks/rodr_reference.py's word pairs (touched() counts them) and the kind of each."""
    from benchmarks.rodr_reference import aligned, category, touched

    orig, back = "tension headaches treatment", "Treatment of headaches of tension"
    pairs = aligned(orig, back)
    assert [(i, w) for i, w, _ in pairs] == [(i, w) for i, w, _ in touched(orig, back)]
    assert aligned("what is paula deen's brother", "What is Paula Deen's brother") == \
        [(0, "what", "What"), (2, "paula", "Paula"), (3, "deen", "Deen")]
    assert aligned("define x", "It defines x") == [(0, "define", "It"), (0, "", "defines")]

    def kind(w, v, a="", b="", marked=()):
        return category(w, v, a.split(), b.split(), set(marked))

    assert kind("what", "What") == "case only"
    assert kind("s", "is") == "contraction"
    assert kind("hoboken", "hobokn", marked={"hobokn"}) == "marked unknown"
    assert kind("", "the") == "article/determiner"
    assert kind("define", "defines") == "morphology"
    assert kind("tension", "headaches", "tension headaches", "headaches of tension") == "word order"
    assert kind("", "xqzvbt") == "not English"
    assert kind("does", "") == "deleted" and kind("", "of") == "inserted" and kind("what", "which") == "substituted"
