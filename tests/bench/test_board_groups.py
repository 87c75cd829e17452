"""Issue 16 items 2, 4, 8 and issue 15 item 9: few-shot leaderboard rows are ranked; compare groups
incomparable runs by the gate's rule and compares the drop rates of comparable pairs; the default
run folder changes with the options that change the result."""
import csv
import io
import json
import shutil
from pathlib import Path

import pytest

from bench.cli.evaluate import namespace
from bench.config import default_out
from bench.cli.main import main
from bench.evaluation.droprate import compare_drop_rates
from bench.reporting.compare import compare
from bench.reporting.compare.droprate import pair_key
from bench.results.rundir import load_run
from bench.reporting.leaderboard import build
from bench.results.suite import suite_named
from tests.bench.runfactory import write_bound_per_query
from runfactory import synthetic_values, write_run

FEWSHOT = Path(__file__).resolve().parents[2] / "results" / "runs" / "minilm-l6__chatterbot__fewshot__s0"


def _fewshot_copy(tmp_path, name, degrade=False):
    dst = tmp_path / name
    shutil.copytree(FEWSHOT, dst)
    res = json.loads((dst / "result.json").read_text())
    res["model"]["name"] = name
    (dst / "result.json").write_text(json.dumps(res))
    if degrade:  # lose every other hit of the headline setting (qry-tune K=5) in every trial
        lines = (dst / "per_query.csv").read_text().splitlines()
        out, hit = [lines[0]], 0
        for line in lines[1:]:
            parts = line.split(",")
            if parts[0].startswith("qry-tune/K=5/") and parts[3] == "1.0":
                hit += 1
                parts[3] = "0.0" if hit % 2 else parts[3]
            out.append(",".join(parts))
        write_bound_per_query(dst, "\n".join(out) + "\n")
    return dst


@pytest.mark.skipif(not FEWSHOT.exists(), reason="committed few-shot run missing")
def test_fewshot_rows_are_ranked_by_the_macro_headline(tmp_path):
    from bench.reporting.leaderboard import rows as LR
    from bench.results.rundir import load_run

    run = load_run(FEWSHOT)
    setting, head, _ = LR.headline(run)
    assert setting == "qry-tune/K=5"
    assert LR.fewshot_series(run).mean() == pytest.approx(head, abs=1e-12)  # the ranked score is the headline
    same, worse = _fewshot_copy(tmp_path, "fs-same"), _fewshot_copy(tmp_path, "fs-worse", degrade=True)
    board = build([worse, same], log=lambda m: None)
    rows = list(csv.DictReader(io.StringIO(board.wide_csv())))
    assert [(r["group"], r["model"], r["rank"], r["rank_low"], r["rank_high"], r["tied"]) for r in rows] == [
        ("chatterbot:fewshot", "fs-same", "1", "1", "1", "false"),
        ("chatterbot:fewshot", "fs-worse", "2", "2", "2", "false")]
    assert rows[0]["ranked_on"] == "R@10/qry-tune K=5 all"
    assert float(rows[0]["R@10/qry-tune K=5 all"]) == pytest.approx(head)
    md = board.markdown()
    assert "| 1 | 1-1 | no | fs-same | chatterbot:fewshot | R@10/qry-tune K=5 all |" in md


def _two_groups(tmp_path):
    a = write_run(tmp_path / "a", synthetic_values(1, n=40), model="model-a")
    b = write_run(tmp_path / "b", synthetic_values(2, n=40, drops={"MISSPELL": 0.6}), model="model-b")
    small = write_run(tmp_path / "s", synthetic_values(3, n=40, sets=("MISSPELL",)), model="model-small")
    return a, b, small


def test_compare_groups_incomparable_runs_and_compares_drop_rates_within_a_group(tmp_path):
    a, b, small = _two_groups(tmp_path)
    t = compare([a, small, b], resamples=2000, seed=3)
    assert t.groups == [1, 2, 1]
    assert t.rows == ["model-a [group 1]", "model-small [group 2]", "model-b [group 1]"]
    assert any("group 2 (model-small on toy-data) is not comparable with group 1" in n and "absent" in n
               for n in t.notes)
    assert len(t.drop_rates) == 1  # only the comparable pair
    d = t.drop_rates[0]
    assert (d["model_a"], d["model_b"]) == ("model-a [group 1]", "model-b [group 1]")
    # the record is the statistics kernel on the paired per-query arrays (VARIATIONS (AVG.) = mean of the sets)
    va, vb = synthetic_values(1, n=40), synthetic_values(2, n=40, drops={"MISSPELL": 0.6})
    ref = compare_drop_rates(va["ORIGINAL"]["MRR@10"], (va["MISSPELL"]["MRR@10"] + va["SWAPWORD"]["MRR@10"]) / 2,
                             vb["ORIGINAL"]["MRR@10"], (vb["MISSPELL"]["MRR@10"] + vb["SWAPWORD"]["MRR@10"]) / 2,
                             B=2000, n_resamples=2000, seed=3,
                             key=pair_key("MRR@10", load_run(a), load_run(b)))
    assert d["difference"] == pytest.approx(ref.difference) and d["p_value"] == pytest.approx(ref.p_value)
    assert (d["ci_low"], d["ci_high"]) == pytest.approx((ref.ci_low, ref.ci_high))
    assert d["ci_low"] <= d["difference"] <= d["ci_high"]
    md = t.markdown()
    assert "### Drop rate of VARIATIONS (AVG.) (MRR@10)" in md and "skewness-widened t interval" in md
    assert compare([a, small, b], resamples=2000, seed=3).markdown() == md  # deterministic


