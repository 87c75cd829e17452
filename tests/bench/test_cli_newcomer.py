"""What a newcomer sees around a run: inputs checked before any model loads (with the accepted
--dataset forms), trec_eval names read and said, the run's total time and the next commands
with its folder filled in, a quiet Python API, every suite in `bench --help`."""
import shlex
import subprocess
import sys

import pytest

import bench
from bench.cli.main import build_parser, main


def test_help_lists_every_registered_suite():
    out = subprocess.run([sys.executable, "-m", "bench.cli.main", "--help"], capture_output=True, text=True,
                         check=True).stdout
    from bench.results.suite import SUITES

    line = next(l for l in out.splitlines() if l.strip().startswith("evaluate"))
    assert all(name in line for name in SUITES.names()) and "domain" in line


@pytest.mark.parametrize("spec, says", [
    ("scifact", "'scifact' is neither a registered dataset (chatterbot) nor an existing folder"),
    ("chatterbt", "Did you mean 'chatterbot'?"),
    ("data/msmarco", "no such folder: data/msmarco."),
])
def test_a_bad_dataset_is_refused_before_the_model_with_every_accepted_form(spec, says, capsys):
    assert main(["evaluate", "--model", "minilm-l6", "--dataset", spec]) == 2
    err = capsys.readouterr().err
    assert says in err
    assert "model minilm-l6" not in err  # refused before the model is resolved or described
    for example in ("--dataset chatterbot", "beir:data/scifact", "msmarco:data/msmarco", "irds:", "trec:corpus="):
        assert example in err


def test_a_run_says_its_time_and_the_next_commands_which_run_as_printed(beir_dir, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["evaluate", "--model", "bm25", "--dataset", str(beir_dir), "--generators", "EXTRAPUNC",
                 "--metrics", "recip_rank ndcg_cut_10", "--top-k", "6", "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert "--metrics recip_rank read as RR (trec_eval name)" in captured.err
    assert "--metrics ndcg_cut_10 read as nDCG@10 (trec_eval name)" in captured.err
    lines = captured.out.splitlines()
    assert any(l.startswith("total time ") and l.endswith("(bench evaluate, start to end)") for l in lines)
    steps = {l.split(":", 1)[0].strip(): l.split(":", 1)[1].strip() for l in lines[lines.index("next:") + 1:]}
    assert list(steps) == ["report (HTML)", "another model", "compare the two", "gate (CI regression)"]
    folder = next(p for p in (tmp_path / "runs").iterdir())
    assert steps["report (HTML)"] == f"bench report {shlex.quote(str(folder.relative_to(tmp_path)))}"
    # the other model's run repeats every option that changes the result: it lands beside this one
    # under the same options hash, so compare and gate accept the pair
    other = shlex.split(steps["another model"])[1:]
    args = build_parser("evaluate").parse_args(other)
    assert args.metrics == "RR nDCG@10" and args.top_k == 6 and args.generators == "EXTRAPUNC"
    assert str(args.out).endswith(folder.name.split("__", 1)[1])
    assert main(other[:other.index("--out") + 2] + ["--no-progress"]) == 2  # OTHER_MODEL is a placeholder
    assert "OTHER_MODEL" in capsys.readouterr().err


def test_the_api_is_quiet_unless_verbose(beir_dir, tmp_path, capsys):
    r = bench.evaluate(model="bm25", dataset=str(beir_dir), generators=["EXTRAPUNC"], out=tmp_path / "a", top_k=6)
    captured = capsys.readouterr()
    assert "drop MRR@10" not in captured.out and "next:" not in captured.out
    assert "EXTRAPUNC: 5 queries" in captured.err  # progress and status lines are kept (generated or cached)
    s = r.summary
    assert str(s.loc["ORIGINAL", "n_applied"]) == "<NA>"  # nothing applied to ORIGINAL: empty, not 0
    assert s.loc["EXTRAPUNC", "n_applied"] == 5
    assert "VARIATIONS (AVG.)" in s.index
    bench.evaluate(model="bm25", dataset=str(beir_dir), generators=["EXTRAPUNC"], out=tmp_path / "b", top_k=6,
                   verbose=True, no_progress=True)
    assert "drop MRR@10" in capsys.readouterr().out


def test_report_compare_and_gate_read_a_trec_eval_metric_name(beir_dir, tmp_path, capsys):
    run = tmp_path / "r"
    assert main(["evaluate", "--model", "bm25", "--dataset", str(beir_dir), "--generators", "EXTRAPUNC",
                 "--out", str(run), "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["report", str(run), "--format", "md", "--no-plots", "--metric", "ndcg_cut_10"]) == 0
    got = capsys.readouterr()
    assert "--metric ndcg_cut_10 read as nDCG@10 (trec_eval name)" in got.err and "Largest drop on nDCG@10" in got.out
    assert main(["compare", str(run), str(run), "--metric", "recip_rank"]) == 2  # read as RR: not measured here
    assert "metric 'RR' not measured" in capsys.readouterr().err
    assert main(["gate", "--baseline", str(run), "--candidate", str(run), "--metric", "recall_100"]) == 0
    assert "read as R@100" in capsys.readouterr().err


def test_counts_of_one_are_singular_and_cached_sets_say_so(beir_dir, tmp_path, capsys):
    """Issue 40 item 9: "1 sets" / "1 trials"; "generating MISSPELL ... done in 0.1 s" for a set
    read from the variation cache."""
    from bench.core.progress import count

    assert (count(1, "set"), count(3, "trial"), count(0, "query")) == ("1 set", "3 trials", "0 queries")
    run = ["evaluate", "--model", "bm25", "--dataset", str(beir_dir), "--generators", "EXTRAPUNC", "--seed", "4040"]
    assert main(run + ["--out", str(tmp_path / "a")]) == 0
    first = capsys.readouterr()
    assert "generating EXTRAPUNC: 5 queries ... done in" in first.err
    assert "1 sets" not in first.out and "over 1 set," in first.out
    avg = next(l for l in first.out.splitlines() if l.startswith("VARIATIONS (AVG.) "))
    assert " 1 set " in avg
    assert main(run + ["--out", str(tmp_path / "b")]) == 0
    err = capsys.readouterr().err
    assert "EXTRAPUNC: 5 queries from the variation cache ... done in" in err and "generating EXTRAPUNC" not in err
