"""Lexical substitution in SWORDS's JSON format: read the targets, ask a synonym generator which
substitute it would put in each place, write the answers and, when the file has labels, score them.

A file is one JSON object (optionally gzip-compressed, ``.gz``) with ``contexts[cid] = {context}``,
``targets[tid] = {context_id, target, offset, pos}`` and optionally ``substitutes[sid] =
{target_id, substitute}`` with ``substitute_labels[sid] = [labels]`` (``TRUE`` / ``FALSE`` /
``UNSURE``): the format of SWORDS (Lee et al., NAACL 2021). A candidate is *acceptable* when at least
half of its labels are ``TRUE``. A generator answers through :meth:`lexsub` (the code it uses on
queries, restricted to the target's span); its pick is compared by lemma with the labelled pool.
"""
from __future__ import annotations

import gzip
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from bench.core.errors import DataError
from bench.evaluation.intervals import wilson_ci
from perturb.generators.swapsyn.generator import Pick, Target

FIX = "give a file in SWORDS's JSON format (contexts, targets with context_id/target/offset/pos; see perturb/checks/lexsub.py)"
POS_NAMES = ("NOUN", "VERB", "ADJ", "ADV")


@dataclass
class LexFile:
    path: str
    targets: List[Target]
    #: target id -> {substitute lemma (lower case) -> share of TRUE labels}; empty when unlabelled
    pool: Dict[str, Dict[str, float]] = field(default_factory=dict)

    @property
    def labelled(self) -> bool:
        return bool(self.pool)


def _load_json(path: Path):
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise DataError(f"cannot read the file ({exc.strerror})", str(path), fix=FIX) from None
    try:
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
        return json.loads(raw.decode("utf-8"))
    except (OSError, EOFError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataError(f"not a JSON object (or gzip-compressed JSON): {exc}", str(path), fix=FIX) from None


def read_lexsub(path) -> LexFile:
    """The targets (and the labelled pool, if any) of a SWORDS-format file; DataError naming the
    file, the entry and the fix for anything malformed."""
    path = Path(path)
    data = _load_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("contexts"), dict) or not isinstance(
            data.get("targets"), dict):
        raise DataError("needs the objects 'contexts' and 'targets'", str(path), fix=FIX)
    contexts, targets = data["contexts"], []
    for tid in sorted(data["targets"]):
        targets.append(_target(path, tid, data["targets"][tid], contexts))
    if not targets:
        raise DataError("has no targets", str(path), fix=FIX)
    return LexFile(str(path), targets, _pool(path, data, {t.tid for t in targets}))


def _target(path: Path, tid: str, t, contexts) -> Target:
    where = f"targets[{tid!r}]"
    if not isinstance(t, dict) or not all(k in t for k in ("context_id", "target", "offset")):
        raise DataError(f"{where} needs context_id, target and offset", str(path), fix=FIX)
    ctx = contexts.get(t["context_id"])
    text = ctx.get("context") if isinstance(ctx, dict) else None
    if not isinstance(text, str):
        raise DataError(f"{where}: context {t['context_id']!r} is missing or has no 'context' text", str(path), fix=FIX)
    word, start = t["target"], t["offset"]
    if not isinstance(word, str) or not isinstance(start, int) or text[start:start + len(word)] != word:
        raise DataError(f"{where}: the context does not hold {word!r} at offset {start!r}", str(path),
                        fix="offset must be the character offset of the target word in its context")
    return Target(tid, text, start, start + len(word), str(t.get("pos", "")).upper(), str(t["context_id"]))


def _pool(path: Path, data, tids) -> Dict[str, Dict[str, float]]:
    subs, labels = data.get("substitutes"), data.get("substitute_labels")
    if not subs:
        return {}
    if not isinstance(subs, dict) or not isinstance(labels, dict):
        raise DataError("'substitutes' needs 'substitute_labels' (both objects keyed by substitute id)",
                        str(path), fix=FIX)
    pool: Dict[str, Dict[str, float]] = {}
    for sid in sorted(subs):
        s, lab = subs[sid], labels.get(sid)
        if not isinstance(s, dict) or s.get("target_id") not in tids or not isinstance(s.get("substitute"), str):
            raise DataError(f"substitutes[{sid!r}] needs target_id (a known target) and substitute", str(path), fix=FIX)
        if not isinstance(lab, list) or not lab:
            raise DataError(f"substitute_labels[{sid!r}] is missing or empty", str(path), fix=FIX)
        share = sum(1 for x in lab if x == "TRUE") / len(lab)
        key = s["substitute"].lower()
        entry = pool.setdefault(s["target_id"], {})
        entry[key] = max(share, entry.get(key, 0.0))
    return pool


def tsv_text(targets: Sequence[Target], picks: Sequence[Optional[Pick]]) -> str:
    lines = ["target_id\tsubstitute\tlemma"]
    for t, p in zip(targets, picks):
        lines.append(f"{t.tid}\t{p.substitute if p else ''}\t{p.lemma if p else ''}")
    return "\n".join(lines) + "\n"


