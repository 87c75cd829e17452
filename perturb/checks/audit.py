"""The validity audit that ships with the generators (DESIGN rule 12).

Two halves:

* **proxy rates** (automatic, every applied pair): for each set, how often an edit looks like one
  that changes the information need. Word-level edits are found by aligning the original and the
  variation (difflib on lower-cased word tokens); a *substitution* is one old word replaced by one
  new word. Rates, in percent of applied pairs unless said otherwise:

  - ``synonym``: of the substitutions of letter words, the share whose old and new word share a
    WordNet synset (any POS, morphy applied) - high for a synonym swap;
  - ``antonym``: of the substitutions, the share where the new word is a WordNet antonym of the old;
  - ``stopword_target``: pairs where a substituted word was an NLTK stop word;
  - ``number_target``: pairs where a substituted word held a digit;
  - ``non_word``: pairs with a new word (not in the original) unknown to English (wordfreq Zipf 0)
    - intended for MISSPELL, an error for every other generator;
  - ``pivot_leak``: pairs with a new word much more frequent in Spanish or German than in English;
  - ``case_only``: applied pairs equal to the original up to case and whitespace (must be 0);
  - ``case_changed``: pairs in which some word changed its case only (e.g. an ALL-CAPS query
    coming back mixed case);
  - ``token_cut``: pairs with a whitespace token that is a strict part of an original token
    ("(i.e.," -> "(.e.,");
  - ``double_space``: variations with a double space the original did not have.

* **human labels**: :func:`sample_pairs` draws a seeded random sample of N applied pairs per set
  into a TSV (columns ``set, qid, original, variation, detail, valid, note``) for blind labelling;
  the ``valid`` column is filled with 1/0 (or true/false). :func:`read_labels` reads such a file,
  or a Penha et al. CSV (its ``valid`` column), and :func:`human_valid_rates` reports per set the
  share of labelled pairs judged valid. :func:`apply_labels` turns a set's variations judged
  invalid back into the original query (not applied), so a run can evaluate the human-valid subset.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple, Union

from bench.core.errors import DataError
from bench.core.io import atomic_write_text
from bench.core.seeding import rng_for
from bench.core.sheet import csv_text, sheet_text
from perturb.resources.words import WORDNET_POS, stopwords, zipf
from perturb.base import normalise
from perturb.checks.labels import SAMPLE_COLUMNS, read_label_file
from perturb.resources.lexicon import antonyms
from perturb.resources.senses import synonymy
from perturb.io.sets import VariationSet, escape_field
from perturb.resources.wordnet_reader import wordnet

PathLike = Union[str, Path]
PROXIES = ("synonym", "antonym", "stopword_target", "number_target", "non_word", "pivot_leak", "case_only",
           "case_changed", "token_cut", "double_space")
_TOK = re.compile(r"[\w'\-]+", re.UNICODE)


def _words(text: str) -> List[str]:
    return _TOK.findall(text)


def substitutions(original: str, variation: str) -> Tuple[List[Tuple[str, str]], List[str], List[str]]:
    """(one-for-one substitutions, deleted words, inserted words) from a word alignment."""
    a, b = _words(original), _words(variation)
    sm = difflib.SequenceMatcher(a=[w.lower() for w in a], b=[w.lower() for w in b], autojunk=False)
    subs, dels, ins = [], [], []
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "replace" and i2 - i1 == j2 - j1:
            subs.extend(zip(a[i1:i2], b[j1:j2]))
        elif op in ("replace", "delete"):
            dels.extend(a[i1:i2])
            if op == "replace":
                ins.extend(b[j1:j2])
        elif op == "insert":
            ins.extend(b[j1:j2])
    return subs, dels, ins


def case_changes(original: str, variation: str) -> List[Tuple[str, str]]:
    """Aligned words that differ in case only ("do" -> "DO")."""
    a, b = _words(original), _words(variation)
    sm = difflib.SequenceMatcher(a=[w.lower() for w in a], b=[w.lower() for w in b], autojunk=False)
    out = []
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            out.extend((x, y) for x, y in zip(a[i1:i2], b[j1:j2]) if x != y)
    return out


def _share_synset(a: str, b: str) -> bool:
    """The proxy's test: any synset of either word as written or its morphy base, any sense."""
    return bool(synonymy(a.lower(), b.lower(), lookup="surface"))


