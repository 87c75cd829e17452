"""Corpus-encoding pipeline speed: ``encode_corpus`` (what ``bench evaluate`` runs) against a bare
tokenise + forward + pool loop, with a model whose forward pass is nearly free.

    python benchmarks/encode_pipeline.py [--n 20000] [--rounds 5] [--threads 0] [--profile]
        [--model tiny|FOLDER|NAME] [--out benchmarks/results/encode_pipeline.json]

The model is the tests' tiny random 2-layer BERT (tests/conftest.py build_tiny_bert; built in a
temporary folder) unless ``--model`` names another. The corpus is ``--n`` synthetic passages
(seeded: words drawn from the tokenizer's vocabulary, 20 to 120 words each). Each round runs, in
alternating order, (a) the bare loop: corpus order, batches of 64, ``tokenizer(...)`` + forward +
masked-mean pooling + normalisation, nothing written; (b) the pipeline: ``encode_corpus`` into an
empty cache folder (length pass, sorting, batches, memory-mapped shard file, checksum). The machine
may be shared: the report gives each side's median over the rounds and ``uptime`` before and after.
``--legacy`` adds (c) the pipeline of before (per-batch tokenisation after the length pass), in
the same process and alternation; ``--profile`` adds a cProfile of each pipeline on 5,000 texts.
Numbers are measurements, never assertions.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the checkout whose code is measured (default this one): DRBENCH_BENCH_ROOT=/path/to/other/checkout
#: measures another version (e.g. the main branch, for a before/after table) with this script
CODE = Path(os.environ.get("DRBENCH_BENCH_ROOT", ROOT))
sys.path.insert(0, str(CODE))


def synthetic_passages(vocab_file: Path, n: int, seed: int = 0):
    import numpy as np

    words = [w for w in vocab_file.read_text(encoding="utf-8").split("\n")
             if w.isalpha() and w.isascii() and len(w) > 2]
    rng = np.random.default_rng(seed)
    lengths = rng.integers(20, 121, size=n)
    picks = rng.integers(0, len(words), size=int(lengths.sum()))
    out, pos = [], 0
    for k in lengths:
        out.append(" ".join(words[i] for i in picks[pos:pos + k]))
        pos += k
    return out


def bare_loop(model, tok, texts, batch_size: int, max_length: int, device: str = "cpu") -> float:
    import torch

    t0 = time.perf_counter()
    with torch.inference_mode():
        for i in range(0, len(texts), batch_size):
            b = tok(texts[i:i + batch_size], padding=True, truncation=True, max_length=max_length,
                    return_tensors="pt").to(device)
            h = model(**b).last_hidden_state
            m = b["attention_mask"].unsqueeze(-1).to(h.dtype)
            e = torch.nn.functional.normalize((h * m).sum(1) / m.sum(1).clamp(min=1e-9), dim=-1)
            e.float().cpu().numpy()
    return time.perf_counter() - t0


def legacy_encoder_class():
    """The encoder with the corpus path of before the single-tokenisation pipeline: a length pass
    that keeps only the lengths, then every batch tokenised again (``encode_batch``)."""
    import numpy as np

    from bench.encoding.encoder import Encoder

    class LegacyEncoder(Encoder):
        def encode_into(self, texts, out, desc=""):
            order = self.length_order(texts)
            for start in range(0, len(order), self.batch_size):
                idx = np.sort(order[start:start + self.batch_size])
                out[idx] = self.encode_batch([texts[i] for i in idx])

    return LegacyEncoder


def pipeline(spec, texts, batch_size: int, device: str, shared=None, legacy: bool = False) -> float:
    from bench.encoding.encoder import Encoder
    from bench.encoding.shards import list_chunks, encode_corpus

    cls = legacy_encoder_class() if legacy else Encoder
    enc = cls(spec, "passage", batch_size=batch_size, device=device, progress=False, shared=shared)
    enc.load()
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        encode_corpus(enc, list_chunks(texts, 50_000), Path(tmp), 50_000)
        return time.perf_counter() - t0


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return os.getloadavg().__repr__()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    ap.add_argument("--model", default="tiny")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--profile", action="store_true", help="cProfile (by own time) of each pipeline on 5,000 texts")
    ap.add_argument("--legacy", action="store_true", help="also time the pipeline of before (per-batch tokenisation)")
    ap.add_argument("--label", default="")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()

    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    from bench.encoding.encoder import Encoder
    from bench.models.spec import resolve_model

    with tempfile.TemporaryDirectory() as mtmp:
        if args.model == "tiny":
            sys.path.insert(0, str(ROOT / "tests"))
            from conftest import build_tiny_bert

            folder = build_tiny_bert(Path(mtmp) / "tiny-bert")
            spec = resolve_model(str(folder))
        else:
            spec = resolve_model(args.model)
        holder = Encoder(spec, "passage", batch_size=args.batch_size, device=args.device, progress=False)
        model, tok = holder.load()
        vocab = Path(spec.resolve_path()) / "vocab.txt"
        texts = synthetic_passages(vocab, args.n)
        report = {"label": args.label, "code": str(CODE), "n": args.n, "model": "tiny random 2-layer BERT" if args.model == "tiny"
                  else spec.name, "batch_size": args.batch_size, "max_length": holder.max_length,
                  "torch_threads": torch.get_num_threads(), "device": args.device, "cpu_count": os.cpu_count(),
                  "uptime_before": uptime()}
        bare_loop(model, tok, texts[:2000], args.batch_size, holder.max_length, args.device)  # warm-up
        sides = ["bare", "pipeline"] + (["legacy"] if args.legacy else [])
        times = {side: [] for side in sides}
        for r in range(args.rounds):
            for side in (sides if r % 2 == 0 else sides[::-1]):
                if side == "bare":
                    t = bare_loop(model, tok, texts, args.batch_size, holder.max_length, args.device)
                else:
                    t = pipeline(spec, texts, args.batch_size, args.device, shared=holder, legacy=side == "legacy")
                times[side].append(t)
            report["uptime_after"] = uptime()
            mb = statistics.median(times["bare"])
            report["rounds_done"] = r + 1
            for side in sides:
                m = statistics.median(times[side])
                report[f"{side}_s"] = [round(x, 3) for x in times[side]]
                report[f"{side}_median_passages_per_s"] = round(args.n / m, 1)
                if side != "bare":
                    report[f"{side}_share_of_bare"] = round(mb / m, 3)
            if args.out:  # after every round: a run cut short still reports what it measured
                args.out.parent.mkdir(parents=True, exist_ok=True)
                args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        if args.profile:
            import cProfile
            import io
            import pstats

            n_prof = min(len(texts), 5000)
            for side in sides[1:]:
                prof = cProfile.Profile()
                prof.enable()
                pipeline(spec, texts[:n_prof], args.batch_size, args.device, shared=holder, legacy=side == "legacy")
                prof.disable()
                s = io.StringIO()
                pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(14)
                report[f"profile_{side}_tottime_{n_prof}"] = [ln for ln in s.getvalue().splitlines() if ln.strip()][:30]
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
