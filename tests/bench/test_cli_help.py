"""Help and argument errors as a newcomer meets them: `bench evaluate --help` shows one suite's
options (the default suite's, or the one named with --suite) and names the command for the
others; every option of every command has a help line; an unquoted list names the fix."""
import argparse
import contextlib
import io

import pytest

from bench.cli.main import COMMANDS, build_parser, main
from bench.results.suite import SUITES, suite_named


def _help(argv):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), pytest.raises(SystemExit):
        main(argv)
    return buf.getvalue()


def _options(command):
    parser = build_parser(command)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return [a for a in sub.choices[command]._actions if a.option_strings]


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_option_has_a_help_line(command):
    missing = [a.option_strings[0] for a in _options(command) if not (a.help or "").strip()]
    assert missing == [], f"bench {command}: options without help: {missing}"


@pytest.mark.parametrize("name", SUITES.names())
def test_evaluate_help_for_one_suite_shows_only_its_options(name):
    text = _help(["evaluate", "--suite", name, "--help"])
    suite = suite_named(name)
    for o in suite.options:
        assert o.flags[0] in text
    for other in SUITES.names():
        if other == name:
            continue
        assert f"bench evaluate --suite {other} --help" in " ".join(text.split())
        own = {f for o in suite.options for f in o.flags}
        foreign = [f for o in suite_named(other).options for f in o.flags if f not in own]
        assert foreign and not [f for f in foreign if f"  {f} " in text or f"  {f}\n" in text], other


def test_evaluate_help_without_a_suite_shows_the_default_suites():
    text = _help(["evaluate", "--help"])
    assert text == _help(["evaluate", "--suite=variations", "--help"])
    assert "--generators" in text and "--ks" not in text
    assert len(text.splitlines()) < 200


def test_a_help_with_an_unknown_suite_lists_every_option():
    text = _help(["evaluate", "--suite", "nope", "--help"])
    assert "--generators" in text and "--ks" in text


def test_parsing_still_takes_every_suites_options():
    args = build_parser("evaluate").parse_args(["evaluate", "--suite", "fewshot", "--ks", "5", "--generators", "MISSPELL"])
    assert args.ks == "5" and args.generators == "MISSPELL"


@pytest.mark.parametrize("argv, fix", [
    (["evaluate", "--metrics", "nDCG@10", "R@100"], 'quote the list, --metrics "nDCG@10 R@100"'),
    (["evaluate", "--metrics=nDCG@10", "R@100", "P@10", "--top-k", "5"], 'quote the list, --metrics "nDCG@10 R@100 P@10"'),
    (["evaluate", "--suite", "fewshot", "--ks", "5", "20"], "join it with commas, --ks 5,20"),
])
def test_an_unquoted_list_says_how_to_give_it(argv, fix, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("bench evaluate: error: unrecognized arguments:") and fix in err
    assert "usage: bench [-h]" not in err  # not the top-level usage


def test_an_unknown_option_is_named_without_a_list_hint(capsys):
    assert main(["evaluate", "--bogus"]) == 2
    err = capsys.readouterr().err
    assert "unrecognized arguments: --bogus" in err and "list" not in err


def test_compare_help_says_what_the_interval_is_and_speaks_of_no_bootstrap():
    text = " ".join(_help(["compare", "--help"]).split())
    assert "bootstrap" not in text.lower()
    assert "skewness-widened t interval" in text and "no resampling" in text


def test_gate_help_names_every_exit_code():
    text = " ".join(_help(["gate", "--help"]).split())
    for code in ("0 PASS", "1 FAIL", "2 the runs cannot be compared"):
        assert code in text, code
