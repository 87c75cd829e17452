"""GPU encoding throughput of a registered model (default minilm-l6): the numbers docs/scale.md
leaves blank until someone runs this on a GPU (a few minutes; under 10 on any recent GPU).

    python benchmarks/gpu_encode.py [--model minilm-l6] [--n 20000] [--batch-sizes 32,64,128,256,512]
        [--dtypes float32,float16,bfloat16] [--device cuda:0] [--out gpu_encode.json]

For each dtype and batch size: passages per second of the corpus pipeline (``encode_corpus`` into
an empty cache folder, as ``bench evaluate`` runs it) and of a bare tokenise + forward + pool loop
over the same texts, the pipeline's share of the bare loop, and the peak GPU memory
(``torch.cuda.max_memory_allocated``). Passages: ``--n`` synthetic ones (seeded words from the
model's vocabulary, 20 to 120 words: mostly under the 256-token limit, like MS MARCO passages).
Also the largest difference of the fp32 GPU vectors from CPU vectors on 256 passages. Prints JSON
(and writes it with ``--out``); paste the figures into docs/scale.md with the GPU's name.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="minilm-l6")
    ap.add_argument("--n", type=int, default=20_000)
    ap.add_argument("--batch-sizes", default="32,64,128,256,512")
    ap.add_argument("--dtypes", default="float32,float16,bfloat16")
    ap.add_argument("--device", default="cuda:0")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()

    import numpy as np
    import torch

    from bench.encoding import runtime
    from bench.encoding.encoder import Encoder
    from bench.encoding.shards import encode_corpus, list_chunks
    from bench.models.spec import resolve_model
    from benchmarks.encode_pipeline import bare_loop, synthetic_passages

    if not torch.cuda.is_available():
        sys.exit("benchmarks/gpu_encode.py: torch sees no CUDA GPU here (a CPU-only build or no device); "
                 "run it on a GPU machine")
    base = resolve_model(args.model)
    texts = synthetic_passages(Path(base.resolve_path()) / "vocab.txt", args.n)
    gpu = torch.cuda.get_device_name(torch.device(args.device))
    report = {"model": base.name, "n": args.n, "gpu": gpu, "torch": torch.__version__, "cuda": torch.version.cuda,
              "nvidia_smi": subprocess.run(["nvidia-smi", "--query-gpu=name,memory.total,driver_version",
                                            "--format=csv,noheader"], capture_output=True, text=True).stdout.strip(),
              "rows": []}
    cpu_ref = Encoder(base, "passage", progress=False).encode(texts[:256])
    for dtype in args.dtypes.split(","):
        spec = runtime.apply(base, args.device, dtype, "torch")
        for bs in (int(b) for b in args.batch_sizes.split(",")):
            enc = Encoder(spec, "passage", batch_size=bs, progress=False)
            model, tok = enc.load()
            bare_loop(model, tok, texts[:2 * bs], bs, enc.max_length, spec.device)  # warm-up (kernels, allocator)
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            bare = bare_loop(model, tok, texts, bs, enc.max_length, spec.device)
            with tempfile.TemporaryDirectory() as tmp:
                t0 = time.perf_counter()
                encode_corpus(enc, list_chunks(texts, 50_000), Path(tmp), 50_000)
                torch.cuda.synchronize()
                ours = time.perf_counter() - t0
            row = {"dtype": dtype, "batch_size": bs, "pipeline_passages_per_s": round(args.n / ours, 1),
                   "bare_passages_per_s": round(args.n / bare, 1), "pipeline_share_of_bare": round(bare / ours, 3),
                   "peak_gpu_memory_mb": round(torch.cuda.max_memory_allocated() / 2**20, 1)}
            if dtype == "float32" and bs == 64:
                row["max_abs_diff_vs_cpu_256"] = float(np.abs(enc.encode(texts[:256]) - cpu_ref).max())
            report["rows"].append(row)
            print(json.dumps(row), file=sys.stderr)
            del enc, model
            torch.cuda.empty_cache()
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
