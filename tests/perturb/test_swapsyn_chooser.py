"""The synonym swaps' fitted chooser (perturb.generators.swapsyn) and `bench perturb --lexsub`
(perturb.checks.lexsub). docs/methods.md, SWAPSYN."""
from __future__ import annotations

import gzip
import json
import random
import re
from pathlib import Path

import pytest

from perturb_helpers import generator

ROOT = Path(__file__).resolve().parents[2]

TEXTS = ["you are disgusting", "What country has the most vending machines per capita?",
         "how do i install leds into my car", "I like seeing movies.", "why does it seem that no matter how hard you try",
         "what is the purpose of running a fever", "do viscous effects seriously modify pressure distributions .",
         "how can i get rid off my pimples white black heads and oiliness of my face", "12 34 the of"]
SETS = ("SWAPSYN-WNET", "SWAPSYN-GLOVE")


def _lexfile(tmp_path, labelled=True, **broken):
    ctx = "The children were delighted by the enormous cake."
    data = {"contexts": {"c1": {"context": ctx}},
            "targets": {"t1": {"context_id": "c1", "target": "enormous", "offset": ctx.index("enormous"), "pos": "ADJ"},
                        "t2": {"context_id": "c1", "target": "delighted", "offset": ctx.index("delighted"),
                               "pos": "VERB"}}}
    if labelled:
        data["substitutes"] = {"s1": {"target_id": "t1", "substitute": "huge"},
                               "s2": {"target_id": "t1", "substitute": "vast"},
                               "s3": {"target_id": "t2", "substitute": "thrill"}}
        data["substitute_labels"] = {"s1": ["TRUE", "TRUE", "FALSE"], "s2": ["TRUE", "FALSE", "FALSE"],
                                     "s3": ["TRUE", "TRUE"]}
    data.update(broken)
    path = tmp_path / "lex.json.gz"
    path.write_bytes(gzip.compress(json.dumps(data).encode()))
    return path


# --------------------------------------------------------------------------- the file and the summary
def test_lexsub_file_is_read_with_its_pool(tmp_path):
    from perturb.checks.lexsub import read_lexsub

    lex = read_lexsub(_lexfile(tmp_path))
    assert [t.tid for t in lex.targets] == ["t1", "t2"]
    t1 = lex.targets[0]
    assert t1.text[t1.start:t1.end] == "enormous" and t1.pos == "ADJ"
    assert lex.pool["t1"] == {"huge": pytest.approx(2 / 3), "vast": pytest.approx(1 / 3)}


@pytest.mark.parametrize("broken,needle", [
    ({"targets": {}}, "has no targets"),
    ({"targets": {"t1": {"context_id": "c1", "target": "cake", "offset": 3}}}, "does not hold 'cake' at offset 3"),
    ({"targets": {"t1": {"context_id": "zz", "target": "cake", "offset": 3}}}, "context 'zz' is missing"),
    ({"contexts": []}, "needs the objects 'contexts' and 'targets'"),
])
def test_bad_lexsub_files_name_the_file_and_the_fix(tmp_path, broken, needle):
    from bench.core.errors import DataError
    from perturb.checks.lexsub import read_lexsub

    path = _lexfile(tmp_path, **broken)
    with pytest.raises(DataError) as exc:
        read_lexsub(path)
    assert needle in str(exc.value) and str(path) in str(exc.value) and "Fix:" in str(exc.value)


def test_not_json_is_a_clear_error(tmp_path):
    from bench.core.errors import DataError
    from perturb.checks.lexsub import read_lexsub

    path = tmp_path / "x.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(DataError, match="not a JSON object"):
        read_lexsub(path)


def test_summary_counts_coverage_precision_and_unjudged_picks(tmp_path):
    from perturb.checks.lexsub import read_lexsub, summary
    from perturb.generators.swapsyn.generator import Pick

    lex = read_lexsub(_lexfile(tmp_path))
    rows = {r["pos"]: r for r in summary(lex, [Pick("vast", "vast", 0.9), Pick("pleased", "please", 0.9)])}
    assert rows["all"]["picks"] == 2 and rows["all"]["judged"] == 1 and rows["all"]["acceptable"] == 0
    assert rows["all"]["outside_pool"] == 0.5 and rows["ADJ"]["precision"] == 0.0
    rows = {r["pos"]: r for r in summary(lex, [Pick("huge", "huge", 0.9), None])}
    assert rows["all"]["coverage"] == 0.5 and rows["all"]["precision"] == 1.0 and rows["VERB"]["picks"] == 0


