"""`bench perturb --dataset D [--seed N] --out DIR`: write every variation set (TSV with a
content hash) and the applicability table (the RoDR paper's Tables 2-3). `--queries FILE` perturbs
a plain query list (:mod:`perturb.io.querylist`) instead of a dataset's judged queries.

Also imports external sets into the same format: `--import-penha CSV` (Penha et al., ECIR 2022,
one set per method, valid rows only unless --keep-invalid) and `--import-rodr TSV --name NAME`.
"""
from __future__ import annotations

import argparse
from pathlib import Path
from bench.core.errors import BenchError
from bench.core.progress import count
from bench.core.io import atomic_write_text, refuse_bidi
from bench.core.paths import check_writable_folder
from bench.core.sheet import csv_text
from bench.core.written import check_folder_replaceable, check_output_files, replace_folder
from bench.cli.options import out_folder, usage_type
from bench.core.options import int_in, name_list, seed_type
from perturb import DEFAULT_PROTOCOL, GENERATORS, PROTOCOLS, describe_protocol
from perturb.io.importers import import_penha_csv, import_rodr_tsv
from perturb.io.sets import applicability_table, write_sets


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dataset", default=None, help="dataset whose judged queries are perturbed (default: chatterbot)")
    p.add_argument("--queries", type=Path, default=None, metavar="FILE",
                   help="perturb a plain query list instead of a dataset: one query per line (ids q<line>), or "
                        "id<TAB>text on every line")
    p.add_argument("--split", default=None, help="qrels split whose judged queries are perturbed (default: test; dev for MS MARCO folders)")
    p.add_argument("--seed", type=usage_type(seed_type), default=0, help="generation seed (default: 0)")
    p.add_argument("--generators", type=usage_type(name_list), default=None,
                   help="comma-separated subset (default: all eight)")
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
    p.add_argument("--audit", type=usage_type(int_in("--audit", 1)), default=None, metavar="N",
                   help="also print validity proxy rates per set and write N seeded random pairs per set to "
                        "audit_sample.tsv for human labelling (perturb.checks.audit)")
    p.add_argument("--lexsub", type=Path, default=None, metavar="FILE",
                   help="a lexical-substitution file in SWORDS's JSON format: write the substitute each synonym "
                        "set (--generators, default SWAPSYN-WNET,SWAPSYN-GLOVE) would put in place of each target "
                        "to lexsub-<SET>.tsv, with coverage and precision when the file has labels and the targets "
                        "whose chooser answer the pick check refused, and exit")
    p.add_argument("--import-labels", type=Path, default=None, metavar="FILE",
                   help="report per-set human-valid rates of a labelled audit sample or a Penha CSV "
                        "(writes human_validity.csv to --out) and exit")


def run(args) -> int:
    if args.name is not None:
        refuse_bidi(args.name, "--name", "give the set a plain name, e.g. --name MISSPELL")
    check_writable_folder(args.out, "--out", "give --out a new or writable folder")
    if args.import_labels:
        from perturb.checks.audit import label_report

        check_output_files([("--out", args.out / "human_validity.csv")], args.force, "give --out another folder",
                           "perturb")
        args.out.mkdir(parents=True, exist_ok=True)
        print(label_report(args.import_labels, args.out), end="")
        return 0
    check_folder_replaceable(args.out, "--out", args.force, "give --out a new folder")
    if args.lexsub:
        return _lexsub(args)
    # written beside the old folder and swapped in when complete: a failed rerun keeps the previous sets
    with replace_folder(args.out, "perturb", args.force) as staging:
        code, n_sets = _write(args, staging, args.out)
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


