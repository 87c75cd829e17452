"""Every file drbench writes and reads back round-trips, as a property over all of its fields
(Hypothesis): what the writer stores, the reader returns unchanged. The result.json strategy is
derived from the typed model itself (bench.results.schema, every key of every TypedDict, optional
keys included), so a field added to the model later is generated, written and read back here
without touching this test. The variation-set TSV has its own property test (tests/perturb).

Files: result.json (bench.results.writer.write_run -> bench.results.rundir.load_result, both
layouts), per_query.csv (per_query_csv -> load_per_query), the audit sample TSV
(perturb.checks.audit.format_sample -> perturb.checks.labels.read_label_file), the marker
.drbench-written.json (write_record -> recorded_files / read_record), and the embedding cache's
checksum sidecars (bench.encoding.integrity.record -> entry_problem)."""
from __future__ import annotations

import math
import tempfile
import typing
from pathlib import Path
from typing import Any, Dict

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, Phase, assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from bench.results.typed import is_typeddict, key_hints  # noqa: E402

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                          HealthCheck.data_too_large])

#: text as a JSON or CSV file can hold it: any character but lone surrogates (not UTF-8)
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
FLOAT = st.floats(allow_nan=False, allow_infinity=False)
JSON_LEAF = st.none() | st.booleans() | st.integers(-2 ** 53, 2 ** 53) | FLOAT | TEXT
JSON_ANY = st.recursive(JSON_LEAF, lambda inner: st.lists(inner, max_size=2) | st.dictionaries(TEXT, inner, max_size=2),
                        max_leaves=4)

_MODELS: Dict[Any, Any] = {}


def strategy_of(tp: Any, full: bool = False) -> Any:
    """A strategy for values of the annotation ``tp``, as bench.results.typed reads annotations;
    ``full``: every optional key of every model is present (and lists and maps are not empty)."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Annotated:
        return strategy_of(args[0], full)
    if tp is Any:
        return JSON_ANY
    if tp is type(None) or tp is None:
        return st.none()
    if tp is bool:
        return st.booleans()
    if tp is int:
        return st.integers(-2 ** 53, 2 ** 53)
    if tp is float:
        return FLOAT | st.integers(-1000, 1000)
    if tp is str:
        return TEXT
    if origin is typing.Literal:
        return st.sampled_from(args)
    if origin is typing.Union:
        options = [a for a in args if a is not type(None)] if full else args
        return st.one_of([strategy_of(a, full) for a in options])
    if origin in (list, typing.List):
        return st.lists(strategy_of(args[0], full), min_size=int(full), max_size=2)
    if origin in (dict, typing.Dict):
        return st.dictionaries(TEXT, strategy_of(args[1], full), min_size=int(full), max_size=2)
    if is_typeddict(tp):
        return model_strategy(tp, full)
    raise AssertionError(f"no strategy for annotation {tp!r}: teach strategy_of the new kind of field")


def model_strategy(cls: type, full: bool = False) -> Any:
    """Every key of a TypedDict: its required keys always, each optional key present or not (``full``: always)."""
    if (cls, full) not in _MODELS:
        _MODELS[cls, full] = st.deferred(lambda: _fields(cls, full))
    return _MODELS[cls, full]


def _fields(cls: type, full: bool) -> Any:
    hints = key_hints(cls)
    always = {k: strategy_of(tp, full) for k, (tp, _) in hints.items() if full or k in cls.__required_keys__}
    maybe = {k: strategy_of(tp, full) for k, (tp, _) in hints.items() if k not in always}
    return st.fixed_dictionaries(always, optional=maybe)


def _paths(tp: Any, value: Any = None, prefix: str = "", seen: tuple = ()) -> set:
    """The key paths of model ``tp`` (``sets[].metrics{}``: list items ``[]``, a map's data keys
    ``{}``): all it declares when ``value`` is None, else those ``value`` holds."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    declared = value is None
    if origin is typing.Annotated:
        return _paths(args[0], value, prefix, seen)
    if origin is typing.Union:
        return set().union(*(_paths(a, value, prefix, seen) for a in args))
    if origin in (list, typing.List) and (declared or isinstance(value, list)):
        items = [None] if declared else value
        return set().union(set(), *(_paths(args[0], v, prefix + "[]", seen) for v in items))
    if origin in (dict, typing.Dict) and (declared or isinstance(value, dict)):
        items = [None] if declared else list(value.values())
        return set().union(set(), *(_paths(args[1], v, prefix + "{}", seen) for v in items))
    if is_typeddict(tp) and tp not in seen and (declared or isinstance(value, dict)):
        out = set()
        for k, (sub, _) in key_hints(tp).items():
            if declared or k in value:
                out.add(f"{prefix}.{k}")
                out |= _paths(sub, None if declared else value[k], f"{prefix}.{k}", seen + (tp,))
        return out
    return set()


