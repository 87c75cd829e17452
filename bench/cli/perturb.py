"""`bench perturb --dataset D [--seed N] --out DIR`: write every variation set (TSV with a
content hash) and the applicability table (the RoDR paper's Tables 2-3).

Also imports external sets into the same format: `--import-penha CSV` (Penha et al., ECIR 2022,
one set per method, valid rows only unless --keep-invalid) and `--import-rodr TSV --name NAME`.
"""
from __future__ import annotations

import argparse
from pathlib import Path
from bench.core.errors import BenchError
from bench.core.progress import count
from bench.core.io import atomic_write_text
from bench.core.paths import check_writable_folder
from bench.core.sheet import csv_text
from bench.core.written import check_folder_replaceable, record_files, replace_folder, why_not_replaceable
from bench.cli.options import out_folder
from perturb import DEFAULT_PROTOCOL, GENERATORS, PAPER_ORDER, PROTOCOLS, describe_protocol
from perturb.io.importers import import_penha_csv, import_rodr_tsv
from perturb.io.sets import applicability_table, write_sets
from perturb.io.generation import generate_all


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dataset", default="chatterbot", help="dataset whose judged queries are perturbed (default: chatterbot)")
    p.add_argument("--split", default=None, help="qrels split whose judged queries are perturbed (default: test; dev for MS MARCO folders)")
    p.add_argument("--seed", type=int, default=0, help="generation seed (default: 0)")
    p.add_argument("--generators", default=None, help="comma-separated subset (default: all eight)")
    p.add_argument("--protocol", default=DEFAULT_PROTOCOL, choices=list(PROTOCOLS),
                   help="validated: the validated operations (default); rodr: the paper's unconstrained "
                        "TextFlint / TextAttack operations (same set names, other fingerprints)")
    p.add_argument("--out", type=out_folder, required=True, help="folder for <SET>.tsv files and applicability.csv")
    p.add_argument("--force", action="store_true",
                   help="write into an existing --out folder that drbench did not write (or whose files were changed "
                        "since): same-named files are replaced, its other files are kept")
    p.add_argument("--import-penha", type=Path, default=None, help="import a Penha et al. variations CSV instead")
    p.add_argument("--keep-invalid", action="store_true", help="with --import-penha: keep rows judged invalid")
    p.add_argument("--import-rodr", type=Path, default=None, help="import a RoDR-style qid<TAB>text file instead")
    p.add_argument("--name", default=None, help="with --import-rodr: the set's name")
    p.add_argument("--audit", type=int, default=None, metavar="N",
                   help="also print validity proxy rates per set and write N seeded random pairs per set to "
                        "audit_sample.tsv for human labelling (perturb.checks.audit)")
    p.add_argument("--lexsub", type=Path, default=None, metavar="FILE",
                   help="a lexical-substitution file in SWORDS's JSON format: write the substitute each synonym "
                        "set (--generators, default SWAPSYN-WNET,SWAPSYN-GLOVE) would put in place of each target "
                        "to lexsub-<SET>.tsv, with coverage and precision when the file has labels, and exit")
    p.add_argument("--import-labels", type=Path, default=None, metavar="FILE",
                   help="report per-set human-valid rates of a labelled audit sample or a Penha CSV "
                        "(writes human_validity.csv to --out) and exit")


def run(args) -> int:

    check_writable_folder(args.out, "--out", "give --out a new or writable folder")
    if args.import_labels:
        from perturb.checks.audit import label_report

        target = args.out / "human_validity.csv"
        if why_not_replaceable(target) and not args.force:
            raise BenchError(f"not overwritten: {target} exists and drbench did not write it (or it was changed "
                             f"since). Fix: give --out another folder, or add --force to replace it")
        args.out.mkdir(parents=True, exist_ok=True)
        print(label_report(args.import_labels, args.out), end="")
        from bench.core.written import file_sha256

        record_files(args.out, {target.name: file_sha256(target)}, "perturb")
        return 0
    check_folder_replaceable(args.out, "--out", args.force, "give --out a new folder")
    if args.lexsub:
        return _lexsub(args)
    # written beside the old folder and swapped in when complete: a failed rerun keeps the previous sets
    with replace_folder(args.out, "perturb", args.force) as staging:
        code, n_sets = _write(args, staging)
    print(f"wrote {count(n_sets, 'set')} to {args.out} (each read back and checked)")
    return code


