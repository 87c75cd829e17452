"""Peak memory of corpus encoding against corpus size (embeddings streamed to disk).

    python benchmarks/encode_memory.py [--sizes 2000 8000] [--model minilm-l6]

Each size runs in a fresh subprocess that encodes N synthetic passages into an empty cache and
reports its peak RSS (getrusage high-water mark) and the RSS right after the model loaded. If
embeddings are streamed to disk, peak - after_load grows by far less than N * dim * 4 bytes
would suggest for a held copy, beyond the texts themselves. Prints JSON; asserts nothing.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

CHILD = r"""
import json, resource, sys, tempfile, time
sys.path.insert(0, {root!r})
import numpy as np
from bench.encoding.cache import EmbeddingCache
from bench.encoding.encoder import Encoder
from bench.models.spec import resolve_model
n = {n}
rng = np.random.default_rng(0)
words = ["wing", "lift", "heat", "flow", "shock", "layer", "boundary", "pressure", "shell", "mach", "plate",
         "cone", "slab", "surface", "velocity", "angle", "attack", "supersonic", "laminar", "buckling"]
texts = [" ".join(rng.choice(words, size=int(rng.integers(20, 60)))) + f" doc{{i}}" for i in range(n)]
spec = resolve_model({model!r}).with_overrides(max_passage_length=128)
enc = Encoder(spec, "passage", progress=False)
enc.load()
after_load = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
with tempfile.TemporaryDirectory() as tmp:
    t0 = time.perf_counter()
    m = EmbeddingCache(enc, tmp).matrix(texts)
    secs = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({{"n": n, "dim": int(m.shape[1]), "after_load_mb": round(after_load, 1),
                      "peak_mb": round(peak, 1), "growth_mb": round(peak - after_load, 1),
                      "embeddings_mb": round(n * m.shape[1] * 4 / 2**20, 1),
                      "passages_per_s": round(n / secs, 1)}}))
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[2000, 8000])
    ap.add_argument("--model", default="minilm-l6")
    args = ap.parse_args()
    root = str(Path(__file__).resolve().parents[1])
    out = []
    for n in args.sizes:
        code = CHILD.format(root=root, n=n, model=args.model)
        res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        out.append(json.loads(res.stdout.strip().splitlines()[-1]))
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