def test_bench_perturb_lexsub_writes_one_tsv_per_set(tmp_path):
    from bench.cli import main

    out = tmp_path / "out"
    assert main(["perturb", "--lexsub", str(_lexfile(tmp_path)), "--generators", "SWAPSYN-WNET", "--out", str(out)]) == 0
    lines = (out / "lexsub-SWAPSYN-WNET.tsv").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "target_id\tsubstitute\tlemma" and [ln.split("\t")[0] for ln in lines[1:]] == ["t1", "t2"]
    header = (out / "lexsub-summary.tsv").read_text(encoding="utf-8").splitlines()[0].split("\t")
    assert header[-2:] == ["outside_pool", "check_refused"]


@pytest.mark.parametrize("name", SETS)
def test_lexsub_says_where_the_pick_check_refused_the_choosers_answer(tmp_path, name):
    from perturb import make
    from perturb.checks.lexsub import read_lexsub, refusal_text, summary
    from perturb.generators.swapsyn import check

    lex = read_lexsub(_lexfile(tmp_path))
    shut = make(name, check_threshold=check.CLOSED, verb_check_threshold=check.CLOSED, long_check_threshold=check.CLOSED)
    picks, refused = shut.lexsub_answers(lex.targets)
    open_picks, open_refused = make(name, check_threshold=0.0, verb_check_threshold=0.0,
                                     long_check_threshold=0.0).lexsub_answers(lex.targets)
    # every check closed: no answer, and each target the chooser answers with the check open is counted, by class
    assert picks == [None, None] and open_refused == [None, None]
    assert [r is not None for r in refused] == [p is not None for p in open_picks] and any(refused)
    assert {r for r in refused if r} <= {"verb", "other"}  # an 8-word context: a short text
    rows = {r["pos"]: r for r in summary(lex, picks, refused)}
    assert rows["all"]["check_refused"] == sum(r is not None for r in refused) and rows["all"]["picks"] == 0
    line = refusal_text(shut, refused)
    assert f"for {rows['all']['check_refused']} of 2 targets" in line and "closed" in line
    assert refusal_text(shut, [None, None]) == ""


def test_bench_perturb_lexsub_refuses_a_set_that_does_not_substitute_words(tmp_path):
    from bench.cli import main

    assert main(["perturb", "--lexsub", str(_lexfile(tmp_path)), "--generators", "MISSPELL",
                 "--out", str(tmp_path / "o")]) == 2


# --------------------------------------------------------------------------- candidates
@pytest.mark.parametrize("word,pos,bad", [
    ("high", "a", "low"), ("internal", "a", "external"), ("calculated", "v", "calculation"),
    ("colour", "n", "color"), ("analyse", "v", "analyze"),
])
def test_antonyms_derivations_and_spellings_are_never_candidates(word, pos, bad):
    from perturb.generators.swapsyn.candidates import candidates

    tag = {"n": "NN", "v": "VB", "a": "JJ"}[pos]
    for source in ("glove", "wordnet"):
        assert bad not in [c[0] for c in candidates(word, pos, tag, source)], source


def test_candidates_take_the_targets_inflection():
    from perturb.generators.swapsyn.candidates import candidates

    forms = {lemma: form for lemma, form, _ in candidates("movies", "n", "NNS", "wordnet")}
    assert forms.get("film") == "films"


def test_spelling_variants():
    from perturb.generators.swapsyn.candidates import spelling_variant

    assert spelling_variant("colour", "color") and spelling_variant("analyse", "analyze")
    assert not spelling_variant("movie", "film") and not spelling_variant("cat", "dog")