def _is_antonym(a: str, b: str) -> bool:
    wn = wordnet()
    b = b.lower()
    forms_b = {b} | {wn.morphy(b, p) for p in WORDNET_POS} - {None}
    for pos in WORDNET_POS:
        if antonyms(a.lower(), pos) & forms_b:
            return True
    return False


_CHUNK = re.compile(r"[^\W_]+")


def is_token_cut(orig_token: str, new_token: str) -> bool:
    """``new_token`` is ``orig_token`` with some of its inner words cut out and its punctuation
    kept: "(i.e.," -> "(.e.,", "and/or" -> "/", "U.S." -> "U..". A misspelling is not a cut, nor
    is a one-word token dropped with its punctuation kept ("I..." -> "...")."""
    if orig_token == new_token or _CHUNK.sub("", orig_token) != _CHUNK.sub("", new_token):
        return False
    a, b = _CHUNK.findall(orig_token), _CHUNK.findall(new_token)
    if len(a) < 2 or len(b) >= len(a):  # a word cut out of a compound token, not a token removed
        return False
    it = iter(a)
    return all(any(x == y for y in it) for x in b)


@dataclass
class PairFlags:
    substitutions: int = 0
    synonyms: int = 0
    antonyms: int = 0
    flags: Tuple[str, ...] = ()


def pair_flags(original: str, variation: str) -> PairFlags:
    """The proxy flags of one applied (original, variation) pair."""
    sw = stopwords()
    subs, dels, ins = substitutions(original, variation)
    flags = set()
    letter_subs = [(o, n) for o, n in subs if o.isalpha() and n.isalpha() and o.lower() != n.lower()]
    syn = sum(_share_synset(o, n) for o, n in letter_subs)
    ant = sum(_is_antonym(o, n) for o, n in letter_subs)
    changed = [(o, n) for o, n in subs if o != n]
    if any(o.lower() in sw for o, n in changed if o.lower() != n.lower()):
        flags.add("stopword_target")
    if any(any(c.isdigit() for c in o) for o, n in changed if o.lower() != n.lower()):
        flags.add("number_target")
    orig_low = {w.lower() for w in _words(original)}
    new_words = [n for o, n in changed if n.lower() not in orig_low] + [w for w in ins if w.lower() not in orig_low]
    if any(w.isalpha() and zipf(w.lower()) == 0 for w in new_words):
        flags.add("non_word")
    for w in new_words:
        if w.isalpha() and len(w) > 1:
            en = zipf(w.lower())
            if en < 3.0 and max(zipf(w.lower(), "es"), zipf(w.lower(), "de")) >= en + 1.0:
                flags.add("pivot_leak")
                break
    if normalise(original) == normalise(variation):
        flags.add("case_only")
    if case_changes(original, variation):
        flags.add("case_changed")
    orig_tokens = set(original.split())
    if any(tok not in orig_tokens and any(is_token_cut(t, tok) for t in orig_tokens) for tok in variation.split()):
        flags.add("token_cut")
    if "  " in variation and "  " not in original:
        flags.add("double_space")
    return PairFlags(len(letter_subs), syn, ant, tuple(sorted(flags)))


