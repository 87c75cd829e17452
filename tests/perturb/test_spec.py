"""Every generator declared once in a spec: its config and thresholds come from the spec, a
threshold is written once, and an output change comes with a new spec version."""
import json
import re
from pathlib import Path

import pytest

import perturb
from perturb.spec import Edit, Param, Spec, Threshold, Tuning, Veto, floor_veto, operating_points_markdown, \
    threshold_constraint

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).parent / "data"


def _all():
    for protocol, registry in perturb.PROTOCOLS.items():
        for name in perturb.PAPER_ORDER:
            yield protocol, name, registry.get(name)


@pytest.mark.parametrize("protocol, name, cls", list(_all()), ids=lambda x: x if isinstance(x, str) else "")
def test_every_generator_carries_its_spec(protocol, name, cls):
    spec = cls.spec
    assert isinstance(spec, Spec) and spec.name == name and spec.protocol == protocol
    assert spec.version >= 1 and spec.transformation and spec.picker


@pytest.mark.parametrize("name", ["TRANSTENSE", "SWAPWORDS", "BACKTRANS", "SWAPSYN-WNET", "MISSPELL"])
def test_config_records_the_spec_values_and_an_override(name):
    gen = perturb.make(name)
    cfg = gen.config()
    for c in gen.spec.constraints:
        for key, value in c.config().items():
            assert cfg[key] == value, (name, key)
    for key, value in gen.spec.facts.items():
        assert cfg[key] == value, (name, key)
    threshold = next(iter(gen.spec.thresholds()), None)
    if threshold is not None:  # another threshold given by keyword is what runs and is recorded
        arg = {"TRANSTENSE": "min_score", "SWAPWORDS": "min_score"}.get(name, "threshold")
        if name != "BACKTRANS":
            other = perturb.make(name, **{arg: 0.99})
            key = threshold.params[0].recorded_as
            assert other.config()[key] == 0.99 and gen.config()[key] == threshold.threshold


def test_every_threshold_is_written_once():
    """No perturb module keeps a second copy of a threshold: no constant, attribute or default
    argument named like a threshold holds a number (the specs' constraints hold them), and the
    spec's threshold is the generator's."""
    import ast

    named = re.compile(r"(?i)(threshold|min_score)$")
    for path in (ROOT / "perturb").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = [(t.id if isinstance(t, ast.Name) else getattr(t, "attr", ""), node.value)
                           for t in (node.targets if isinstance(node, ast.Assign) else [node.target])]
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                args = node.args.args[len(node.args.args) - len(node.args.defaults):]
                targets = [(a.arg, d) for a, d in zip(args, node.args.defaults)]
            for name, value in targets:
                if named.search(name or "") and isinstance(value, ast.Constant) and \
                        isinstance(value.value, (int, float)) and not isinstance(value.value, bool):
                    pytest.fail(f"{path.relative_to(ROOT)}:{node.lineno}: {name} = {value.value} is a second "
                                f"copy of a threshold; read it from the generator's spec")
    for protocol, name, cls in _all():
        gen = cls()
        for c in cls.spec.thresholds():
            runs = [*vars(gen).values(), *getattr(gen, "constraints", ())]  # an attribute, or the constraints the engine runs
            assert any(getattr(x, "values", None) == c.values for x in runs) or \
                getattr(cls, "weakest_edit", None) is c, (name, c.name)


def test_constraints_declare_and_check_their_parameters():
    t = threshold_constraint("demo", 0.4, description="d", evidence="e", tuning=Tuning("x.tsv", "choose", {}))
    assert t.threshold == 0.4 and t.with_values(threshold=0.7).threshold == 0.7
    assert t.check(Edit.replace(0, 1, "x", score=0.4)).passed
    assert not t.check(Edit.replace(0, 1, "x", score=0.39)).passed
    with pytest.raises(ValueError, match="no parameter 'cutoff'"):
        type(t)(cutoff=1)
    with pytest.raises(ValueError, match="must be float"):
        type(t)(threshold="high")
    f = floor_veto("cos", 0.6, measure="cosine", description="d", key="min_cosine")
    assert f.config() == {"min_cosine": 0.6}
    assert f.check(Edit.replace(0, 1, "x"), {"cos": 0.5}).reason.startswith("cosine 0.5 < 0.6")
    assert f.check(Edit.replace(0, 1, "x"), {"cos": 0.7}).passed


def test_a_new_constraint_joins_a_spec_by_editing_the_spec():
    """The worked example of docs/architecture.md: a veto added to a spec is recorded and applied."""

    class NoDigits(Veto):
        name = "no digits"
        description = "the replacement holds no digit"
        params = (Param("allow", bool, False, "let digits through"),)

        def reason(self, edit, context=None):
            new = "".join(s[2] for s in edit.spans)
            return None if self.values["allow"] or not any(c.isdigit() for c in new) else f"{new!r} has a digit"

    spec = Spec(name="DEMO", version=1, protocol="validated", transformation="t", constraints=(NoDigits(),),
                facts={"k": 1})
    assert spec.config() == {"k": 1, "allow": False}
    assert not spec.constraint("no digits").check(Edit.replace(0, 1, "b4")).passed
    with pytest.raises(KeyError, match="no constraint 'other'"):
        spec.constraint("other")


def test_edits_apply_and_exchange():
    text = "alpha beta gamma"
    assert Edit.exchange(text, 0, 5, 11, 16).apply(text) == "gamma beta alpha"
    assert Edit.replace(6, 10, "BETA").apply(text) == "alpha BETA gamma"
    with pytest.raises(ValueError, match="overlapping"):
        Edit(((0, 5, "a"), (3, 7, "b"))).apply(text)


def test_operating_points_table_in_the_methods_doc_is_generated_from_the_specs():
    doc = (ROOT / "docs" / "methods.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- operating-points:start -->\n(.*?)<!-- operating-points:end -->", doc, re.S)
    assert m, "docs/methods.md lacks the operating-points block"
    assert m.group(1) == operating_points_markdown(), \
        "regenerate it: python -m benchmarks.tuning docs (the table in docs/methods.md is not the specs')"


def test_an_output_change_comes_with_a_new_spec_version():
    """Each generator's output digest on the probe queries is the one recorded for its version."""
    from perturb.checks.spec_digest import current, probe_queries

    recorded = json.loads((DATA / "spec_digests.json").read_text(encoding="utf-8"))
    now = current(probe_queries(DATA / "probe_queries.tsv"))
    fix = "python -m benchmarks.tuning digests --write"
    for key, v in now.items():
        old = recorded.get(key)
        assert old is not None, f"{key}: no recorded digest ({fix})"
        if old["version"] == v["version"]:
            assert old["digest"] == v["digest"], \
                f"{key}: the output on the probe queries changed but spec version {v['version']} did not: " \
                f"bump the spec's version, then record it ({fix})"
        else:
            pytest.fail(f"{key}: spec version {v['version']} has no recorded digest (recorded: version "
                        f"{old['version']}); record it ({fix})")