def test_compare_cli_drop_rate_csv_and_api(tmp_path, capsys):
    a, b, _ = _two_groups(tmp_path)
    out = tmp_path / "dr.csv"
    assert main(["compare", str(a), str(b), "--resamples", "500", "--drop-rate-output", str(out)]) == 0
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert len(rows) == 1 and rows[0]["model_a"] == "model-a" and float(rows[0]["n"]) == 40
    assert "skewness-widened t" in rows[0]["interval_method"] and "two-sided" in rows[0]["test_method"]
    assert main(["compare", str(a), "--resamples", "0"]) == 2
    assert "--resamples 0" in capsys.readouterr().err
    from bench.api import load_run

    df = load_run(a).compare(b, resamples=500)
    assert len(df.attrs["drop_rate"]) == 1 and df.attrs["drop_rate"][0]["model_b"] == "model-b"


def test_default_run_folder_changes_with_result_changing_options_only():
    suite = suite_named("variations")
    base, changed = default_out(namespace(), suite, "minilm-l6", "chatterbot")
    assert base == Path("runs") / "minilm-l6__chatterbot__variations__s0" and changed == []
    gen, changed = default_out(namespace(generators="MISSPELL"), suite, "minilm-l6", "chatterbot")
    assert gen.name.startswith("minilm-l6__chatterbot__variations__s0__h") and changed == ["--generators=MISSPELL"]
    assert default_out(namespace(generators="MISSPELL", no_progress=True, executor="local"), suite, "minilm-l6",
                       "chatterbot")[0] == gen  # progress and executor do not change the numbers
    other = default_out(namespace(generators="SWAPWORDS"), suite, "minilm-l6", "chatterbot")[0]
    topk = default_out(namespace(top_k=10), suite, "minilm-l6", "chatterbot")[0]
    assert len({base, gen, other, topk}) == 4
    assert default_out(namespace(generators="MISSPELL"), suite, "minilm-l6", "chatterbot")[0] == gen  # stable
    assert gen.name == "minilm-l6__chatterbot__variations__s0__h64cf5f4e"  # the hash must not change by accident


def test_default_run_folder_of_another_dataset_with_the_same_name_is_not_overwritten(tmp_path):
    from bench.config import _refuse_other_dataset
    from bench.core.errors import BenchError

    class Data:
        name = "beir-x"

        def __init__(self, fp):
            self.fp = fp

        def fingerprint(self):
            return self.fp

    (tmp_path / "result.json").write_text(json.dumps({"dataset": {"fingerprint": "aaaa"}}))
    _refuse_other_dataset(tmp_path, Data("aaaa"))  # the same dataset: rerun in place
    _refuse_other_dataset(tmp_path / "new", Data("bbbb"))  # no run there yet
    with pytest.raises(BenchError, match="another dataset named 'beir-x'.*give --out a new folder"):
        _refuse_other_dataset(tmp_path, Data("bbbb"))


def test_compare_speaks_of_runs_not_of_a_baseline_and_counts_in_the_right_number(tmp_path):
    """Issue 40 item 9: compare's not-comparable note names the runs as compare sees them (first and
    second run), not with the gate's baseline / candidate; a count of 1 takes the singular."""
    from bench.reporting.tables import variations_table

    a, b, small = _two_groups(tmp_path)
    t = compare([a, small, b], resamples=200, seed=3)
    note = next(n for n in t.notes if "group 2" in n)
    assert "first run" in note and "the second run's model on the first run's frozen sets" in note
    assert "baseline" not in note and "candidate" not in note and "a gate compares" not in note
    md = t.markdown()
    assert "corrected over the 1 pair:" in md and "pair(s)" not in md
    table = variations_table(load_run(small).result)  # one variation set
    assert "1 set " in table and "1 sets" not in table
    # the gate keeps its words
    from bench.core.errors import IncompatibleRuns
    from bench.reporting.gate import run_gate

    with pytest.raises(IncompatibleRuns, match="evaluate the candidate on the baseline.s frozen sets"):
        run_gate(a, small)