def proxy_rates(vs, originals: Dict[str, str]) -> Dict[str, object]:
    """Proxy rates of one VariationSet against ``originals`` (qid -> original text)."""
    n = len(vs)
    applied = [(q, t) for q, t, a in zip(vs.qids, vs.texts, vs.applied) if a and q in originals]
    counts = {k: 0 for k in PROXIES}
    subs = syn = ant = 0
    for q, t in applied:
        f = pair_flags(originals[q], t)
        subs += f.substitutions
        syn += f.synonyms
        ant += f.antonyms
        for k in f.flags:
            counts[k] += 1
    na = len(applied)
    row: Dict[str, object] = {"set": vs.label, "queries": n, "applied": na,
                              "applied_pct": round(100.0 * na / n, 1) if n else 0.0, "substitutions": subs}
    row["synonym"] = round(100.0 * syn / subs, 1) if subs else None
    row["antonym"] = round(100.0 * ant / subs, 1) if subs else None
    for k in PROXIES[2:]:
        row[k] = round(100.0 * counts[k] / na, 1) if na else None
    return row


def audit_table(sets, originals: Dict[str, str]) -> List[Dict[str, object]]:
    return [proxy_rates(vs, originals) for vs in sets if vs.status == "ok"]


#: what the columns of :func:`format_audit` mean (printed under the table)
AUDIT_LEGEND = (
    "n: queries; applied%: share of queries changed; subs: one-word substitutions of letter words;\n"
    "syn% / ant%: of those substitutions, the share whose two words share a WordNet synset / are\n"
    "WordNet antonyms. Of the changed queries, the share where: stop% a stop word was replaced;\n"
    "num% a word with a digit was replaced; nonword% a new word is unknown to English (expected for\n"
    "MISSPELL only); pivot% a new word is more frequent in Spanish or German than in English;\n"
    "caseonly% the query equals the original up to case and spaces (should be 0); casechg% a word\n"
    "changed its case only; cut% a token is a cut-down original token; dblsp% a double space was\n"
    "added. '-': nothing to measure (no substitution, or no query changed)\n")


def format_audit(rows: Sequence[Dict[str, object]]) -> str:
    """The proxy table, one row per set, and :data:`AUDIT_LEGEND` under it."""
    cols = ["set", "queries", "applied_pct", "substitutions", *PROXIES]
    head = ["set", "n", "applied%", "subs", "syn%", "ant%", "stop%", "num%", "nonword%", "pivot%", "caseonly%",
            "casechg%", "cut%", "dblsp%"]
    table = [head] + [["-" if r.get(c) is None else str(r.get(c)) for c in cols] for r in rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(head))]
    return "\n".join("  ".join(r[i].rjust(widths[i]) if i else r[i].ljust(widths[i]) for i in range(len(head)))
                     for r in table) + "\n" + AUDIT_LEGEND


def audit_csv(rows: Sequence[Dict[str, object]]) -> str:
    cols = ["set", "queries", "applied", "applied_pct", "substitutions", *PROXIES]
    return csv_text(cols, (["" if r.get(c) is None else r.get(c) for c in cols] for r in rows))


# --------------------------------------------------------------------------- human labels
def sample_pairs(sets, originals: Dict[str, str], n: int, seed: int) -> List[Dict[str, str]]:
    """A seeded random sample of ``n`` applied pairs per set (fewer when fewer are applied); the
    draw for one set depends only on (seed, set label) and the set's rows."""
    rows = []
    for vs in sets:
        if vs.status != "ok":
            continue
        applied = [k for k, (q, a) in enumerate(zip(vs.qids, vs.applied)) if a and q in originals]
        rng = rng_for(seed, "audit-sample", vs.label)
        pick = sorted(rng.choice(len(applied), size=min(n, len(applied)), replace=False).tolist()) if applied else []
        for k in (applied[i] for i in pick):
            rows.append({"set": vs.label, "qid": vs.qids[k], "original": originals[vs.qids[k]],
                         "variation": vs.texts[k], "detail": vs.details[k], "valid": "", "note": ""})
    return rows


def format_sample(rows: Iterable[Dict[str, str]]) -> str:
    lines = ["\t".join(SAMPLE_COLUMNS)]
    for r in rows:
        # opened in a spreadsheet to be labelled: a cell that could be read as a formula gets a
        # leading ' (read back by perturb.checks.labels), as the CSV writers of bench.reporting do
        lines.append("\t".join(sheet_text(escape_field(str(r.get(c, "")))) for c in SAMPLE_COLUMNS))
    return "\n".join(lines) + "\n"


