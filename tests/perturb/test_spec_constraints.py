"""Each generator's spec lists all its constraints, SWAPWORDS's kind table lists every kind the
parse can give, candidates are spec.Edit objects, and the shared word lists are written once."""
import ast
import csv
from pathlib import Path

import pytest

import perturb
import perturb.spec
from benchmarks.tuning.rules import labelled_path
from perturb.spec import Edit, Veto, constraints_markdown

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).parent / "data"


def test_constraints_table_in_the_architecture_doc_is_generated_from_the_specs():
    from benchmarks.tuning.commands import main

    lines = []
    assert main(["constraints", "--check"], lines.append) == 0, \
        "regenerate it: python -m benchmarks.tuning constraints --write (" + " ".join(lines) + ")"
    assert "is current" in lines[0]
    assert constraints_markdown().count("\n") == 2 + sum(len(s.constraints) for s in perturb.spec.all_specs())


@pytest.mark.parametrize("name, declared", [
    ("MISSPELL", ["content-word target", "same case", "more than case", "not a real word", "table edit distance"]),
    ("EXTRAPUNC", ["not blank"]),
    ("NOSTOPWORD", ["need words kept", "a word left"]),
    ("TRANSTENSE", ["dictionary verb form", "dictionary new form", "no negated future", "finite-verb evidence"]),
    ("SWAPWORDS", ["content words only", "whole tokens", "kind table"]),
    ("BACKTRANS", ["a word left", "weakest-edit evidence", "no pivot leak", "structure kept", "content kept"]),
])
def test_every_veto_a_generator_applies_is_a_constraint_of_its_spec(name, declared):
    spec = perturb.GENERATORS.get(name).spec
    assert [c.name for c in spec.constraints] == declared
    assert all(c.description for c in spec.constraints)
    gen = perturb.make(name)
    for c in spec.constraints:  # a veto without parameters adds nothing to the recorded configuration
        if isinstance(c, Veto) and not c.params:
            assert not set(c.config()) - set(gen.config()), (name, c.name)


def test_the_vetoes_refuse_what_the_generators_refuse():
    from perturb.generators import misspell, punctuation, stopwords, typos, verb_forms
    from perturb.generators.backtrans import generator as backtrans
    from perturb.generators.swapwords import pairs

    word = lambda w: {"word": w}  # noqa: E731
    assert misspell.CONTENT_TARGET.check(Edit.replace(0, 3, "teh"), word("the")).reason == "'the' is not a content word"
    assert not misspell.CONTENT_TARGET.check(Edit.replace(0, 4, "1995"), word("1994")).passed
    assert misspell.CONTENT_TARGET.check(Edit.replace(0, 4, "wnig"), word("wing")).passed
    assert not misspell.SAME_CASE.check(Edit.replace(0, 1, "D"), {"char": "d", "new": "D"}).passed
    assert misspell.SAME_CASE.check(Edit.replace(0, 1, "0"), {"char": "o", "new": "0", "allow_digits": True}).passed
    assert "case only" in typos.CASE_ONLY.check(Edit.replace(0, 4, "WING"), word("wing")).reason
    assert not punctuation.NOT_BLANK.check(Edit.replace(0, 0, "?"), {"text": "   "}).passed
    cores = ["do", "not", "stop"]
    assert stopwords.KEPT_WORDS.check(Edit.replace(0, 0, ""), {"cores": cores, "k": 1}).reason
    assert stopwords.KEPT_WORDS.check(Edit.replace(0, 0, ""), {"cores": cores, "k": 0}).passed
    assert not stopwords.WORDS_LEFT.check(Edit.replace(0, 0, ""), {"removed": 3, "words": 3}).passed
    assert "no VBZ form" in verb_forms.DICTIONARY_VERB_FORM.check(None, {"word": "diabetes", "tag": "VBZ"}).reason
    assert verb_forms.DICTIONARY_VERB_FORM.check(None, {"word": "causes", "tag": "VBZ"}).passed
    q = "what is the analytical solution of the problem"
    ctx = {"text": q, "back": "what is analytical solution to the cual problem", "pivot": "spa", "marked": False}
    assert "cual" in backtrans.NO_PIVOT_LEAK.check(None, ctx).reason
    assert backtrans.NO_PIVOT_LEAK.check(None, dict(ctx, back=q)).passed
    text = "by 10% in women"
    assert pairs.WHOLE_TOKENS.check(Edit.exchange(text, 3, 5, 10, 15), {"text": text}).passed  # "10" widens
    assert not pairs.WHOLE_TOKENS.check(Edit.exchange("40°C heat", 0, 2, 5, 9), {"text": "40°C heat"}).passed


