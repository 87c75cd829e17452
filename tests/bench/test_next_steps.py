"""Every command drbench prints for the user to paste (the "next:" lines after `bench evaluate`,
the frozen-sets fix) is built word by word from the options the parser is built from: flags
as flags, lists and paths quoted (issue 40 item 2: `--no-full-shot=True` did not parse). Each
hint of every suite parses with the real parser to the values of the run; the cheap ones run."""
from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from bench.config import COMMON, MODEL_OVERRIDES, NOT_IN_RESULT, SHARED, _suites, changed_options
from bench.cli.main import build_parser, main
from bench.cli.next_steps import command, next_steps, option_argv
from bench.core.options import option
from bench.evaluation.measures import canonical_measures
from bench.results.suite import SUITES, suite_named

FIXED = ("model", "name", "dataset", "seed", "suite")


def _value_words(opt) -> list:
    """Words that give ``opt`` a value other than its default, of every kind the parser takes."""
    flag, settings = opt.flags[0], opt.settings
    action = settings.get("action")
    if action in ("store_true", "store_false"):
        return [flag]
    if action == "append":
        return [flag, "labels dir/a b.tsv", flag, "c.tsv"]
    if "choices" in settings:
        return [flag, next(str(c) for c in settings["choices"] if c != opt.default)]
    kind = settings.get("type")
    if kind is int:
        return [flag, str((opt.default or 0) + 7)]
    if kind is float:
        return [flag, repr((opt.default or 0.0) + 0.125)]
    if kind is Path:
        return [flag, "a folder/with spaces.txt"]
    if opt.dest == "metrics":
        return [flag, "nDCG@10 R@100"]
    if opt.dest == "query_prefix":
        return [flag + "=-q: "]  # a value that starts with '-'
    return [flag, "x y,z"]


def _hints(lines):
    return {l.split(":", 1)[0].strip(): shlex.split(l.split(":", 1)[1]) for l in lines[1:]}


@pytest.mark.parametrize("suite_name", SUITES.names())
def test_every_hint_of_every_suite_parses_back_to_the_run_options(suite_name):
    suite = suite_named(suite_name)
    options = [o for o in COMMON + SHARED + MODEL_OVERRIDES + tuple(suite.options)
               if o.dest not in NOT_IN_RESULT and o.dest not in FIXED
               and (o not in SHARED or o.dest in suite.shared)]
    argv = ["evaluate", "--suite", suite_name, "--dataset", "my data/set", "--seed", "3"]
    for o in options:
        argv += _value_words(o)
    parser = build_parser("evaluate")
    args = parser.parse_args(argv)
    out = Path("runs") / f"model__set__{suite_name}__s3__h0"
    lines = next_steps(out, args, suite_name, bool(getattr(suite, "gated", False)), changed_options(args, suite))
    hints = _hints(lines)
    assert lines[0] == "next:" and all(words[0] == "bench" for words in hints.values())
    other = hints["another model"]
    back = build_parser("evaluate").parse_args(other[1:])  # exits 2 (SystemExit) if it does not parse
    assert back.model == "OTHER_MODEL" and back.dataset == "my data/set" and back.seed == 3
    assert back.suite == suite_name and back.out == Path("runs") / f"OTHER_MODEL__set__{suite_name}__s3__h0"
    for o in options:
        want, got = getattr(args, o.dest), getattr(back, o.dest)
        if o.dest == "metrics":
            want, got = canonical_measures(want), canonical_measures(got)
        assert got == want, (o.flags[0], other)
    assert not any("=True" in w or "=False" in w or w.startswith("--labels=[") for w in other)
    report = build_parser("report").parse_args(hints["report (HTML)"][1:])
    assert report.run == str(out)
    if "compare the two" in hints:
        assert build_parser("compare").parse_args(hints["compare the two"][1:]).runs == [str(out), str(back.out)]
    if "gate (CI regression)" in hints:
        gate = build_parser("gate").parse_args(hints["gate (CI regression)"][1:])
        assert (gate.baseline, gate.candidate) == (str(out), str(back.out))


