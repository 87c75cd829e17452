"""What ``bench evaluate`` says when it has checked its inputs and when it ends: the accepted
``--dataset`` forms (checked before any model or data is loaded) and, after a run, its total
time and the commands a user runs next with this run's folder filled in."""
from __future__ import annotations

import shlex
from pathlib import Path
from typing import List

from bench.core.errors import BenchError

#: (form, example) for every --dataset spelling load_dataset accepts
DATASET_FORMS = (
    ("a registered dataset name", "chatterbot"),
    ("a BEIR folder (corpus.jsonl, queries.jsonl, qrels/<split>.tsv)", "data/scifact  or  beir:data/scifact"),
    ("an MS MARCO-style folder (collection.tsv, queries.<split>.tsv, qrels.<split>.tsv)", "msmarco:data/msmarco"),
    ("an ir_datasets id (pip install ir-datasets)", "irds:beir/scifact/test"),
    ("TREC files", "trec:corpus=docs.trec,topics=topics.txt,qrels=qrels.txt"),
)
PREFIXES = ("irds:", "trec:", "msmarco:", "beir:")


def forms_text() -> str:
    return "accepted --dataset forms (form: example):\n" + "\n".join(f"  {f}:\n      --dataset {e}" for f, e in DATASET_FORMS)


def check_dataset(spec: str, registered: List[str]) -> None:
    """Refuse a ``--dataset`` that no form accepts, before a model or the data is loaded: a
    registered name (a close typo gets a "did you mean"), a prefixed form, or an existing folder."""
    import difflib

    text = str(spec).strip()
    if not text:
        raise BenchError(f"--dataset is empty.\n{forms_text()}")
    if text.startswith(PREFIXES) or text in registered:
        return
    path = Path(text).expanduser()
    if path.exists():
        return  # a folder (or a file, which the loader explains) is read by load_dataset
    close = difflib.get_close_matches(text, registered, n=1, cutoff=0.6)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    looks_like_path = any(sep in text for sep in ("/", "\\")) or text.startswith(".")
    what = (f"no such folder: {path}" if looks_like_path else
            f"{text!r} is neither a registered dataset ({', '.join(registered)}) nor an existing folder")
    raise BenchError(f"--dataset {text}: {what}.{hint}\n{forms_text()}")


def duration(seconds: float) -> str:
    s = max(0, int(round(seconds)))
    return f"{seconds:.1f} s" if seconds < 60 else f"{s // 60} min {s % 60:02d} s"


def next_steps(out: Path, args, suite_name: str, gated: bool, changed: List[str]) -> List[str]:
    """The commands a user wants after a run, with this run's folder filled in; the other model's
    run repeats ``changed`` (this run's ``--flag=value`` options that change the result), so the
    two runs are comparable."""
    q = shlex.quote
    folder = q(str(out))
    other = "OTHER_MODEL"
    same = [f"--dataset {q(str(args.dataset))}", f"--suite {suite_name}"]
    if args.seed != 0:
        same.append(f"--seed {args.seed}")
    same += [q(c) for c in changed]
    other_out = q(str(Path(out).parent / f"{other}__{Path(out).name.split('__', 1)[-1]}"))
    lines = ["next:",
             f"  report (HTML):        bench report {folder}",
             f"  another model:        bench evaluate --model {other} {' '.join(same)} --out {other_out}"]
    if suite_name != "fewshot":
        lines.append(f"  compare the two:      bench compare {folder} {other_out}")
    if gated:
        lines.append(f"  gate (CI regression): bench gate --baseline {folder} --candidate {other_out}")
    return lines