# --------------------------------------------------------------------------- the generators
@pytest.mark.parametrize("name", SETS)
def test_a_query_gets_the_same_swap_whatever_the_batch(name):
    gen = generator(name)
    items = [(f"q{i}", t) for i, t in enumerate(TEXTS)]
    whole = gen.perturb_batch(items, 3)
    shuffled = items[:]
    random.Random(1).shuffle(shuffled)
    again = dict(zip([q for q, _ in shuffled], gen.perturb_batch(shuffled, 3)))
    for (q, _), a in zip(items, whole):
        assert (a.text, a.detail) == (again[q].text, again[q].detail)
    assert gen.perturb_batch(items, 4) == whole  # no draw: the seed does not change the pick
    for p in whole:
        if p.applied:
            m = re.search(r"score (0\.\d{4})", p.detail)
            assert m and float(m.group(1)) >= gen.threshold


@pytest.mark.parametrize("name", SETS)
def test_names_and_numbers_are_never_replaced(name):
    gen = generator(name)
    for p in gen.perturb_batch([("a", "papers by Wang on flutter"), ("b", "12 34 the of")], 0):
        assert "Wang" in p.text or not p.text.startswith("papers")
    assert not gen.perturb_batch([("b", "12 34 the of")], 0)[0].applied


@pytest.mark.parametrize("name", SETS)
def test_threshold_one_changes_nothing(name):
    from perturb import make

    gen = make(name, threshold=1.0)
    assert not any(p.applied for p in gen.perturb_batch([(str(i), t) for i, t in enumerate(TEXTS)], 0))
    assert gen.config() != generator(name).config()  # another threshold is another cache key


def test_lexsub_answers_through_the_query_path():
    from perturb.generators.swapsyn.generator import Target

    gen = generator("SWAPSYN-WNET")
    text = "I like seeing movies."
    (pick,) = gen.lexsub([Target("t", text, text.index("movies"), text.index("movies") + 6, "NOUN")])
    query = gen.perturb_batch([("q", text)], 0)[0]
    if pick is not None and query.applied and "'movies'" in query.detail:
        assert pick.substitute in query.text


@pytest.mark.parametrize("name", SETS)
def test_participle_prepositions_and_indefinite_pronouns_are_never_swapped(name):
    """Both labelled errors ("concerning" -> "pertaining", "per person" -> "per someone") and their
    classes: no such target keeps a candidate, no candidate is such a pronoun."""
    from perturb.resources import parsing
    from perturb.resources.words import INDEFINITE_PRONOUNS, PARTICIPLE_PREPOSITIONS, tagging_copy

    texts = ["what agency can i report a scammer concerning my computer", "cost per person for ptsd treatment",
             "questions regarding tax returns", "symptoms following knee surgery", "how do you safely wean a person off risperidal"]
    gen = generator(name)
    docs = parsing.parse([tagging_copy(t) for t in texts])
    seen = 0
    for cands in gen.allowed(texts, docs):
        seen += len(cands)
        for c in cands:
            assert c.word.lower() not in PARTICIPLE_PREPOSITIONS and c.lemma not in INDEFINITE_PRONOUNS
            assert c.new.lower() not in INDEFINITE_PRONOUNS
    assert seen  # the texts keep other candidates: the veto is not refusing everything
    for p in gen.perturb_batch([(str(i), t) for i, t in enumerate(texts)], 0):
        assert not any(w in p.text.split() for w in ("pertaining", "someone", "somebody"))


def test_function_word_veto_reads_the_target_and_the_substitute():
    from perturb.generators.swapsyn.generator import FUNCTION_WORD
    from perturb.resources import parsing
    from perturb.spec import Edit

    doc = parsing.parse(["papers concerning the flow"])[0]
    tok = {t.text: t for t in doc}
    assert FUNCTION_WORD.reason(Edit.replace(7, 17, "touching"), {"token": tok["concerning"]})
    assert FUNCTION_WORD.reason(Edit.replace(0, 6, "someone"), {"token": tok["papers"], "lemma": "someone"})
    assert FUNCTION_WORD.reason(Edit.replace(0, 6, "articles"), {"token": tok["papers"], "lemma": "article"}) is None