def test_option_words_flags_lists_and_dashes():
    assert option_argv(option("--no-full-shot", action="store_true"), True) == ["--no-full-shot"]
    assert option_argv(option("--no-full-shot", action="store_true"), False) == []
    assert option_argv(option("--labels", action="append"), ["a", "b"]) == ["--labels", "a", "--labels", "b"]
    assert option_argv(option("--seed", type=int), -1) == ["--seed=-1"]
    assert option_argv(option("--split"), None) == []
    assert command("evaluate", "--metrics", "nDCG@10 R@100") == "bench evaluate --metrics 'nDCG@10 R@100'"


def test_the_fewshot_hints_run_as_printed(tiny_bert, tmp_path, capsys, monkeypatch):
    """The issue's case: a few-shot run with flags (`--no-full-shot`, `--no-basic-learning`); its
    "another model" line, pasted with a model filled in, runs, and so does its report and gate lines."""
    from tests.suites.test_fewshot_suite import write_labelled_beir

    monkeypatch.chdir(tmp_path)
    folder = write_labelled_beir(tmp_path / "labelled data")
    run = ["--suite", "fewshot", "--dataset", str(folder), "--ks", "2", "--trials", "1", "--no-full-shot",
           "--no-basic-learning", "--max-steps", "1", "--train-batch-size", "4", "--resamples", "50", "--no-plots"]
    assert main(["evaluate", "--model", str(tiny_bert), *run, "--no-progress"]) == 0
    lines = capsys.readouterr().out.splitlines()
    hints = _hints(lines[lines.index("next:"):])
    assert list(hints) == ["report (HTML)", "another model", "gate (CI regression)"]
    other = hints["another model"][1:]
    assert "--no-full-shot" in other and "--no-basic-learning" in other and "--no-full-shot=True" not in other
    other[other.index("OTHER_MODEL")] = str(tiny_bert)
    assert main(other + ["--no-progress"]) == 0
    out_folder = Path(other[other.index("--out") + 1])
    assert (out_folder / "result.json").is_file()
    capsys.readouterr()
    assert main(hints["report (HTML)"][1:] + ["--no-plots"]) == 0
    assert main(hints["gate (CI regression)"][1:]) in (0, 1)  # a verdict, not "not comparable" (2)


def test_the_variations_hints_run_as_printed(beir_dir, tmp_path, capsys, monkeypatch):
    """A variations run with a quoted list of measures: the other run, compare and gate run as printed."""
    monkeypatch.chdir(tmp_path)
    assert main(["evaluate", "--model", "bm25", "--dataset", str(beir_dir), "--generators", "EXTRAPUNC",
                 "--metrics", "RR nDCG@10", "--top-k", "6", "--no-progress"]) == 0
    lines = capsys.readouterr().out.splitlines()
    hints = _hints(lines[lines.index("next:"):])
    other = hints["another model"][1:]
    assert other[other.index("--metrics") + 1] == "RR nDCG@10"
    other[other.index("OTHER_MODEL")] = "bm25"
    assert main(other + ["--name", "bm25-again", "--no-progress"]) == 0
    capsys.readouterr()
    assert main(hints["compare the two"][1:]) == 0
    assert main(hints["gate (CI regression)"][1:]) in (0, 1)  # a verdict, not "not comparable" (2)


def test_the_frozen_sets_fix_is_quoted(tmp_path):
    from types import SimpleNamespace

    from bench.reporting.comparability import frozen_sets_fix

    base = SimpleNamespace(seed=0, folder=tmp_path / "base run")
    cand = SimpleNamespace(result={"model": {"name": "my model"}, "dataset": {"name": "chatterbot"}})
    text = frozen_sets_fix(base, cand)
    words = shlex.split(text.split(": ", 1)[1].rsplit(" (", 1)[0])
    args = build_parser("evaluate").parse_args(words[1:])
    assert args.model == "my model" and args.variations == tmp_path / "base run" / "variations" and args.seed == 0