def _lexsub(args) -> int:
    """``--lexsub FILE``: each synonym set's substitute per target, written to --out."""
    from perturb.checks.lexsub import run_lexsub

    names = ([GENERATORS.canonical(g.strip()) for g in args.generators.split(",") if g.strip()]
             if args.generators else ["SWAPSYN-WNET", "SWAPSYN-GLOVE"])
    printed, files = run_lexsub(args.lexsub, names, args.out)
    with replace_folder(args.out, "perturb", args.force) as staging:
        for name, text in files.items():
            atomic_write_text(staging / name, text)
    print(printed, end="")
    print(f"wrote {count(len(files), 'file')} to {args.out}")
    return 0


def _write(args, out: Path):
    """Generate or import the sets and write them into ``out``: (exit code, number of sets written)."""
    originals = {}
    if args.protocol != DEFAULT_PROTOCOL and (args.import_penha or args.import_rodr):
        raise BenchError(f"--protocol {args.protocol} chooses the generators; it does not apply to imported sets")
    if args.import_penha or args.import_rodr:
        if args.import_penha:
            sets = import_penha_csv(args.import_penha, valid_only=not args.keep_invalid)
            from perturb.io.importers import originals_of_penha

            originals = originals_of_penha(args.import_penha)
        else:
            if not args.name:
                raise BenchError("--import-rodr needs --name (the variation set's name, e.g. MISSPELL)")
            from bench.data.collections import load_dataset

            ds = load_dataset(args.dataset, args.split)
            originals = {q: ds.queries[q].text for q in ds.judged_query_ids()}
            sets = [import_rodr_tsv(args.import_rodr, args.name, originals=originals)]
    else:
        from bench.data.collections import load_dataset

        ds = load_dataset(args.dataset, args.split)
        items = [(q, ds.queries[q].text) for q in ds.judged_query_ids()]
        originals = dict(items)
        names = PAPER_ORDER if not args.generators else [GENERATORS.canonical(g.strip()) for g in
                                                         args.generators.split(",") if g.strip()]
        sets = generate_all(items, args.seed, names, protocol=args.protocol)  # BACKTRANS overlaps the others
        print(describe_protocol(args.protocol))
    from perturb.checks.substance import substance_of_sets

    rows = applicability_table(sets)
    subst = substance_of_sets(originals, sets) if originals else {}
    rows = [r + _substance_cells(subst.get(r[0])) for r in rows]
    written = write_sets(sets, out)  # safe, unique file names inside --out; each read back
    atomic_write_text(out / "applicability.csv", csv_text(["set", "label", "queries", "applied", "percent",
                                                           "content_share", "top_words"], rows))
    from bench.reporting.tables import grid

    print("\n".join(grid(["set", "queries", "applied", "percent", "on content words", "most changed words"],
                         [[str(r[1]), str(r[2]), str(r[3]), f"{r[4]:.1f}%" if isinstance(r[4], (int, float))
                           else str(r[4]), "" if r[5] == "" else f"{r[5]:.1f}%", r[6]] for r in rows])))
    print("on content words: of the changed queries, the share whose change touches a NOUN, PROPN, main VERB or "
          "ADJ of the query (spaCy); most changed words: their share of the changed queries")
    if args.audit is not None:
        from perturb.checks.audit import write_audit

        print(write_audit(sets, originals, out, args.audit, args.seed), end="")
    missing = [vs for vs in sets if vs.status != "ok"]
    for vs in missing:
        print(f"not generated: {vs.name}: {vs.reason}")
    for vs, path in written:
        if path.name != f"{vs.name}.tsv":
            print(f"set {vs.name!r} written as {path.name}")
    return (1 if missing else 0), len(written)


def _substance_cells(sub) -> tuple:
    """(content share in percent rounded to 0.1 or "", the most changed words) of one set."""
    if sub is None or sub.content_share is None:
        return ("", "")
    return (round(100.0 * sub.content_share, 1), sub.top_text())
