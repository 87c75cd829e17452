"""`--model bm25` is the field's BM25 (Anserini's defaults: Lucene's English analysis with the
Porter stemmer, k1 0.9, b 0.4); the earlier unstemmed one stays as `bm25-nostem`; result.json
records which BM25 ran and how many rankings were shorter than --top-k."""
import json
import math

import pytest

from bench.models.spec import resolve_model
from bench.search.analysis import LUCENE_ENGLISH_STOP_WORDS, lucene_english
from bench.search.exact import BM25Index


@pytest.mark.parametrize("text, tokens", [
    # Lucene's EnglishAnalyzer / Anserini's DefaultEnglishAnalyzer output for these sentences
    ("The quick brown foxes jumped over the lazy dog's back", ["quick", "brown", "fox", "jump", "over", "lazi", "dog",
                                                             "back"]),
    ("Relational databases are generalizations", ["relat", "databas", "gener"]),
    ("Is it hypersonic flow? No.", ["hyperson", "flow"]),
    ("heat-transfer at 3.5 mach, 1,000 ft", ["heat", "transfer", "3.5", "mach", "1,000", "ft"]),
])
def test_the_analysis_is_lucenes_english_with_porter(text, tokens):
    assert lucene_english(text) == tokens


def test_the_stop_words_are_lucenes_33():
    assert len(LUCENE_ENGLISH_STOP_WORDS) == 33
    assert {"the", "a", "no", "not", "with", "will"} <= LUCENE_ENGLISH_STOP_WORDS
    assert "what" not in LUCENE_ENGLISH_STOP_WORDS  # bm25s' list (the earlier default) has it


def test_bm25_is_anserinis_and_the_unstemmed_one_is_named():
    p = resolve_model("bm25").params
    assert (p["k1"], p["b"], p["method"], p["analyzer"], p["stemmer"]) == (0.9, 0.4, "lucene", "lucene-english", "porter")
    old = resolve_model("bm25-nostem").params
    assert old == {"k1": 0.9, "b": 0.4, "method": "lucene", "stopwords": "en"}  # the earlier default, unchanged


def test_scores_are_lucenes_bm25_formula():
    docs = ["flow over wings", "boundary layer flow flow flow", "heat transfer in flows of gas", "shock waves"]
    ids = ["d1", "d2", "d3", "d4"]
    index = BM25Index(ids, docs, resolve_model("bm25").params)
    run = index.search_texts(["q"], ["flowing gases"], 10)["q"]
    toks = [lucene_english(d) for d in docs]
    avgdl = sum(map(len, toks)) / len(toks)

    def lucene(doc, terms, k1=0.9, b=0.4):
        s = 0.0
        for t in terms:
            n = sum(t in d for d in toks)
            idf = math.log(1 + (len(toks) - n + 0.5) / (n + 0.5))
            tf = doc.count(t)
            s += idf * tf / (tf + k1 * (1 - b + b * len(doc) / avgdl))
        return s

    q = lucene_english("flowing gases")
    assert q == ["flow", "gase"] or q == ["flow", "gas"]
    expect = {i: lucene(d, q) for i, d in zip(ids, toks) if lucene(d, q) > 0}
    assert [d for d, _ in run] == sorted(expect, key=lambda i: (-expect[i], [-ord(c) for c in i]))
    for d, score in run:
        assert score == pytest.approx(expect[d], rel=1e-5)


def test_stemming_matches_what_the_unstemmed_bm25_misses():
    docs, ids = ["the pressure distributions measured", "unrelated text about wings"], ["a", "b"]
    stemmed = BM25Index(ids, docs, resolve_model("bm25").params).search_texts(["q"], ["pressure distribution"], 10)
    plain = BM25Index(ids, docs, resolve_model("bm25-nostem").params).search_texts(["q"], ["distribution"], 10)
    assert [d for d, _ in stemmed["q"]] == ["a"] and plain["q"] == []


def test_result_json_records_which_bm25_and_the_short_rankings(beir_dir, tmp_path):
    from bench.cli.main import main

    out = tmp_path / "run"
    assert main(["evaluate", "--model", "bm25", "--dataset", str(beir_dir), "--generators", "EXTRAPUNC",
                 "--top-k", "6", "--no-progress", "--out", str(out)]) == 0
    r = json.loads((out / "result.json").read_text())
    bm = r["retrieval"]["bm25"]
    assert (bm["analyzer"], bm["stemmer"], bm["k1"], bm["b"]) == ("lucene-english", "porter", 0.9, 0.4)
    assert r["model"]["spec"]["params"]["analyzer"] == "lucene-english"
    lines = (out / "per_query.csv").read_text().splitlines()[1:]
    assert bm["rankings"] == len(lines) and 0 <= bm["rankings_short"] <= bm["rankings"]
    assert f"{bm['rankings_short']} of {bm['rankings']} rankings" in bm["short_reason"]