def _write(args, out: Path, final: Path):
    """Generate or import the sets and write them into ``out`` (the temporary folder that becomes
    ``final``): (exit code, number of sets written)."""
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
            originals = dict(_queries(args))
            sets = [import_rodr_tsv(args.import_rodr, args.name, originals=originals)]
    else:
        from perturb.io.querylist import generate_for

        items = _queries(args)
        originals = dict(items)
        sets = generate_for(items, args.generators, args.seed, args.protocol)  # BACKTRANS overlaps the others
        print(describe_protocol(args.protocol))
        from bench.reporting.tables import wrapped
        from perturb.io.generation import set_notes

        for line in wrapped([f"note: {n}" for n in set_notes([vs.name for vs in sets], args.protocol)]):
            print(line)
    written = write_sets(sets, out)  # safe, unique file names inside --out; each read back
    _print_applicability(sets, originals, out, args)
    if args.audit is not None:
        from perturb.checks.audit import write_audit

        print(write_audit(sets, originals, out, args.audit, args.seed, shown=final), end="")
    missing = [vs for vs in sets if vs.status != "ok"]
    for vs in missing:
        print(f"not generated: {vs.name}: {vs.reason}")
    for vs, path in written:
        if path.name != f"{vs.name}.tsv":
            print(f"set {vs.name!r} written as {path.name}")
    return (1 if missing else 0), len(written)


def _print_applicability(sets, originals: dict, out: Path, args) -> None:
    """Write applicability.csv and print its table; an imported set whose query ids are not among
    the originals gets "unknown" for the share changed and the content-word share, with the fix."""
    from bench.reporting.tables import grid
    from perturb.checks.substance import substance_of_sets

    subst = substance_of_sets(originals, sets) if originals else {}
    unmatched = {vs.name: sum(q not in originals for q in vs.qids) for vs in sets if vs.status == "ok"}
    rows = []
    for r in applicability_table(sets):
        if unmatched.get(r[0]) and unmatched[r[0]] == r[2]:  # no original to compare any row with
            rows.append((r[0], r[1], r[2], "", "unknown", "needs the originals", ""))
        else:
            rows.append(r + _substance_cells(subst.get(r[0])))
    atomic_write_text(out / "applicability.csv", csv_text(["set", "label", "queries", "applied", "percent",
                                                           "content_share", "top_words"], rows))
    print("\n".join(grid(["set", "queries", "applied", "percent", "on content words", "most changed words"],
                         [[str(r[1]), str(r[2]), str(r[3]), f"{r[4]:.1f}%" if isinstance(r[4], (int, float))
                           else str(r[4]), r[5] if isinstance(r[5], str) else f"{r[5]:.1f}%", r[6]] for r in rows])))
    from bench.reporting.tables import wrapped

    legend = ["on content words: of the changed queries, the share whose change touches a NOUN, PROPN, main VERB or "
              "ADJ of the query (spaCy); most changed words: their share of the changed queries"]
    source = f"--queries {args.queries}" if args.queries else f"--dataset {args.dataset or 'chatterbot'}"
    legend += [f"{name}: {n} of its query ids are not among the queries of {source}, so whether those rows changed "
               f"and on which words is unknown (counted as applied). Fix: give the --dataset (or --queries FILE) the "
               f"set's originals come from" for name, n in unmatched.items() if n]
    print("\n".join(wrapped(legend)))


def _queries(args) -> list:
    """(qid, text) of the queries to perturb or compare with: ``--queries FILE`` or the dataset's judged queries."""
    if args.queries is not None:
        if args.dataset is not None or args.split is not None:
            raise BenchError("--queries FILE perturbs that list; --dataset / --split name a dataset's queries instead. "
                             "Fix: give one of them")
        from perturb.io.querylist import read_query_list

        return read_query_list(args.queries)
    from bench.data.collections import load_dataset

    ds = load_dataset(args.dataset or "chatterbot", args.split)
    return [(q, ds.queries[q].text) for q in ds.judged_query_ids()]


def _substance_cells(sub) -> tuple:
    """(content share in percent rounded to 0.1 or "", the most changed words) of one set."""
    if sub is None or sub.content_share is None:
        return ("", "")
    return (round(100.0 * sub.content_share, 1), sub.top_text())