def read_labels(path: PathLike) -> Dict[Tuple[str, str], bool]:
    """Human labels keyed by (set, qid): a labelled audit sample TSV (:data:`SAMPLE_COLUMNS`) or a
    Penha et al. CSV (``method``, ``q_id``, ``variation``, ``valid``), read and checked by
    :func:`perturb.checks.labels.read_label_file`. Unlabelled rows are left out; a pair labelled twice
    (Penha's ANTIQUE file has three query ids with two variations for one method) is valid if one
    of its rows is."""
    labels: Dict[Tuple[str, str], bool] = {}
    for lab in read_label_file(path).labels:
        key = (lab.set, lab.qid)
        labels[key] = labels.get(key, False) or lab.valid
    return labels


def human_valid_rates(labels: Dict[Tuple[str, str], bool]) -> List[Tuple[str, int, int, float]]:
    """(set, labelled, valid, percent valid) per set, sorted by set."""
    by: Dict[str, List[bool]] = {}
    for (s, _), v in labels.items():
        by.setdefault(s, []).append(v)
    return [(s, len(v), sum(v), round(100.0 * sum(v) / len(v), 1)) for s, v in sorted(by.items())]


def apply_labels(vs, labels: Dict[Tuple[str, str], bool], originals: Dict[str, str], keys: Sequence[str] = ()):
    """``vs`` with every variation judged invalid turned back into the original query (not applied);
    unlabelled rows are kept. ``keys``: the names the labels use for this set (default: name, label)."""
    names = list(keys) or [vs.name, vs.label]
    texts, applied, details = list(vs.texts), list(vs.applied), list(vs.details)
    for k, q in enumerate(vs.qids):
        if any(labels.get((n, q)) is False for n in names) and q in originals:
            texts[k], applied[k], details[k] = originals[q], False, ""
    cfg = dict(vs.config)
    cfg["human_labels"] = "invalid variations reverted"
    return VariationSet(name=vs.name, label=vs.label, config=cfg, seed=vs.seed, qids=list(vs.qids), texts=texts,
                        applied=applied, details=details, status=vs.status, reason=vs.reason, source=vs.source)


# --------------------------------------------------------------------------- the CLI's two entry points
def write_audit(sets, originals: Dict[str, str], out: PathLike, n: int, seed: int,
                shown: Optional[PathLike] = None) -> str:
    """Proxy table (printed, and ``audit.csv``) and the labelling sample ``audit_sample.tsv`` in ``out``;
    the message names the files in ``shown`` (the folder they end up in, when ``out`` is a staging folder)."""
    out = Path(out)
    where = Path(shown) if shown is not None else out
    rows = audit_table(sets, originals)
    atomic_write_text(out / "audit.csv", audit_csv(rows))
    sample = sample_pairs(sets, originals, n, seed)
    atomic_write_text(out / "audit_sample.tsv", format_sample(sample))
    return (format_audit(rows) + f"wrote {where / 'audit.csv'} and {len(sample)} pairs to label in "
            f"{where / 'audit_sample.tsv'} (fill the 'valid' column with 1/0; then --import-labels)\n")


def label_report(path: PathLike, out: Optional[PathLike] = None) -> str:
    """Per-set human-valid rates of a labelled sample (or Penha CSV); ``human_validity.csv`` in ``out``
    (through the output policy, :func:`bench.core.written.write_output_files`: recorded as perturb's)."""
    rows = human_valid_rates(read_labels(path))
    lines = ["set\tlabelled\tvalid\tvalid%"] + [f"{s}\t{n}\t{v}\t{p}" for s, n, v, p in rows]
    text = "\n".join(lines) + "\n"
    if out is not None:
        from bench.core.written import write_output_files

        write_output_files([(Path(out) / "human_validity.csv", csv_text(["set", "labelled", "valid", "percent_valid"], rows))],
                           "perturb", say=False)
    return text