def _result(layout: str, full: bool = False) -> Any:
    from bench.results.migrations import SCHEMA_VERSION
    from bench.results.schema import MODELS, content_suite

    def finish(data: dict) -> dict:
        data = dict(data, schema_version=SCHEMA_VERSION)
        data["suite"] = content_suite(data) or ("variations" if layout == "sets" else "fewshot")
        return data

    return model_strategy(MODELS[layout], full).map(finish)


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON values: the same keys and items; numbers equal by value (1 and 1.0)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return a == b and type(a) is type(b) or (isinstance(a, (int, float)) and isinstance(b, (int, float)) and a == b)


@pytest.mark.parametrize("full", [False, True], ids=["some-keys", "every-key"])
@pytest.mark.parametrize("layout", ["sets", "fewshot"])
def test_result_json_round_trips_every_field_of_its_model(layout, full):
    from bench.results.rundir import load_result
    from bench.results.schema import MODELS, ResultFile, content_suite
    from bench.results.suite import layout_of
    from bench.results.writer import write_run

    seen: set = set()

    # every-key: each example holds every key already; no shrinking (a whole result file shrinks for
    # many minutes; the failing example is printed as drawn). Its draws are derandomised: a union of two
    # models (a set's `training`) must show both branches within its few examples on every run
    @settings(SETTINGS, max_examples=12 if full else 60, derandomize=full,
              phases=(Phase.explicit, Phase.reuse, Phase.generate))
    @given(data=_result(layout, full))
    def check(data):
        assume(layout_of(data) == layout and content_suite(data) in (None, data["suite"]))
        seen.update(_paths(MODELS[layout], data))
        with tempfile.TemporaryDirectory() as tmp:
            write_run(Path(tmp), data, "set,qid,applied\n", {"total": 1.0})
            back = load_result(Path(tmp) / "result.json")
            text = (Path(tmp) / "result.json").read_text(encoding="utf-8")
        assert back.pop("per_query_sha256")  # the writer binds the per-query table
        data.pop("per_query_sha256", None)
        assert _same(back, data)
        assert ResultFile.from_json(text, strict=True).to_json() == text  # canonical: read and written the same

    check()
    if full:  # every key the model declares was written and read back
        missing = sorted(_paths(MODELS[layout]) - seen)
        assert missing == [], missing[:10]


_NAME = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=10)


@SETTINGS
@given(rows=st.lists(st.tuples(_NAME, _NAME, st.integers(0, 1), st.sampled_from(["1", "0", ""])), min_size=1,
                     max_size=6, unique_by=lambda r: (r[0], r[1])),
       measures=st.lists(st.sampled_from(["MRR@10", "nDCG@10", "R@100", "MAP", "P@5"]), min_size=1, max_size=3,
                         unique=True),
       values=st.lists(st.floats(allow_infinity=False) | st.sampled_from([0.0, -0.0, 1.0, 5e-324]), min_size=18,
                       max_size=18),
       labelled=st.booleans())
