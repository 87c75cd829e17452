"""docs/statistics.md's interval-coverage summary and benchmarks/results/interval_coverage.md's
per-cell table are those benchmarks/interval_coverage.py writes from its committed results
(``--check``), in the documented format, and the simulation behind it
runs (a few replications of one cell)."""
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: benchmarks/ is a package there

from benchmarks import interval_coverage as IC  # noqa: E402


def test_docs_table_is_the_committed_results_table():
    assert IC.check() == []
    assert IC.main(["--check"]) == 0


def test_table_format_and_every_interval_present():
    data = json.loads(IC.JSON.read_text(encoding="utf-8"))
    lines = IC.CELLS.read_text(encoding="utf-8").splitlines()
    head = ("| interval | population | n | G | changed | plain | BCa | studentized | two-level | skew-t (ships) "
            "| skew-t, not flagged (flagged) |")
    assert head in lines
    rows = [x for x in lines[lines.index(head) + 2:] if x.startswith("| ")]
    cell = re.compile(r"^(-|\d+\.\d ± \d+\.\d)$")
    kinds = set()
    for row in rows[:len(data["rows"])]:
        parts = [p.strip() for p in row.strip("|").split("|")]
        assert len(parts) == 11
        kinds.add(parts[0])
        assert all(cell.match(p) for p in parts[5:10]), row
    assert kinds == set(IC.TITLES.values())
    assert {r["n"] for r in data["rows"]} == {30, 100}
    assert any(r["population"].startswith("real:") for r in data["rows"])
    assert "| interval | plain: method | plain | skew-t | skew-t, not flagged |" in lines
    block = IC.docs_block(IC.DOC.read_text(encoding="utf-8")).splitlines()  # the docs hold the summary
    summary = lines[lines.index("| interval | plain: method | plain | skew-t | skew-t, not flagged |"):]
    assert block[-len(summary) - 2:-2] == summary and "benchmarks/results/interval_coverage.md" in block[-1]


def test_one_cell_runs_with_the_tools_functions(tmp_path):
    rows = IC.run(["single", "delta"], [30], reps=6, cand_reps=2, B=50, seed=0, real=False, log=lambda s: None,
                  only_populations=["sparse-skewed"])
    assert [r["interval"] for r in rows] == ["single", "delta"]
    r = rows[0]
    assert r["reps"] == 6 and r["reps_by_method"] == {"before": 6, "skew-t": 6, "studentized": 2, "BCa": 2}
    assert 0 <= r["coverage"]["skew-t"] <= 1 and r["population"] == "sparse-skewed"
    assert IC.table({"args": {"reps": 6, "candidate_reps": 2, "B": 50, "seed": 0}, "seconds": 1.0, "rows": rows})


def test_the_shortfall_benchmarks_vectorized_interval_is_the_tools():
    """benchmarks/coverage_shortfall.py computes the shipped interval on all replications at once;
    it must be skew_t_ci's, for every statistic, on sparse one-sided and two-sided data."""
    import numpy as np

    from benchmarks import coverage_shortfall as CS
    from bench.evaluation.skew import AVERAGE_DROP_RATE, DROP_RATE, DROP_RATE_DIFFERENCE, MEAN, skew_t_ci

    rng = np.random.default_rng(3)
    o = np.where(rng.random((12, 30)) < 0.4, 0.0, 1.0 / rng.integers(1, 11, (12, 30)))
    hurt = rng.random((12, 30)) < 0.2
    v = np.where(hurt, o * rng.choice([0.0, 0.5, 1.5], (12, 30)), o)
    for x, stat in ((np.stack([o, v], -1), DROP_RATE), ((v - o)[:, :, None], MEAN),
                    (np.stack([o, v, o, np.where(rng.random((12, 30)) < 0.3, 0.0, o)], -1), DROP_RATE_DIFFERENCE),
                    (np.stack([o, v, o, np.minimum(v, o)], -1), AVERAGE_DROP_RATE)):
        q = CS._q(30)
        lo, hi = CS.union(x, stat, CS.t_part(x, stat, q), CS.hall_part(x, stat, q))
        for r in range(x.shape[0]):
            assert np.allclose([lo[r], hi[r]], skew_t_ci(x[r], stat), rtol=1e-9, atol=1e-12, equal_nan=True), (stat, r)


def test_the_one_sided_candidate_takes_halls_interval_only_where_every_change_has_one_sign():
    """The measured candidate "one-sided: Hall alone": rows whose changes all have one sign (rounding
    noise of a mean over draws counts as none) get Hall's interval, the others the shipped union."""
    import numpy as np

    from benchmarks import coverage_shortfall as CS
    from bench.evaluation.skew import DROP_RATE, hall_ci, skew_t_ci

    d = np.array([[0.0, -0.5, -0.2, 0.0], [0.0, -0.5, 0.3, 0.0], [1e-17, -0.5, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]])
    assert CS.one_sided(d).tolist() == [True, False, True, True]
    rng = np.random.default_rng(5)
    o = 1.0 / rng.integers(1, 6, (2, 40))
    v = np.stack([np.where(rng.random(40) < 0.3, o[0] / 2, o[0]),  # losses only
                  np.where(rng.random(40) < 0.3, o[1] * rng.choice([0.5, 1.5], 40), o[1])])  # both ways
    x = np.stack([o, v], -1)
    lo, hi = CS.intervals(x, DROP_RATE, np.full(2, 12), v - o)["one-sided: Hall alone"]
    assert np.allclose([lo[0], hi[0]], hall_ci(x[0], DROP_RATE)) and np.allclose([lo[1], hi[1]], skew_t_ci(x[1], DROP_RATE))
    assert lo[0] > skew_t_ci(x[0], DROP_RATE)[0]  # the union's lower end (the t interval's) is lower


def test_the_intervals_measured_limit_is_said_beside_every_method_that_prints_it():
    """docs/statistics.md, "Where it still falls short": no flag sees heavy-tailed one-sided losses,
    so every method text of a drop-rate or difference interval carries the limit."""
    from bench.evaluation import draws, droprate, intervals
    from bench.evaluation.skew import SHORTFALL
    from bench.results import applicability

    assert "1-3 points" in SHORTFALL and "one-sided" in SHORTFALL
    for text in (intervals.CI_DESCRIPTIONS["skew-t"], droprate.INTERVAL_METHOD, draws.INTERVAL, applicability.AVG_METHOD):
        assert SHORTFALL in text
    doc = (Path(__file__).resolve().parents[2] / "docs" / "statistics.md").read_text(encoding="utf-8")
    assert "`SHORTFALL` of\n`bench/evaluation/skew.py`" in doc
