"""The few-shot suite says up front which K values run (and why another does not) and counts
every training run on one overall line with an ETA."""
import io
from types import SimpleNamespace

from bench.core import progress as P
from suites.fewshot.progress import Overall, plan_line, training_runs


def _plan():
    return SimpleNamespace(ks=[5, 20], trials={5: [1, 2, 3], 20: [1, 2, 3]},
                           skipped_k={100: "2 novel classes have >= 100 training queries (need 3)"})


def test_the_plan_line_names_the_k_values_that_run_and_why_one_does_not():
    line = plan_line(_plan(), [5, 20, 100], 3, ["full", "bitfit"], full_shot=True)
    assert line == ("plan: K 5, 20 run (3 trials each, 2 methods, + full-shot) = 14 training runs; "
                    "K=100 not run: 2 novel classes have >= 100 training queries (need 3)")
    assert training_runs(_plan(), ["full"], full_shot=False) == 6


def test_the_overall_line_counts_every_run_with_an_eta(monkeypatch):
    t = [0.0]
    monkeypatch.setattr(P, "_clock", lambda: t[0])
    out = io.StringIO()
    overall = Overall(3, enabled=True)
    overall.bar.stream = out

    def work(unit):
        t[0] += 60
        return unit.set_name

    counted = overall.wrap(work)
    assert [counted(SimpleNamespace(set_name=f"full/K=5/trial={i}")) for i in (1, 2, 3)] == [
        "full/K=5/trial=1", "full/K=5/trial=2", "full/K=5/trial=3"]
    overall.close()
    assert out.getvalue().splitlines() == [
        "[few-shot training runs (all methods)] 1/3 (33%) 60.0 s/run ETA 02:00 (last=full/K=5/trial=1)",
        "[few-shot training runs (all methods)] 2/3 (67%) 60.0 s/run ETA 01:00 (last=full/K=5/trial=2)",
        "[few-shot training runs (all methods)] 3/3 (100%) 60.0 s/run in 03:00 (last=full/K=5/trial=3)"]


def test_no_overall_line_for_a_remote_executor_or_with_progress_off():
    class Remote:
        pass

    assert not Overall(3, enabled=True, executor=Remote()).bar.enabled
    assert not Overall(3, enabled=False).bar.enabled