def test_per_query_csv_round_trips_every_field(rows, measures, values, labelled):
    from bench.results.rundir import load_per_query
    from bench.results.writer import per_query_csv

    table = [(s, q, a, values[i * len(measures):(i + 1) * len(measures)]) for i, (s, q, a, _) in enumerate(rows)]
    labels = {} if labelled else None
    if labelled:
        for s, q, _, lab in rows:
            labels.setdefault(s, {})[q] = lab
    text = per_query_csv(table, measures, labels)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "per_query.csv"
        path.write_text(text, encoding="utf-8")
        df = load_per_query(path, measures)
    assert list(df["set"]) == [r[0] for r in rows] and list(df["qid"]) == [r[1] for r in rows]
    assert list(df["applied"]) == [r[2] for r in rows]
    if labelled:
        assert list(df["label"]) == [r[3] for r in rows]
    for m_index, m in enumerate(measures):
        for got, (_, _, _, vals) in zip(df[m], table):
            want = vals[m_index]
            assert (math.isnan(got) and math.isnan(want)) or (got == want and math.copysign(1, got) == math.copysign(1, want))


_FIELD = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)


@SETTINGS
@given(rows=st.lists(st.fixed_dictionaries({"set": _NAME.filter(lambda t: t.strip() == t and t.strip()),
                                            "qid": _NAME.filter(lambda t: t.strip() == t and t.strip()),
                                            "original": _FIELD, "variation": _FIELD, "detail": _FIELD,
                                            "valid": st.sampled_from(["1", "0"]), "note": _FIELD}),
                     min_size=1, max_size=5))
def test_the_audit_sample_round_trips_its_labels(rows):
    from perturb.checks.audit import format_sample
    from perturb.checks.labels import read_label_file

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "audit_sample.tsv"
        path.write_text(format_sample(rows), encoding="utf-8")
        got = read_label_file(path)
    assert got.rows == len(rows)
    assert [(lab.set, lab.qid, lab.variation, lab.valid) for lab in got.labels] == \
        [(r["set"], r["qid"], r["variation"], r["valid"] == "1") for r in rows]


_REL = st.lists(st.text(st.characters(whitelist_categories=("Ll", "Lu", "Nd", "Lo")), min_size=1, max_size=6),
                min_size=1, max_size=3).map("/".join)


@SETTINGS
@given(files=st.dictionaries(_REL, st.fixed_dictionaries({"sha256": st.text("0123456789abcdef", min_size=64,
                                                                            max_size=64),
                                                          "command": TEXT}), max_size=4),
       command=st.none() | TEXT)
def test_the_marker_round_trips_every_entry(files, command):
    from bench.core.written import read_record, recorded_files, write_record

    with tempfile.TemporaryDirectory() as tmp:
        write_record(Path(tmp), files, command)
        assert recorded_files(Path(tmp)) == files
        record = read_record(Path(tmp))
    assert record.get("folder") == command
    assert set(record) == {"about", "files"} | ({"folder"} if command is not None else set())


@settings(max_examples=25, deadline=None)
@given(shape=st.tuples(st.integers(1, 40), st.integers(1, 16)), seed=st.integers(0, 2 ** 32 - 1),
       keys=st.none() | st.binary(max_size=64))
def test_an_embedding_cache_sidecar_round_trips(shape, seed, keys):
    from bench.encoding.integrity import entry_problem, record

    matrix = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "entry.npy"
        np.save(path, matrix)
        bound = None
        if keys is not None:
            bound = Path(tmp) / "entry.keys"
            bound.write_bytes(keys)
        record(path, bound)
        assert entry_problem(path, shape[0], bound) is None
        assert np.array_equal(np.load(path), matrix)
        data = bytearray(path.read_bytes())
        data[-1] ^= 0x01  # one bit of the last value
        path.write_bytes(bytes(data))
        assert entry_problem(path, shape[0], bound) is not None
