"""What ``bench evaluate`` says when it has checked its inputs and when it ends: the accepted
``--dataset`` forms (checked before any model or data is loaded) and, after a run, its total
time and the commands a user runs next with this run's folder filled in."""
from __future__ import annotations

import shlex
from pathlib import Path
from typing import List, Tuple

from bench.core.options import option


def duration(seconds: float) -> str:
    s = max(0, int(round(seconds)))
    return f"{seconds:.1f} s" if seconds < 60 else f"{s // 60} min {s % 60:02d} s"


def option_argv(opt, value) -> List[str]:
    """``value`` of the declared option ``opt`` (:class:`bench.core.options.Option`, the settings
    the parser is built from) as the command-line words that parse back to it: a flag alone
    (``--no-full-shot``, never ``--no-full-shot=True``), an appended option once per value, any
    other option as ``--flag VALUE`` (``--flag=VALUE`` when the value starts with ``-``, which the
    parser would read as an option). Nothing for a value the option's absence gives."""
    flag, action = opt.flags[0], opt.settings.get("action")
    if action == "store_true":
        return [flag] if value else []
    if action == "store_false":
        return [] if value else [flag]
    if value is None:
        return []
    values = list(value) if action == "append" else [value]
    words: List[str] = []
    for v in values:
        text = str(v)
        words += [f"{flag}={text}"] if text.startswith("-") else [flag, text]
    return words


def command(*words) -> str:
    """``bench WORD ...`` as one shell line: every word quoted by :func:`shlex.join` where it
    needs it (a list such as ``--metrics "nDCG@10 R@100"``, a path with spaces)."""
    return shlex.join(["bench"] + [str(w) for w in words])


def next_steps(out: Path, args, suite_name: str, gated: bool, changed: List[Tuple[object, object]]) -> List[str]:
    """The commands a user wants after a run, with this run's folder filled in; the other model's
    run repeats ``changed`` (this run's options that change the result, as (option, value) pairs
    from :func:`bench.cli.evaluate.changed_options`), so the two runs are comparable. Each
    command is built word by word (:func:`option_argv`, :func:`command`) and parses with the real
    parser (tests/bench/test_next_steps.py)."""
    other = "OTHER_MODEL"
    same = option_argv(option("--dataset"), args.dataset) + ["--suite", suite_name]
    if args.seed != 0:
        same += option_argv(option("--seed"), args.seed)
    for opt, value in changed:
        same += option_argv(opt, value)
    other_out = Path(out).parent / f"{other}__{Path(out).name.split('__', 1)[-1]}"
    lines = ["next:",
             f"  report (HTML):        {command('report', out)}",
             f"  another model:        {command('evaluate', '--model', other, *same, '--out', other_out)}"]
    if suite_name != "fewshot":
        lines.append(f"  compare the two:      {command('compare', out, other_out)}")
    if gated:
        lines.append(f"  gate (CI regression): {command('gate', '--baseline', out, '--candidate', other_out)}")
    return lines
