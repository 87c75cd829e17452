"""A suite defined outside the built-ins works end to end through the Suite protocol: evaluate
(its own option group, foreign options refused), report, compare and the model listing, with
no consumer knowing its name."""
from pathlib import Path

import pytest

from bench.cli.main import main
from bench.core.options import option
from bench.evaluation.measures import per_query
from bench.results.rundir import ORIGINAL
from bench.results.suite import SUITES, Suite, suite_named, suite_of
from bench.results.writer import begin_run, per_query_csv, result_header, write_run
from bench.core.timing import Timer
from bench.search.retriever import make_retriever


class LowerCaseSuite(Suite):
    """ORIGINAL queries and the same queries upper-cased: one variation set of a plug-in's own."""

    name = "tiny-case"
    description = "a plug-in suite of the tests: ORIGINAL vs UPPER-CASED queries"
    options = (option("--tiny-repeat", type=int, default=1, help="how often to repeat the upper-cased set"),)
    shared = frozenset({"top_k"})
    layout = "sets"
    reference = ORIGINAL

    def run(self, values, spec, dataset, measures, out_dir, executor) -> int:
        retriever = make_retriever(spec, dataset, Timer())
        qids = dataset.judged_query_ids()
        names = [m.name for m in measures]
        sets, rows = [], []
        for i in range(1 + values.tiny_repeat):
            name = ORIGINAL if i == 0 else f"UPPER{i}"
            texts = [dataset.queries[q].text if i == 0 else dataset.queries[q].text.upper() for q in qids]
            run = retriever.search(qids, texts, values.top_k)
            vals = per_query(measures, dataset.qrels, run, qids)
            sets.append({"name": name, "label": name, "status": "ok", "n_queries": len(qids),
                         "n_applied": len(qids), "n_evaluated": len(qids),
                         "metrics": {n: sum(vals[n].values()) / len(qids) for n in names}})
            rows += [(name, q, int(i > 0), [vals[n][q] for n in names]) for q in qids]
        result = {**result_header(self.name, spec, dataset, values.seed), "measures": names, "sets": sets,
                  "summary": {}, "notes": [], "per_query_file": "per_query.csv"}
        begin_run(Path(out_dir))
        write_run(Path(out_dir), result, per_query_csv(rows, names), {})
        print(f"{self.name}: {len(sets)} sets written to {out_dir}")
        return 0


@pytest.fixture
def tiny_suite():
    SUITES.register("tiny-case", LowerCaseSuite())
    try:
        yield
    finally:  # the registry has no public removal: tests must not leak a suite into others
        SUITES._entries.pop("tiny-case", None)
        SUITES._display.pop("tiny-case", None)


def test_plugin_suite_runs_end_to_end(tmp_path, capsys, tiny_suite):
    out = tmp_path / "run"
    rc = main(["evaluate", "--suite", "tiny-case", "--model", "bm25", "--dataset", "chatterbot", "--tiny-repeat", "2",
               "--metrics", "RR@10 nDCG@10", "--out", str(out), "--no-progress"])
    assert rc == 0, capsys.readouterr()
    assert "3 sets written" in capsys.readouterr().out
    assert suite_of({"suite": "tiny-case"}).layout == "sets"
    assert main(["report", str(out), "--format", "md", "-o", str(tmp_path / "r.md")]) == 0
    report = (tmp_path / "r.md").read_text()
    assert "UPPER1" in report and "UPPER2" in report
    assert main(["compare", str(out), "--metric", "RR@10"]) == 0
    assert "UPPER2" in capsys.readouterr().out
    assert main(["models"]) == 0
    assert "tiny-case" in capsys.readouterr().out


def test_options_of_other_suites_are_refused(tmp_path, capsys, tiny_suite):
    rc = main(["evaluate", "--suite", "variations", "--model", "bm25", "--tiny-repeat", "3", "--out",
               str(tmp_path / "x"), "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 2 and "--tiny-repeat (applies to --suite tiny-case)" in err
    rc = main(["evaluate", "--suite", "variations", "--model", "bm25", "--methods", "lora", "--trials", "9",
               "--out", str(tmp_path / "y"), "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 2 and "--methods (applies to --suite fewshot)" in err and "--trials" in err
    rc = main(["evaluate", "--suite", "tiny-case", "--model", "bm25", "--correction", "bh", "--out",
               str(tmp_path / "z"), "--no-progress"])
    assert rc == 2 and "--correction" in capsys.readouterr().err
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists() and not (tmp_path / "z").exists()


def test_builtin_suites_follow_the_protocol():
    for name in ("variations", "fewshot", "domain"):
        s = suite_named(name)
        assert s.name == name and s.layout in ("sets", "fewshot") and callable(s.run)
        assert len({o.dest for o in s.options}) == len(s.options)  # no option declared twice