# --------------------------------------------------------------------------- the set-level cap
def test_word_share_cap_is_deterministic_and_holds():
    from perturb.base import Perturbation

    gen = generator("SWAPSYN-WNET")
    texts = [f"query number {i} about movies" for i in range(40)] + [f"a film {i} on a lake" for i in range(10)]
    results = [Perturbation(t.replace("movies", "films"), True, f"n:'movies'->'films' (score 0.{90 + i % 9}00; lemma film; check 0.9000)")
               for i, t in enumerate(texts[:40])] + [Perturbation(t, False, "") for t in texts[40:]]
    capped = gen.cap_set(texts, results)
    kept = [p for p in capped if p.applied and "'movies'" in p.detail]
    n = sum(p.applied for p in capped)
    assert len(kept) <= max(1, int(0.05 * n)) or len(kept) <= 2
    order = list(range(len(texts)))
    random.Random(2).shuffle(order)
    again = gen.cap_set([texts[i] for i in order], [results[i] for i in order])
    assert [again[order.index(i)] for i in range(len(texts))] == capped


def test_chooser_file_records_its_command_and_thresholds():
    from perturb.generators.swapsyn import chooser

    model = chooser.load_model()
    scripts = re.findall(r"benchmarks/lexsub/\w*fit\.py", model["command"])
    assert scripts and all((ROOT / s).is_file() for s in scripts), model["command"]
    assert model["fitted_on"] and model["tuned_by"].split(":")[0] in scripts
    assert set(model["thresholds"]) == {"glove", "wordnet"}
    assert model["features"] == list(chooser.FEATURES) and len(model["full"]["weights"]) == len(chooser.FEATURES)
    assert len(model["cheap"]["weights"]) == len(chooser.CHEAP)


@pytest.mark.parametrize("name", SETS)
def test_best_finds_the_pick_that_scoring_every_candidate_finds(name):
    """chooser.best skips candidates whose bound cannot win: it must pick what scoring them all picks."""
    from perturb.generators.swapsyn import chooser
    from perturb.resources import parsing
    from perturb.resources.words import tagging_copy

    gen, model = generator(name), chooser.load_model()
    texts = TEXTS + ["what is the best way to cook rice", "symptoms of a broken ankle", "how long does it take to boil an egg"]
    docs = parsing.parse([tagging_copy(t) for t in texts])
    allowed = gen.allowed(texts, docs)
    for threshold in (0.0, 0.5, gen.threshold):
        fast = chooser.best(texts, allowed, model, threshold)
        every = [next(iter(chooser.ranked(row, threshold)), None) for row in chooser.full_scores(texts, allowed, model)]
        assert [(p.start, p.new, p.score) if p else None for p in fast] == \
               [(p.start, p.new, p.score) if p else None for p in every], threshold
    assert sum(len(a) for a in allowed) > len(texts)  # there were candidates to skip


def test_a_text_keeps_the_prune_best_candidates_or_one_per_target():
    from perturb.generators.swapsyn import chooser
    from perturb.resources import parsing
    from perturb.resources.words import tagging_copy

    model = chooser.load_model()
    assert model["prune"] == 4 and model["prune_per_target"] == 1
    assert chooser.prune_limit(model, 2) == 4 and chooser.prune_limit(model, 9) == 9
    assert chooser.prune_limit({"prune": 8}, 20) == 8  # no per-target part: the flat limit
    texts = ["cheap flights", "can the three-point boundary-value problem for the blasius equation be integrated "
             "numerically, using suitable transformations, without iteration on the boundary conditions ."]
    docs = parsing.parse([tagging_copy(t) for t in texts])
    for text, doc, row in zip(texts, docs, chooser.pruned(texts, docs, "wordnet", model)):
        every = chooser.candidates_of(text, doc, "wordnet")
        targets = len({c.start for c in every})
        assert len(row) == min(len(every), chooser.prune_limit(model, targets))
        cut = sorted((chooser.logistic(model["cheap"], c.x) for c in every), reverse=True)
        assert all(c.cheap >= cut[len(row) - 1] for c in row)  # the best by cheap score
    assert len({c.start for c in chooser.candidates_of(texts[1], docs[1], "wordnet")}) > model["prune"]
