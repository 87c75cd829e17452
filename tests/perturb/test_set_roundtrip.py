"""Every field of a variation set survives the file: a property over all of VariationSet's fields,
so a field added later without a place in the file fails here instead of in `bench perturb`."""
from __future__ import annotations

import dataclasses
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from perturb.io.sets import VariationSet, read_tsv, write_sets, write_tsv
from tests.conftest import QUERIES, write_beir

# any text UTF-8 can hold (lone surrogates cannot be written as UTF-8 at all)
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
JSON_VALUE = st.recursive(st.none() | st.booleans() | st.integers(-10**12, 10**12)
                          | st.floats(allow_nan=False, allow_infinity=False) | TEXT,
                          lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
                          max_leaves=8)


@st.composite
def variation_sets(draw) -> VariationSet:
    qids = draw(st.lists(TEXT, unique=True, max_size=6))
    n = len(qids)
    fields = {
        "name": draw(TEXT), "label": draw(TEXT),
        "config": draw(st.dictionaries(TEXT, JSON_VALUE, max_size=4)),
        "seed": draw(st.none() | st.integers(-2**63, 2**63)),
        "qids": qids,
        "texts": draw(st.lists(TEXT, min_size=n, max_size=n)),
        "applied": draw(st.lists(st.booleans(), min_size=n, max_size=n)),
        "details": draw(st.lists(TEXT, min_size=n, max_size=n)),
        "status": draw(st.sampled_from(["ok", "missing"])),
        "reason": draw(TEXT),
        "source": draw(st.sampled_from(["generated", "imported", "penha", "rodr"])),
        "too_long": draw(st.none() | st.fixed_dictionaries(
            {"n": st.integers(1, 10**6), "max_chars": st.integers(1, 10**6), "reason": TEXT})),
    }
    missing = {f.name for f in dataclasses.fields(VariationSet)} - set(fields)
    assert not missing, f"the round-trip property draws no value for {sorted(missing)}: add it here and to the file"
    return VariationSet(**fields)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(vs=variation_sets())
def test_every_field_of_a_variation_set_reads_back_equal(tmp_path, vs):
    path = tmp_path / "set.tsv"
    write_tsv(vs, path)
    assert read_tsv(path) == vs


def test_a_set_without_the_optional_line_keeps_its_bytes(tmp_path):
    vs = VariationSet("EXTRAPUNC", "EXTRAPUNC", {"k": 1}, 0, ["1"], ["what?"], [True], ["punct"])
    write_tsv(vs, tmp_path / "a.tsv")
    assert "too_long" not in (tmp_path / "a.tsv").read_text(encoding="utf-8")
    vs.too_long = {"n": 1, "max_chars": 1000, "reason": "square in the query length"}
    [(_, path)] = write_sets([vs], tmp_path / "out")  # reads back and compares, as bench perturb does
    assert read_tsv(path).too_long == vs.too_long


def test_bench_perturb_writes_a_collection_with_a_query_over_the_bounds(tmp_path, capsys):
    from bench.cli.main import main

    queries = dict(QUERIES)
    queries["1"] = (" ".join(["what is the lift of a wing in a slipstream"] * 40), "aero")  # 1,720 characters
    ds = write_beir(tmp_path / "ds", queries=queries)
    out = tmp_path / "sets"
    assert main(["perturb", "--dataset", str(ds), "--generators", "SWAPWORDS,BACKTRANS,EXTRAPUNC",
                 "--out", str(out)]) == 0, capsys.readouterr().out
    bounded = {p.stem: read_tsv(p) for p in out.glob("*.tsv")}
    assert bounded["SWAPWORDS"].too_long["n"] == 1
    assert bounded["SWAPWORDS"].texts[bounded["SWAPWORDS"].qids.index("1")] == queries["1"][0]
    assert bounded["EXTRAPUNC"].too_long is None
    header = (out / "SWAPWORDS.tsv").read_text(encoding="utf-8").split("\nqid\t")[0]
    assert json.loads(header.split("# too_long: ")[1])["max_chars"] == bounded["SWAPWORDS"].too_long["max_chars"]
