"""benchmarks/lexsub/blind.py: the scoring arithmetic (tallies per set and style, pooled per set,
Wilson intervals), the labels file's errors, the listing's blindness and the merge into a labelled set."""
from __future__ import annotations

import pytest

from bench.core.errors import DataError
from bench.evaluation.intervals import wilson_ci
from benchmarks.lexsub import blind
from perturb.checks.devset import COLUMNS, read_devset


def _key(item, name, style, qid="q1"):
    return {"item": item, "set": name, "style": style, "qid": qid, "original": f"orig {item}",
            "variation": f"var {item}", "detail": "n:'a'->'b' (score 0.9; lemma b)", "score": "0.9000"}


G, W = "SWAPSYN-GLOVE", "SWAPSYN-WNET"
# b1 is drawn by both sets; b4 is not labelled
KEY = [_key("b1", G, "chat-question"), _key("b1", W, "chat-question"), _key("b2", G, "chat-question", "q2"),
       _key("b3", G, "long-question", "7"), _key("b4", W, "long-question", "8"), _key("b5", W, "long-question", "9")]
LABELS = {"b1": (True, "same need"), "b2": (False, "other sense"), "b3": (True, "ok"), "b5": (False, "broken term")}


def test_tally_counts_a_shared_pair_for_each_set_and_pools_per_set():
    counts = blind.tally(KEY, LABELS)
    assert counts[(G, "chat-question")] == [1, 2]
    assert counts[(G, "long-question")] == [1, 1]
    assert counts[(G, "all")] == [2, 3]
    assert counts[(W, "chat-question")] == [1, 1]
    assert counts[(W, "long-question")] == [0, 1]  # b4 not labelled: left out, not counted invalid
    assert counts[(W, "all")] == [1, 2]


def test_validity_rows_order_and_wilson_interval():
    rows = blind.validity_rows(blind.tally(KEY, LABELS))
    assert [(s, st) for s, st, *_ in rows] == [(G, "chat-question"), (G, "long-question"), (G, "all"),
                                               (W, "chat-question"), (W, "long-question"), (W, "all")]
    s, st, n, k, lo, hi = rows[2]
    assert (n, k) == (3, 2) and (lo, hi) == wilson_ci(2, 3)
    assert 0 < lo < 2 / 3 < hi < 1
    table = blind.validity_table(rows, "labels.tsv")
    assert "| SWAPSYN-GLOVE | **pooled** | 3 | 2 | 66.7% |" in table


def test_overlap_counts_queries_both_sets_change_and_those_changed_alike():
    from perturb.base import Perturbation

    def p(text, applied=True):
        return Perturbation(text, applied, "n:'a'->'b'" if applied else "")

    made = {"s1": {G: [p("a x"), p("b y"), p("c", False), p("d z")], W: [p("a x"), p("b w"), p("c z"), p("d", False)]},
            "s2": {G: [p("e", False)], W: [p("f v")]}}
    assert blind.overlap_rows(made) == [("s1", 2, 1), ("s2", 0, 0), ("**pooled**", 2, 1)]


def test_an_empty_cell_shows_a_dash_not_nan():
    lo, hi = wilson_ci(2, 3)
    assert blind._interval(2, 3) == f"{100 * lo:.1f}-{100 * hi:.1f}%"
    assert blind._interval(0, 0) == "-" and blind._pct(0, 0) == "-"
    table = blind.still_table({(G, "s1"): [5, 0, 0], (G, "all"): [5, 0, 0]}, "blind.py still")
    assert "nan" not in table and "| SWAPSYN-GLOVE | s1 | 0 | 0 | - | - | 5 |" in table


