"""Item 4 of issue 13: determinism by content and the content-addressed variation cache."""
from __future__ import annotations

import json

import pytest

from perturb import make
from perturb.io.cache import cache_root, cached_perturb_batch, shard_key
from perturb.io.sets import format_tsv
from perturb.io.generation import generate


ITEMS = [("1", "what is the percentage of people with security clearance"), ("2", "how do the romans build aqueducts"),
         ("3", "effects of turbulent flows on wings"), ("4", "how do the romans build aqueducts")]


@pytest.mark.parametrize("name", ["MISSPELL", "SWAPWORDS", "TRANSTENSE", "SWAPSYN-WNET"])
def test_same_seed_same_bytes_and_text_decides(name):
    a = format_tsv(generate(name, ITEMS, 5, cache=False))
    b = format_tsv(generate(name, ITEMS, 5, cache=False))
    assert a == b
    vs = generate(name, ITEMS, 5, cache=False)
    assert vs.texts[1] == vs.texts[3]  # one text, two ids: one variation
    alone = generate(name, [("zz", ITEMS[2][1])], 5, cache=False)
    assert alone.texts[0] == vs.texts[2]  # independent of the other queries and of the id


def test_warm_rerun_regenerates_nothing(monkeypatch, tmp_path):
    monkeypatch.setenv("DRBENCH_HOME", str(tmp_path))  # an empty cache, whatever ran before
    gen = make("MISSPELL")
    calls = []
    real = gen.perturb_batch
    monkeypatch.setattr(gen, "perturb_batch", lambda items, seed: calls.append(len(items)) or real(items, seed))
    stats = {}
    cold = cached_perturb_batch(gen, ITEMS, 0, stats)
    assert stats == {"hits": 0, "misses": 3} and calls == [3]  # the repeated text is computed once
    warm = cached_perturb_batch(gen, ITEMS, 0, stats)
    assert warm == cold and stats == {"hits": 4, "misses": 0} and calls == [3]
    cached_perturb_batch(gen, ITEMS, 1, stats)  # another seed: another shard
    assert stats["misses"] == 3
    assert cold == real(ITEMS, 0)


def test_config_change_starts_a_new_shard():
    stats = {}
    cached_perturb_batch(make("MISSPELL"), ITEMS, 0, stats)
    cached_perturb_batch(make("MISSPELL", real_word_zipf=4.0), ITEMS, 0, stats)
    assert stats["misses"] == 3
    shards = list((cache_root() / "MISSPELL").glob("*.json"))
    assert len(shards) >= 2 and not list((cache_root() / "MISSPELL").glob(".*"))  # atomic: no temp files


def test_corrupt_shard_is_recomputed():
    gen = make("SWAPWORDS")
    first = cached_perturb_batch(gen, ITEMS, 0)
    for shard in (cache_root() / "SWAPWORDS").glob("*.json"):
        shard.write_text("{not json", encoding="utf-8")
    stats = {}
    assert cached_perturb_batch(gen, ITEMS, 0, stats) == first and stats["misses"] == 3
    shard = cache_root() / "SWAPWORDS" / f"{shard_key(gen, 0)}.json"  # other tests' shards may share the folder
    assert len(json.loads(shard.read_text(encoding="utf-8"))["entries"]) == 3


def test_unregistered_generators_are_not_cached(monkeypatch):
    from perturb.base import Generator, Perturbation

    class Fake(Generator):
        name = "MISSPELL"  # same name, not our class: never served from or written to the cache

        def _perturb(self, text, rng):
            return Perturbation(text + "!", True, "x")

    stats = {}
    cached_perturb_batch(Fake(), ITEMS, 0, stats)
    cached_perturb_batch(Fake(), ITEMS, 0, stats)
    assert stats == {"hits": 0, "misses": 4}


def test_cache_can_be_turned_off(monkeypatch):
    monkeypatch.setenv("DRBENCH_NO_VARIATION_CACHE", "1")
    stats = {}
    cached_perturb_batch(make("SWAPWORDS"), ITEMS, 0, stats)
    cached_perturb_batch(make("SWAPWORDS"), ITEMS, 0, stats)
    assert stats["hits"] == 0


def test_a_set_level_constraint_is_cached_per_set(monkeypatch, tmp_path):
    """A generator's cap_set (the synonym sets' word-share cap) runs once per distinct set of texts: a
    warm rerun of the same set reads its capped variations, another set computes its own."""
    monkeypatch.setenv("DRBENCH_HOME", str(tmp_path))
    gen = make("EXTRAPUNC")
    calls = []

    def cap_set(texts, results):  # a stand-in set-level rule: the set's first text left unchanged
        calls.append(len(texts))
        first = sorted(texts)[0]
        return [r if t != first else type(r)(t, False, "") for t, r in zip(texts, results)]

    monkeypatch.setattr(gen, "cap_set", cap_set, raising=False)
    cold = generate("EXTRAPUNC", ITEMS, 0, generator=gen)
    assert calls == [4] and not cold.applied[2] and cold.applied[0] and cold.applied[1] and cold.applied[3]
    warm = generate("EXTRAPUNC", list(reversed(ITEMS)), 0, generator=gen)  # same texts, other order
    assert calls == [4] and format_tsv(warm) == format_tsv(generate("EXTRAPUNC", list(reversed(ITEMS)), 0,
                                                                    generator=gen))
    assert dict(zip(warm.qids, warm.texts)) == dict(zip(cold.qids, cold.texts))
    generate("EXTRAPUNC", ITEMS[:3], 0, generator=gen)  # another set of texts (the repeat dropped: same set)
    generate("EXTRAPUNC", ITEMS[:2], 0, generator=gen)  # another set
    assert calls == [4, 2]