def test_a_generator_asks_its_spec_constraint(monkeypatch):
    """The generator refuses through the constraint object: changing the object changes the output."""
    from perturb.generators import stopwords

    gen = perturb.make("NOSTOPWORD")
    assert gen.perturb("do not stop the car", None).text == "not stop car"
    monkeypatch.setattr(stopwords.KEPT_WORDS, "keeps", lambda cores, k: False)
    assert gen.perturb("do not stop the car", None).text == "stop car"


# ------------------------------------------------------------------ SWAPWORDS's kind table
def test_every_kind_the_kind_grammar_gives_is_in_the_kind_table():
    from perturb.generators.swapwords.pairs import EVIDENCE, KIND_SCORES, UNLABELLED, kinds

    assert set(kinds()) == set(KIND_SCORES)
    assert {kind for _, kind in EVIDENCE} <= set(KIND_SCORES), "a labelled kind the parse cannot give"
    assert all(KIND_SCORES[k] == UNLABELLED for k in KIND_SCORES if k not in {kind for _, kind in EVIDENCE})
    assert "subject and auxiliary (yes/no, predicate in the subject)" in KIND_SCORES
    assert "subject and auxiliary (copula, complement after)" in KIND_SCORES  # unlabelled: listed at the prior


def test_every_kind_real_parses_give_is_listed():
    """Every candidate of the labelled SWAPWORDS queries, the probe queries and Cranfield's (when
    present) is of a listed kind: candidates() raises UnlistedKind otherwise."""
    from perturb.generators.swapwords.pairs import KIND_SCORES, candidates
    from perturb.resources import parsing
    from perturb.resources.words import tagging_copy

    with open(labelled_path("SWAPWORDS"), encoding="utf-8", newline="") as fh:
        texts = sorted({r["original"] for r in csv.DictReader(fh, delimiter="\t")})
    with open(DATA / "probe_queries.tsv", encoding="utf-8", newline="") as fh:
        texts += [r["text"] for r in csv.DictReader(fh, delimiter="\t")]
    cranfield = ROOT.parent / "shared" / "data" / "cranfield" / "queries.jsonl"
    if cranfield.is_file():
        import json

        texts += [json.loads(line)["text"] for line in cranfield.open(encoding="utf-8")]
    seen = {e.kind for d, t in zip(parsing.parse([tagging_copy(t) for t in texts]), texts) for e in candidates(d, t)}
    assert seen and seen <= set(KIND_SCORES)
    assert len(seen) >= 40


def test_an_unlisted_kind_raises_and_an_unlabelled_kind_is_refused_by_name():
    from perturb.generators.swapwords.generator import KIND_TABLE
    from perturb.generators.swapwords.pairs import UnlistedKind, score_of

    with pytest.raises(UnlistedKind, match="'subject and auxiliary \\(telepathic\\)' is not in the kind table"):
        score_of("subject and auxiliary (telepathic)")
    text = "what is X like"
    unlabelled = KIND_TABLE.check(Edit.exchange(text, 5, 7, 8, 9, kind="subject and auxiliary (copula, complement after)"))
    assert not unlabelled.passed and "no labelled exchange" in unlabelled.reason and unlabelled.score == 0.5
    labelled = KIND_TABLE.check(Edit.exchange(text, 5, 7, 8, 9, kind="subject and auxiliary (copula)"))
    assert labelled.passed and "no labelled" not in labelled.reason


# ------------------------------------------------------------------ one Edit type
def test_candidates_are_edits_that_give_the_variation():
    from perturb.resources import parsing
    from perturb.resources.words import tagging_copy

    text = "how did the romans build aqueducts"
    doc = parsing.parse([tagging_copy(text)])[0]
    tense = perturb.make("TRANSTENSE").scored(doc, text)
    assert tense and all(isinstance(e, Edit) and e.score is not None and e.detail for e in tense)
    assert "how do the romans build aqueducts" in {e.apply(text) for e in tense}
    swap = perturb.make("SWAPWORDS")
    edits = swap.scored(doc, text)
    assert edits and all(isinstance(e, Edit) and len(e.spans) == 2 and e.kind for e in edits)
    assert all(swap.apply(doc, text, e) == e.apply(text) != text for e in edits)  # a lower-case query: no re-casing