def test_labels_errors_name_the_line(tmp_path):
    bad = tmp_path / "labels.tsv"
    bad.write_text("item\tvalid\treason\nb1\t1\tok\nb2\tyes\tok\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"labels.tsv:3: valid is 'yes'"):
        blind.read_labels(bad, {"b1", "b2"})
    bad.write_text("item\tvalid\treason\nb9\t1\tok\n", encoding="utf-8")
    with pytest.raises(DataError, match="not in the key"):
        blind.read_labels(bad, {"b1"})
    bad.write_text("item\tvalid\treason\nb1\t1\tok\nb1\t0\tno\n", encoding="utf-8")
    with pytest.raises(DataError, match="labelled twice"):
        blind.read_labels(bad, {"b1"})
    bad.write_text("item\treason\nb1\tok\n", encoding="utf-8")
    with pytest.raises(DataError, match="lacks valid"):
        blind.read_labels(bad, {"b1"})


def test_listing_is_blind_and_lists_a_shared_pair_once():
    mk = lambda name, style, qid, o, v: blind.Swap(name, style, qid, o, v, f"n:'x'->'y' (score 0.8{qid}; lemma y)")
    drawn = [mk(G, "chat-question", "1", "a b", "a c"), mk(W, "chat-question", "1", "a b", "a c"),
             mk(W, "long-question", "2", "d e", "d f")]
    rows, key = blind.listing(drawn, 4711)
    assert sorted(r[1:] for r in rows) == [("a b", "a c"), ("d e", "d f")]
    assert all(len(r) == 3 for r in rows)  # item, original, variation: no set, style or score
    shared = [k for k in key if k[4] == "a b"]
    assert {k[1] for k in shared} == {G, W} and len({k[0] for k in shared}) == 1
    assert blind.listing(drawn, 4711) == (rows, key)


def test_merge_replaces_only_the_blind_rows(tmp_path):
    path = tmp_path / f"{G}.tsv"
    other = "\t".join([G, "chat-question", "q9", "x", "y", "d", "", "held", "1", "r", "ceiling-sample"])
    path.write_text("\t".join(COLUMNS) + "\n" + other + "\n", encoding="utf-8")
    for _ in range(2):  # scoring twice leaves one copy of the blind rows
        blind.merge_into(path, blind.devset_rows(KEY, LABELS, G))
    rows = read_devset(path)
    assert path.read_text(encoding="utf-8").splitlines()[1] == other
    blinds = [r for r in rows if r.provenance == blind.PROVENANCE]
    assert sorted((r.qid, r.valid, r.reason) for r in blinds) == [("7", True, "ok"), ("q1", True, "same need"),
                                                                  ("q2", False, "other sense")]


def test_still_counts_only_the_pairs_the_shipped_set_makes_now(tmp_path):
    """A labelled pair counts when the set's pick on its original is that variation; a pair it no longer
    makes (here: a variation the set never made) is labelled but not still made, whatever its label."""
    from perturb import make

    text = "cheap flights to paris from london"
    now = make(G).perturb_batch([("q", text)], 0)[0]
    assert now.applied
    folder = tmp_path / "sample"
    folder.mkdir()
    key = [dict(_key("b1", G, "msmarco-question"), original=text, variation=now.text),
           dict(_key("b2", G, "msmarco-question", "q2"), original=text, variation="cheap flights to rome from london"),
           dict(_key("b3", W, "msmarco-question", "q3"), original=text, variation="inexpensive flights to paris from london")]
    blind.write_tsv(folder / "key.tsv", blind.KEY_COLUMNS, [[r[c] for c in blind.KEY_COLUMNS] for r in key])
    blind.write_tsv(folder / "labels.tsv", blind.LABEL_COLUMNS, [("b1", "0", "x"), ("b2", "1", "y"), ("b3", "1", "z")])
    counts = blind.still_made([folder])
    assert counts[(G, "sample")] == [2, 1, 0] and counts[(G, "all")] == [2, 1, 0]  # b1 made, labelled invalid
    wnet = make(W).perturb_batch([("q", text)], 0)[0]
    made = int(wnet.applied and wnet.text == "inexpensive flights to paris from london")
    assert counts[(W, "all")] == [1, made, made]
    table = blind.still_table(counts, "cmd")
    assert f"| {G} | **pooled** | 1 | 0 | 0.0% |" in table and "`cmd`" in table


def test_claim_sentences_are_a_seeded_draw_of_bounded_abstract_sentences():
    from tests.conftest import CRANFIELD

    if not CRANFIELD.exists():
        pytest.skip("shared Cranfield collection not present")
    got = blind.claim_sentences()
    assert got == blind.claim_sentences() and len(got) == blind.CLAIM_POOL
    assert len({q for q, _ in got}) == len(got)
    lo, hi = blind.CLAIM_WORDS
    for qid, text in got:
        doc, k = qid.split(":")
        assert int(k) >= 1 and lo <= len(text.split()) <= hi and not text.endswith(".")
    assert blind.claim_sentences(seed=1) != got and len(blind.claim_sentences(n=5)) == 5
    docs = {q.split(":")[0] for q, _ in got}
    second = blind.claim_sentences(seed=blind.SEED + 1, skip_docs=docs)
    assert len(second) == blind.CLAIM_POOL and not docs & {q.split(":")[0] for q, _ in second}


def test_dictionary_sentences_are_a_seeded_draw_of_clean_example_sentences():
    from perturb.resources.freedict import ENG_DEU, folder_of

    if not (folder_of() / f"{ENG_DEU}.dict.dz").is_file():
        pytest.skip("FreeDict English-German dictionary not installed")
    got = blind.dictionary_sentences()
    assert got == blind.dictionary_sentences() and len(got) == blind.CLAIM_POOL
    assert len({q for q, _ in got}) == len(got) and all(q.startswith("fd:") for q, _ in got)
    lo, hi = blind.CLAIM_WORDS
    for _, text in got:
        assert text.isascii() and text[0].isupper() and text.endswith(".") and lo <= len(text.split()) <= hi
        assert not any(c in text[:-1] for c in '.!?;"/()[]')
    assert blind.dictionary_sentences(seed=1) != got and len(blind.dictionary_sentences(n=5)) == 5
    second = blind.dictionary_sentences(seed=blind.SEED + 1, skip={t for _, t in got})
    assert len(second) == blind.CLAIM_POOL and not {t for _, t in got} & {t for _, t in second}


def test_claim_sentence_3_is_every_sentence_of_the_abstracts_neither_draw_touches():
    from tests.conftest import CRANFIELD

    if not CRANFIELD.exists():
        pytest.skip("shared Cranfield collection not present")
    got = blind.collections()
    drawn = {q.split(":")[0] for s in ("claim-sentence", "claim-sentence-2") for q, _ in got[s]}
    third = got["claim-sentence-3"]
    assert third and not drawn & {q.split(":")[0] for q, _ in third}
    assert len(third) == sum(q.split(":")[0] not in drawn for q, _ in blind.abstract_sentences())
    assert blind.FAMILIES["claim-sentence-3"] == blind.FAMILIES["claim-sentence"]
    longer = got["claim-sentence-long"]
    assert len(longer) == blind.LONG_POOL and not {q for q, _ in longer} & {q for q, _ in blind.abstract_sentences()}
    lo, hi = blind.LONG_CLAIM_WORDS
    assert all(lo <= len(t.split()) <= hi for _, t in longer)


def test_merge_lists_each_set_pair_once_keeping_the_first_folder_row(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    for folder, rows in ((first, [_key("b1", G, "claim-sentence-3"), _key("b2", W, "claim-sentence-3")]),
                         (second, [dict(_key("b7", G, "claim-sentence-3"), original="orig b1", variation="var b1",
                                        detail="n:'a'->'c' (score 0.8; lemma c)"),
                                   _key("b8", G, "msmarco-question")])):
        folder.mkdir()
        (folder / "sample.md").write_text(f"# {folder.name}\n", encoding="utf-8")
        blind.write_tsv(folder / "key.tsv", blind.KEY_COLUMNS, [[r[c] for c in blind.KEY_COLUMNS] for r in rows])
    out = tmp_path / "merged"
    assert blind.merge([first, second], 4711, out, "cmd") == 0
    key = [r for _, r in blind.read_table(out / "key.tsv", blind.KEY_COLUMNS, "")]
    assert sorted((r["set"], r["original"]) for r in key) == [(G, "orig b1"), (G, "orig b8"), (W, "orig b2")]
    assert next(r for r in key if r["original"] == "orig b1")["detail"].endswith("(score 0.9; lemma b)")
    listing = [r for _, r in blind.read_table(out / "listing.tsv", ("item", "original", "variation"), "")]
    assert sorted(r["original"] for r in listing) == ["orig b1", "orig b2", "orig b8"]
    assert "`cmd`" in (out / "sample.md").read_text(encoding="utf-8")
