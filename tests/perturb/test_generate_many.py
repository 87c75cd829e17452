"""generate_many: BACKTRANS's round trips start ahead and overlap the other generators; the sets are
those each generator gives alone, and a round trip is computed once for every seed."""
from __future__ import annotations

import pytest

from perturb.io.generation import generate, generate_many

ITEMS = [("1", "What is the largest planet in our solar system?"), ("2", "INVESTIGATION OF FREE TURBULENT MIXING ."),
         ("3", "how do i get water out of my phone"), ("4", "the effect of heat transfer on boundary layers"),
         ("5", "What is the largest planet in our solar system?".lower()), ("6", "")]
NAMES = ["MISSPELL", "BACKTRANS", "SWAPWORDS"]


def _backtrans():
    from perturb.generators.backtrans.generator import BackTranslate

    gen = BackTranslate(backend="apertium")
    if not all(t.available() for t in gen._translators):
        pytest.skip("apertium pivots not installed")
    return gen


def _rows(vs):
    return (vs.name, vs.label, vs.status, vs.texts, vs.applied, vs.details)


def test_the_sets_are_those_each_generator_gives_alone(tmp_path, monkeypatch):
    _backtrans()
    monkeypatch.setenv("DRBENCH_HOME", str(tmp_path / "alone"))
    alone = {n: [_rows(generate(n, ITEMS, s)) for s in (0, 3)] for n in NAMES}
    monkeypatch.setenv("DRBENCH_HOME", str(tmp_path / "together"))
    together = generate_many(NAMES, ITEMS, [0, 3])
    assert list(together) == NAMES  # in the order asked, whatever order they ran in
    assert {n: [_rows(v) for v in vs] for n, vs in together.items()} == alone
    assert any(together["BACKTRANS"][0].applied)  # the comparison is not between two empty sets


def test_round_trips_start_before_the_others_and_run_once_for_every_seed(tmp_path, monkeypatch):
    from perturb.generators.backtrans import generator as backtrans

    _backtrans()
    monkeypatch.setenv("DRBENCH_HOME", str(tmp_path))
    events, real = [], backtrans.BackTranslate._round_trips

    def counted(self, sent, warm=None):
        events.append(("round trips", tuple(sent)))
        return real(self, sent, warm)

    real_generate = generate

    def logged(name, *a, **k):
        events.append(("generate", name))
        return real_generate(name, *a, **k)

    monkeypatch.setattr(backtrans.BackTranslate, "_round_trips", counted)
    monkeypatch.setattr("perturb.io.generation.generate", logged)
    generate_many(NAMES, ITEMS, [0, 1, 2])
    trips = [e for e in events if e[0] == "round trips"]
    assert len(trips) == 1, trips  # three seeds, one translation of each distinct text
    assert sorted(trips[0][1]) == sorted({t.lower() if t.isupper() else t for _, t in ITEMS})
    assert events.index(trips[0]) < events.index(("generate", "MISSPELL"))  # started ahead
    assert [e[1] for e in events if e[0] == "generate"] == ["MISSPELL"] * 3 + ["SWAPWORDS"] * 3 + ["BACKTRANS"] * 3
    # a cached set is not translated again
    events.clear()
    generate_many(NAMES, ITEMS, [0])
    assert not [e for e in events if e[0] == "round trips"]


def test_a_failure_in_the_background_is_raised_where_the_set_is_made(tmp_path, monkeypatch):
    from perturb.generators.backtrans import generator as backtrans

    _backtrans()
    monkeypatch.setenv("DRBENCH_HOME", str(tmp_path))

    def broken(self, sent, warm=None):
        raise RuntimeError("apertium eng-spa failed (1): boom")

    monkeypatch.setattr(backtrans.BackTranslate, "_round_trips", broken)
    with pytest.raises(RuntimeError, match="boom"):
        generate_many(["BACKTRANS"], ITEMS, [0])
    assert not list(tmp_path.rglob("*.json"))  # nothing half-written in the cache
