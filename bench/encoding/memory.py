"""The memory one forward pass of ``--batch-size`` texts needs, checked against the memory free
before any work (a batch size of a million asked for 12 GB after minutes of encoding)."""
from __future__ import annotations

import json
from typing import Optional

from bench.core.errors import BenchError

#: bytes per float of the activations (float32; bfloat16/float16 take half, which this bound ignores)
_FLOAT = 4


def forward_bytes(config: dict, batch_size: int, length: int) -> int:
    """A lower bound of the activation memory of one forward pass: the hidden states, the feed-forward
    layer's intermediate states and the attention scores of one layer (held together), and the
    token ids and mask."""
    hidden = int(config.get("hidden_size") or config.get("dim") or 768)
    inter = int(config.get("intermediate_size") or config.get("hidden_dim") or 4 * hidden)
    heads = int(config.get("num_attention_heads") or config.get("n_heads") or 12)
    per_token = 3 * hidden + inter + heads * length
    return batch_size * length * (per_token * _FLOAT + 16)


def available_bytes() -> Optional[int]:
    """MemAvailable of /proc/meminfo, else the free physical pages; None when neither is known."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    try:
        import os

        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, OSError, ValueError):
        return None


def check_batch_memory(spec, batch_size: int, option: str = "--batch-size") -> None:
    """Refuse, before the model loads, a batch whose forward pass cannot fit in the memory free now."""
    free = available_bytes()
    if free is None or getattr(spec, "kind", "dense") != "dense":
        return
    try:
        config = json.loads((spec.resolve_path() / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return  # the model's own checks name the folder
    if not isinstance(config, dict):
        return
    length = max(int(spec.max_query_length or 1), int(spec.max_passage_length or 1))
    need = forward_bytes(config, batch_size, length)
    if need > free:
        fits = max(1, batch_size * free // need)
        raise BenchError(f"{option} {batch_size}: one forward pass of {batch_size} texts of up to {length} tokens needs "
                         f"at least {need / 2**30:.1f} GiB, and {free / 2**30:.1f} GiB of memory are free. Fix: "
                         f"{option} {min(fits, 1024)} or smaller")