def summary(lex: LexFile, picks: Sequence[Optional[Pick]], refused: Optional[Sequence[Optional[str]]] = None) -> List[dict]:
    """One row per POS (and ``all``): targets, picks, coverage, picks in the pool, acceptable picks,
    precision among the picks in the pool, the picks outside the labelled pool (unjudged), and the targets
    where the pick check refused the chooser's answer (``refused``: per target its class of pick or None;
    see :meth:`~perturb.generators.swapsyn.generator.ChosenSwap.lexsub_answers`)."""
    rows = []
    refused = list(refused) if refused is not None else [None] * len(lex.targets)
    for pos in ("all",) + POS_NAMES:
        n = k = judged = good = checked = 0
        for t, p, r in zip(lex.targets, picks, refused):
            if pos != "all" and t.pos != pos:
                continue
            n += 1
            checked += r is not None
            if p is None:
                continue
            k += 1
            share = lex.pool.get(t.tid, {}).get(p.lemma.lower())
            if share is None:
                share = lex.pool.get(t.tid, {}).get(p.substitute.lower())
            if share is not None:
                judged += 1
                good += share >= 0.5
        if n:
            rows.append({"pos": pos, "targets": n, "picks": k, "coverage": k / n, "judged": judged,
                         "acceptable": good, "precision": good / judged if judged else None,
                         "outside_pool": (k - judged) / k if k else None, "check_refused": checked})
    return rows


def summary_text(name: str, rows: Sequence[dict]) -> str:
    out = [f"{name}: pos targets picks coverage precision (acceptable/judged, Wilson 95%) outside-pool check-refused"]
    for r in rows:
        prec = "-"
        if r["precision"] is not None:
            lo, hi = wilson_ci(r["acceptable"], r["judged"])
            prec = f"{r['precision']:.3f} ({r['acceptable']}/{r['judged']}, {lo:.2f}-{hi:.2f})"
        outside = f"{100 * r['outside_pool']:.1f}%" if r["outside_pool"] is not None else "-"
        out.append(f"  {r['pos']:<4} {r['targets']:>5} {r['picks']:>5} {100 * r['coverage']:6.1f}%  {prec}  {outside}  "
                   f"{r['check_refused']}")
    return "\n".join(out) + "\n"


def refusal_text(gen, refused: Sequence[Optional[str]]) -> str:
    """A line saying, per class of pick, for how many targets the pick check refused the chooser's answer and
    at which threshold (nothing when it refused none)."""
    from perturb.generators.swapsyn import check
    from perturb.generators.swapsyn.generator import CLASS_TARGETS

    counts = {c: sum(r == c for r in refused) for c in check.CLASSES}
    if not any(counts.values()):
        return ""
    parts = [f"{CLASS_TARGETS[c]}: {k} (check threshold {gen.checkers[c].values['threshold']:g}"
             f"{', closed' if gen.checkers[c].values['threshold'] >= check.CLOSED else ''})" for c, k in counts.items() if k]
    return (f"  the pick check refused the chooser's answer for {sum(counts.values())} of {len(refused)} targets: "
            + "; ".join(parts) + "\n")


def generators_for(names: Sequence[str]):
    """The validated generators named (each must expose :meth:`lexsub_answers`); DataError-free: BenchError
    naming the option and the sets that can answer."""
    from bench.core.errors import BenchError
    from perturb import GENERATORS

    gens = []
    for name in names:
        try:
            gen = GENERATORS.get(name)()
        except KeyError:
            raise BenchError(f"--generators: unknown set {name!r}. Fix: name SWAPSYN-WNET and/or SWAPSYN-GLOVE") from None
        if not hasattr(gen, "lexsub_answers"):
            raise BenchError(f"--lexsub: {gen.name} does not substitute single words. "
                             f"Fix: --generators SWAPSYN-WNET,SWAPSYN-GLOVE")
        gens.append(gen)
    return gens


def run_lexsub(path, names: Sequence[str], out: Path) -> Tuple[str, Dict[str, str]]:
    """Answer every target of ``path`` with each generator; write ``out/lexsub-<SET>.tsv`` (and
    ``lexsub-summary.tsv`` when the file is labelled). Returns (printed text, {file name: text})."""
    lex = read_lexsub(path)  # before any generator loads: a bad file fails fast
    gens = generators_for(names)
    for gen in gens:
        gen.check()
    printed, files = [], {}
    table = ["set\tpos\ttargets\tpicks\tcoverage\tjudged\tacceptable\tprecision\toutside_pool\tcheck_refused"]
    for gen in gens:
        picks, refused = gen.lexsub_answers(lex.targets)
        files[f"lexsub-{gen.name}.tsv"] = tsv_text(lex.targets, picks)
        if lex.labelled:
            rows = summary(lex, picks, refused)
            printed.append(summary_text(gen.name, rows))
            for r in rows:
                table.append("\t".join([gen.name, r["pos"], str(r["targets"]), str(r["picks"]), f"{r['coverage']:.4f}",
                                        str(r["judged"]), str(r["acceptable"]),
                                        "" if r["precision"] is None else f"{r['precision']:.4f}",
                                        "" if r["outside_pool"] is None else f"{r['outside_pool']:.4f}",
                                        str(r["check_refused"])]))
        else:
            printed.append(f"{gen.name}: {sum(p is not None for p in picks)} of {len(picks)} targets answered "
                           f"(the file has no labels: no precision)\n")
        printed.append(refusal_text(gen, refused))
    if lex.labelled:
        files["lexsub-summary.tsv"] = "\n".join(table) + "\n"
        printed.append("precision: picks accepted by at least half of the annotators, among the picks the file "
                       "judges; outside-pool: picks the file does not judge; check-refused: targets where the chooser "
                       "answers and the pick check refuses every candidate it would take\n")
    return "".join(printed), files
