"""Issue 39, item 10: bounded inputs that hung. --generation-seeds is parsed in linear time and
bounded; a query longer than a generator's bound is left unchanged with the count and the reason
recorded, instead of running for minutes."""
from __future__ import annotations

import json

import pytest

from bench.core.errors import BenchError
from perturb.io.generation import generate
from suites.variations.draws import MAX_DRAWS, parse_seeds


@pytest.mark.parametrize("text", ["0-100000000", "0-100", "0-50,51-101", ",".join(map(str, range(101)))])
def test_too_many_generation_seeds_are_refused_without_expanding_them(text):
    with pytest.raises(BenchError, match=f"more than {MAX_DRAWS} seeds"):
        parse_seeds(text)


def test_generation_seeds_still_parse_and_refuse_repeats():
    assert parse_seeds("0-2,7") == [0, 1, 2, 7]
    assert parse_seeds(f"0-{MAX_DRAWS - 1}") == list(range(MAX_DRAWS))
    with pytest.raises(BenchError, match=r"seed\(s\) \[1\] given twice"):
        parse_seeds("0-2,1")
    with pytest.raises(BenchError, match="non-negative integers"):
        parse_seeds("-1")


def test_a_long_query_is_left_unchanged_by_swapwords_with_the_reason():
    from perturb import GENERATORS

    limit = GENERATORS.get("SWAPWORDS")().max_query_chars  # its spec parameter, read by the instance
    long = " ".join(["wing lift at high angles of attack"] * (limit // 30 + 5))  # over the bound
    short = "what is the lift of a wing in a slipstream"
    vs = generate("SWAPWORDS", [("1", long), ("2", short)], 0, cache=False)
    assert vs.texts[0] == long and not vs.applied[0]
    assert vs.too_long["n"] == 1 and vs.too_long["max_chars"] == limit and "square" in vs.too_long["reason"]
    assert generate("SWAPWORDS", [("2", short)], 0, cache=False).too_long is None


def test_the_bound_is_recorded_in_the_result(tmp_path, capsys):
    from bench.cli.main import main
    from tests.conftest import QUERIES, write_beir

    queries = dict(QUERIES)
    queries["1"] = (" ".join(["what is the lift of a wing"] * 60), "aero")  # 1,600 characters
    ds = write_beir(tmp_path / "ds", queries=queries)
    assert main(["evaluate", "--model", "bm25", "--dataset", str(ds), "--generators", "SWAPWORDS,EXTRAPUNC",
                 "--no-progress", "--out", str(tmp_path / "run")]) == 0
    sets = {e["name"]: e for e in json.loads((tmp_path / "run" / "result.json").read_text())["sets"]}
    assert sets["SWAPWORDS"]["too_long"]["n"] == 1 and "too_long" not in sets["EXTRAPUNC"]
    capsys.readouterr()