def test_backtrans_candidates_are_edits_that_give_their_text():
    from perturb.generators.backtrans import score

    query = "What company makes the Butterfinger bar?"
    backs = {"spa": "which company makes the Butterfinger bar?", "cat": "What company does the Butterfinger bar?"}
    cands = score.candidates(query, backs, {}, original=query)
    assert cands and all(isinstance(c, Edit) and len(c.spans) == 1 and c.apply(query) == c.text for c in cands)
    which = next(c for c in cands if c.text == "Which company makes the Butterfinger bar?")
    assert which.spans == ((0, 4, "Which"),) and which.pivots == {"spa"} and which.score is not None
    assert which.detail.startswith("pivot:spa score ") and which.detail.endswith("edits: 'what'->'which'")


# ------------------------------------------------------------------ word lists written once
def _word_lists(tree):
    """(line, frozenset of words) for every literal collection of 3+ words in a module (a tuple, list
    or set of strings, frozenset(...)/set(...) of one, or "a b c".split())."""
    for node in ast.walk(tree):
        words = None
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and len(node.elts) >= 3 and \
                all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
            words = [e.value for e in node.elts]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "split" and \
                isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str) and not node.args:
            words = node.func.value.value.split()
        elif isinstance(node, ast.Dict) and node.keys and all(isinstance(k, ast.Constant) for k in node.keys) and \
                all(isinstance(v, ast.Constant) for v in node.values):
            words = [f"{k.value}={v.value}" for k, v in zip(node.keys, node.values)]
        if words and len(words) >= 3:
            yield node.lineno, frozenset(words)


def test_the_shared_word_lists_are_written_once():
    """Light verbs, pronouns, articles, auxiliaries, question and need words, finite-verb tags and
    the POS maps are defined in perturb/resources/words.py and imported: no module of perturb or
    benchmarks writes a copy of one."""
    from perturb.resources import words

    shared = {"LIGHT_VERBS": words.LIGHT_VERBS, "PERSONAL_PRONOUNS": words.PERSONAL_PRONOUNS,
              "ARTICLES": words.ARTICLES, "AUXILIARIES": words.AUXILIARIES, "WH_WORDS": words.WH_WORDS,
              "NEED_WORDS": words.NEED_WORDS,
              "UPOS_WORDNET": [f"{k}={v}" for k, v in words.UPOS_WORDNET.items()],
              "WORDNET_UPOS": [f"{k}={v}" for k, v in words.WORDNET_UPOS.items()],
              "WORDNET_POS": words.WORDNET_POS, "FINITE_TAGS": words.FINITE_TAGS,
              "UPOS_WORDNET (with PROPN)": [f"{k}={v}" for k, v in {**words.UPOS_WORDNET, "PROPN": "n"}.items()]}
    shared = {name: frozenset(v) for name, v in shared.items()}
    found = []
    for path in sorted([*(ROOT / "perturb").rglob("*.py"), *(ROOT / "benchmarks").rglob("*.py")]):
        if path.name == "words.py":
            continue
        for line, ws in _word_lists(ast.parse(path.read_text(encoding="utf-8"))):
            found += [f"{path.relative_to(ROOT)}:{line} copies words.{name}" for name, v in shared.items() if ws == v]
    assert not found, "; ".join(found) + " (import it from perturb.resources.words)"


def test_transtense_runs_its_spec_constraints_on_the_engine():
    """TRANSTENSE's vetoes are the engine's: targets judged by the dictionary verb form and the
    negated future, each proposed dictionary form by the new-form veto, then the threshold."""
    from perturb.engine import Candidate, judge

    gen = perturb.make("TRANSTENSE")
    assert [c.name for c in gen.constraints] == [c.name for c in gen.spec.constraints]
    targets = [Candidate(Edit(()), {"word": "diabetes", "tag": "VBZ", "group": 0}),
               Candidate(Edit(()), {"word": "causes", "tag": "VBZ", "group": 1})]
    judged = judge(gen.constraints, targets, "target")
    assert [c.group for c in judged.passed] == [1] and judged.why() == {"dictionary verb form": 1}
    forms = [Candidate(Edit.replace(0, 6, f, score=s), {"group": 1, "form": f})
             for f, s in (("xqzvvq", 1.0), ("caused", 1.0), ("caused", 0.1))]
    judged = judge(gen.constraints, forms)
    assert [c.edit.score for c in judged.passed] == [1.0]
    assert judged.why() == {"dictionary new form": 1, "finite-verb evidence": 1}
