"""``python -m benchmarks.tuning COMMAND``:

    thresholds                              every spec's threshold beside the value its rule re-derives
                                            from its labelled set; exit 1 when one disagrees
    curve SET [--split tune|held|all] [--provenance P] [--grid 0.1,0.2,...]
                                            the validity/applicability curve of SET's labelled rows
                                            (default: the development samples' tuning half)
    kinds [SET] [--provenance P]            SWAPWORDS's kind table (Laplace validity per evidence kind), then
                                            every other kind the parse can give (no label: the prior 0.5)
    constraints [--write|--check]           every spec's constraints (veto, floor, threshold) and parameters, as
                                            the table of docs/architecture.md (--write: regenerate it there)
    docs [--check] [--path docs/methods.md]  the operating-points table of docs/methods.md, regenerated from
                                            the specs between its markers (--check: exit 1 when it differs)
    digests [--write]                       each generator's spec version and output digest on the probe
                                            queries (tests/perturb/data); --write records them
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from perturb.checks import devset
from perturb.spec import Spec
from benchmarks.tuning import rules

TOLERANCE = 5e-5  # thresholds are written to four decimals
Out = Callable[[str], None]
START, END = "<!-- operating-points:start -->\n", "<!-- operating-points:end -->"


def known_specs() -> Tuple[List[Spec], List[str]]:
    """Every built-in generator's spec (:func:`perturb.spec.all_specs`), and the generators that
    carry none yet ("protocol/SET") when some do not."""
    from perturb.spec import all_specs

    try:
        return all_specs(), []
    except AttributeError:
        from perturb import PAPER_ORDER, PROTOCOLS

        specs: List[Spec] = []
        missing: List[str] = []
        for protocol in ("validated", "rodr"):
            for name in PAPER_ORDER:
                spec = getattr(PROTOCOLS[protocol].get(name), "spec", None)
                if spec is None:
                    missing.append(f"{protocol}/{name}")
                elif all(spec is not s for s in specs):
                    specs.append(spec)
        return specs, missing


def check_thresholds(specs: Sequence[Spec], out: Out = print) -> int:
    """Print one line per threshold of ``specs``; the number that disagree (or cannot be re-derived)."""
    rows = [("set", "protocol", "constraint", "threshold", "re-derived", "agrees", "chosen by")]
    bad = 0
    for spec in specs:
        for c in spec.thresholds():
            value = c.values["threshold"]
            if c.tuning is None:
                rows.append((spec.name, spec.protocol, c.name, f"{value:g}", "-", "not tuned", ""))
                continue
            try:
                got = rules.rederive(c)
                ok = abs(got - value) <= TOLERANCE
                shown = f"{got:g}"
            except (OSError, KeyError, ValueError) as exc:
                ok, shown = False, f"error: {exc}"
            bad += not ok
            rows.append((spec.name, spec.protocol, c.name, f"{value:g}", shown, "yes" if ok else "NO",
                         c.tuning.describe()))
    widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]) - 1)]
    for r in rows:
        out("  ".join(v.ljust(w) for v, w in zip(r, widths)) + "  " + r[-1])
    out(f"{len(rows) - 1} thresholds, {bad} disagree")
    return bad


def _options(argv: Sequence[str], names: Sequence[str]) -> Tuple[List[str], Dict[str, str]]:
    args, opts, it = [], {}, iter(argv)
    for a in it:
        if a.startswith("--"):
            if a[2:] not in names:
                raise SystemExit(f"unknown option {a}; the options: {', '.join('--' + n for n in names)}")
            opts[a[2:]] = next(it, "")
        else:
            args.append(a)
    return args, opts


def _provenance(opts: Dict[str, str]) -> devset.Provenance:
    p = opts.get("provenance", devset.DEVELOPMENT)
    return p.split(",") if "," in p else p


def curve(name: str, split: str = "tune", provenance: devset.Provenance = devset.DEVELOPMENT,
          grid: Optional[Sequence[float]] = None) -> str:
    rows = rules.labelled(devset.read_devset(rules.labelled_path(name)), provenance)
    if split != "all":
        rows = [c for c in rows if c.split == split]
    if not rows:
        raise SystemExit(f"{name}: no labelled row of {provenance} in split {split}")
    chosen = _shipped_threshold(name)
    points = devset.curve(rows, grid)
    return devset.curve_table(points, chosen)


def _shipped_threshold(name: str) -> Optional[float]:
    specs, _ = known_specs()
    for spec in specs:
        if spec.name == name and spec.protocol == "validated":
            for c in spec.thresholds():
                return c.values["threshold"]
    return None


def docs_table(path: Path, check: bool = False, block: str = "operating-points") -> bool:
    """Regenerate a generated block of ``path``: ``operating-points``
    (:func:`perturb.spec.operating_points_markdown`) or ``constraints``
    (:func:`perturb.spec.constraints_markdown`); True when it was already current. ``check``: compare only."""
    from perturb.spec import constraints_markdown, operating_points_markdown

    start, end = f"<!-- {block}:start -->\n", f"<!-- {block}:end -->"
    text = path.read_text(encoding="utf-8")
    if start not in text or end not in text:
        raise SystemExit(f"{path} has no {start.strip()} ... {end} block")
    head, rest = text.split(start, 1)
    old, tail = rest.split(end, 1)
    new = {"operating-points": operating_points_markdown, "constraints": constraints_markdown}[block]()
    if old != new and not check:
        path.write_text(head + start + new + end + tail, encoding="utf-8")
    return old == new


def main(argv: Sequence[str], out: Out = print) -> int:
    if not argv or argv[0] in ("-h", "--help", "help"):
        out(__doc__.strip())
        return 0 if argv else 2
    cmd, rest = argv[0], list(argv[1:])
    if cmd == "thresholds":
        specs, missing = known_specs()
        if missing:
            out(f"no spec yet (not checked): {', '.join(missing)}")
        return 1 if check_thresholds(specs, out) else 0
    if cmd == "curve":
        args, opts = _options(rest, ("split", "provenance", "grid"))
        if len(args) != 1:
            raise SystemExit("usage: python -m benchmarks.tuning curve SET [--split tune|held|all] [--provenance P] [--grid a,b]")
        grid = [float(x) for x in opts["grid"].split(",")] if opts.get("grid") else None
        out(curve(args[0], opts.get("split", "tune"), _provenance(opts), grid))
        return 0
    if cmd == "kinds":
        from benchmarks.tuning.kinds import kind_scores

        args, opts = _options(rest, ("provenance",))
        name = args[0] if args else "SWAPWORDS"
        scores = kind_scores(devset.read_devset(rules.labelled_path(name)), name, _provenance(opts))
        for k, (score, v, n) in scores.items():
            out(f"{score:.2f}\t{v}/{n}\t{k}")
        if name == "SWAPWORDS":  # the kinds the parse can give that no labelled exchange has: the prior
            from perturb.generators.swapwords.generator import KIND_TABLE

            for k, score, _ in KIND_TABLE.rows():
                if k not in scores:
                    out(f"{score:.2f}\t0/0\t{k}\t(no label: refused below {KIND_TABLE.threshold:g})")
        return 0
    if cmd == "docs":
        args, opts = _options([a for a in rest if a != "--check"], ("path",))
        path = Path(opts.get("path") or rules.ROOT / "docs" / "methods.md")
        same = docs_table(path, check="--check" in rest)
        out(f"{path}: the operating-points table is {'current' if same else ('stale' if '--check' in rest else 'rewritten')}")
        return 1 if "--check" in rest and not same else 0
    if cmd == "constraints":
        args, opts = _options([a for a in rest if a not in ("--check", "--write")], ())
        path = rules.ROOT / "docs" / "architecture.md"
        if "--check" in rest or "--write" in rest:
            same = docs_table(path, check="--check" in rest, block="constraints")
            out(f"{path}: the constraints table is {'current' if same else ('stale' if '--check' in rest else 'rewritten')}")
            return 1 if "--check" in rest and not same else 0
        from perturb.spec import constraints_markdown

        out(constraints_markdown().rstrip("\n"))
        return 0
    if cmd == "digests":
        from perturb.checks import spec_digest

        data = rules.ROOT / "tests" / "perturb" / "data"
        now = spec_digest.current(spec_digest.probe_queries(data / "probe_queries.tsv"))
        for key, v in now.items():
            out(f"{key:28s} version {v['version']}  {v['digest'][:16]}")
        if "--write" in rest:
            spec_digest.write(data / "spec_digests.json", now)
            out(f"wrote {data / 'spec_digests.json'}")
        return 0
    out(f"unknown command {cmd!r}\n\n{__doc__.strip()}")
    return 2
