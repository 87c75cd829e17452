"""Features of every candidate of both synonym sources on a SWORDS-format file, through the
generators' own code (perturb.generators.swapsyn.chooser: targets, candidates, MiniLM features),
one row per (target, source, candidate) with its label share (empty when the file does not judge
it); the MiniLM features for the ``ENCODED`` first candidates of each target in a fixed prior order
(:func:`_prior`), empty for the rest. Written to benchmarks/lexsub/features-<name>.tsv.

    python benchmarks/lexsub/features.py ../shared/data/swords/swords-v1.1_dev.json.gz
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from perturb.checks.lexsub import read_lexsub  # noqa: E402
from perturb.generators.swapsyn import chooser  # noqa: E402
from perturb.generators.swapsyn.candidates import SOURCES  # noqa: E402
from perturb.resources import parsing  # noqa: E402
from perturb.resources.words import tagging_copy  # noqa: E402


ENCODED = 16  # candidates per target given the MiniLM features (the generator scores fewer)


def _prior(c):
    """A fixed order for choosing which candidates to encode: more resources proposing the pair, a
    WordNet synonym of a more frequent sense, a nearer GloVe neighbour."""
    f = dict(zip(chooser.FEATURES, c.x[:len(chooser.CHEAP) - len(chooser.POS_FEATURES)] + (0.0,) * 6))
    return (-f["sources"], -f["sense_rank"], -f["glove_cos"], c.lemma)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    t0 = time.time()
    lex = read_lexsub(args.file)
    texts = [t.text for t in lex.targets]
    docs = parsing.parse([tagging_copy(t) for t in texts])
    ctx_of = {t.tid: t.context_id for t in lex.targets}
    lines = ["target_id\tcontext\tpos\tsource\tlemma\tnew\tlabel\t" + "\t".join(chooser.FEATURES)]
    n_free = len(chooser.CHEAP) - len(chooser.POS_FEATURES)
    for source in SOURCES:
        per = [chooser.candidates_of(t.text, d, source, t.start) for t, d in zip(lex.targets, docs)]
        top = [sorted(cands, key=_prior)[:ENCODED] for cands in per]
        full = chooser.with_context(texts, top)
        for t, cands, row in zip(lex.targets, per, full):
            pool, encoded = lex.pool.get(t.tid, {}), {c.lemma: c for c in row}
            for c in cands:
                share = pool.get(c.lemma, pool.get(c.new.lower()))
                x = encoded[c.lemma].x if c.lemma in encoded else c.x[:n_free] + (None,) * 3 + c.x[n_free:]
                lines.append("\t".join([t.tid, ctx_of[t.tid], t.pos, source, c.lemma, c.new,
                                        "" if share is None else f"{share:.4f}"] +
                                       ["" if v is None else f"{v:.4f}" for v in x]))
        print(f"{source}: {sum(len(r) for r in full)} candidates, {time.time() - t0:.0f} s", flush=True)
    out = Path(args.out) if args.out else HERE / f"features-{Path(args.file).name.split('.')[0]}.tsv"
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {out} ({len(lines) - 1} rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
