"""Issue 17: the embedding cache checks itself (size, header, checksum) and cleans dead writers' files."""
from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np
import pytest

from bench.encoding.cache import EmbeddingCache
from bench.encoding.encoder import Encoder
from bench.encoding.integrity import sidecar
from bench.encoding.shards import content_key, open_entry, shard_path
from bench.models.spec import spec_from_folder
from bench.core.errors import BenchError

TEXTS = ["alpha beta", "gamma delta epsilon", "zeta", "eta theta iota kappa"]


def _cache(tiny_bert, tmp_path):
    enc = Encoder(spec_from_folder(tiny_bert), "passage", progress=False)
    return EmbeddingCache(enc, tmp_path), tmp_path / enc.key


def _entry(root):
    return shard_path(root, content_key(TEXTS))


def test_a_flipped_byte_is_detected_re_encoded_and_replaced(tiny_bert, tmp_path, capsys):
    cache, root = _cache(tiny_bert, tmp_path)
    good = np.asarray(cache.matrix(TEXTS)).tobytes()
    entry = _entry(root)
    assert sidecar(entry).exists()
    raw = bytearray(entry.read_bytes())
    raw[-3] ^= 0xFF  # same size, same header: only the checksum can tell
    entry.write_bytes(bytes(raw))
    cache2, _ = _cache(tiny_bert, tmp_path)
    again = np.asarray(cache2.matrix(TEXTS)).tobytes()
    assert again == good and cache2.misses == len(TEXTS)
    assert "damaged: checksum mismatch" in capsys.readouterr().err
    assert np.load(entry).tobytes() == good and sidecar(entry).exists()  # replaced


def test_a_truncated_entry_is_re_encoded_not_a_mmap_traceback(tiny_bert, tmp_path, capsys):
    cache, root = _cache(tiny_bert, tmp_path)
    good = np.asarray(cache.matrix(TEXTS)).tobytes()
    entry = _entry(root)
    entry.write_bytes(entry.read_bytes()[:200])
    cache2, _ = _cache(tiny_bert, tmp_path)
    assert np.asarray(cache2.matrix(TEXTS)).tobytes() == good
    assert "truncated" in capsys.readouterr().err


def test_opening_a_truncated_file_directly_is_a_clear_error(tmp_path):
    p = tmp_path / "matrix-x.npy"
    np.save(p, np.zeros((50, 8), dtype=np.float32))
    p.write_bytes(p.read_bytes()[:300])
    with pytest.raises(BenchError, match=r"matrix-x.npy cannot be read .*Fix: delete it"):
        open_entry(p)


def test_an_entry_without_checksum_is_accepted_and_recorded(tiny_bert, tmp_path):
    cache, root = _cache(tiny_bert, tmp_path)
    good = np.asarray(cache.matrix(TEXTS)).tobytes()
    entry = _entry(root)
    sidecar(entry).unlink()  # an entry written before checksums existed
    mtime = entry.stat().st_mtime_ns
    cache2, _ = _cache(tiny_bert, tmp_path)
    assert np.asarray(cache2.matrix(TEXTS)).tobytes() == good and cache2.misses == 0
    assert sidecar(entry).exists() and entry.stat().st_mtime_ns == mtime


def test_a_damaged_query_chunk_is_re_encoded(tiny_bert, tmp_path, capsys):
    cache, root = _cache(tiny_bert, tmp_path)
    good = cache.texts(["a query", "another query"]).tobytes()
    (chunk,) = (root / "texts").glob("*.npy")
    chunk.write_bytes(chunk.read_bytes()[:-4])
    cache2, _ = _cache(tiny_bert, tmp_path)
    assert cache2.texts(["a query", "another query"]).tobytes() == good and cache2.misses == 2
    assert "damaged" in capsys.readouterr().err


def test_orphan_tmp_files_of_dead_writers_are_cleaned(tiny_bert, tmp_path):
    from bench.core import io

    root = tmp_path / "fresh"
    enc = Encoder(spec_from_folder(tiny_bert), "passage", progress=False)
    folder = root / enc.key
    folder.mkdir(parents=True)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    orphan = folder / f".matrix-a.npy.w{dead}-{io._HOST_TAG}.abc.npy.tmp"
    live = folder / f".matrix-b.npy.w{os.getpid()}-{io._HOST_TAG}.abc.npy.tmp"
    legacy_old = folder / ".matrix-c.npy.xyz.npy.tmp"
    for p in (orphan, live, legacy_old):
        p.write_bytes(b"partial")
    old = time.time() - 3600
    os.utime(legacy_old, (old, old))
    EmbeddingCache(enc, root)
    assert not orphan.exists() and not legacy_old.exists()
    assert live.exists()  # this process is still writing it


def _no_files_left(root):
    return [p.name for p in root.rglob("*") if p.is_file() and p.name.startswith(".")] == [] and \
        not list(root.glob("matrix-*.npy"))


def test_too_little_free_space_is_refused_before_the_shard_is_encoded(tiny_bert, tmp_path, monkeypatch):
    """Case 12: disk full during corpus encoding used to kill the process with SIGBUS (memmap)."""
    from collections import namedtuple

    from bench.encoding import shards as shards_mod

    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(shards_mod.shutil, "disk_usage", lambda p: usage(10 ** 9, 10 ** 9 - 100, 100))
    cache, root = _cache(tiny_bert, tmp_path)
    encoded = []
    monkeypatch.setattr(cache.encoder, "encode_into", lambda *a, **k: encoded.append(1))
    with pytest.raises(BenchError, match=r"cannot write the embedding cache in .*needs .* MB, 0\.0 MB are free.*DRBENCH_HOME"):
        cache.matrix(TEXTS)
    assert encoded == []  # refused before any text went through the model
    assert _no_files_left(root)


def test_a_failed_block_reservation_is_a_clear_error_not_sigbus(tiny_bert, tmp_path, monkeypatch):
    import errno

    from bench.encoding import shards as shards_mod

    def full(fd, offset, length):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(shards_mod.os, "posix_fallocate", full, raising=False)
    cache, root = _cache(tiny_bert, tmp_path)
    with pytest.raises(BenchError, match=r"cannot write the embedding cache in .*No space left"):
        cache.matrix(TEXTS)
    assert _no_files_left(root)


def test_the_reserved_file_has_its_blocks_allocated(tiny_bert, tmp_path):
    from bench.encoding.shards import reserve_space

    f = tmp_path / "sparse.npy"
    with open(f, "wb") as fh:
        fh.truncate(1 << 20)  # a sparse file, as open_memmap creates it
    reserve_space(f)
    if os.stat(f).st_blocks * 512 < (1 << 20):
        pytest.skip("this file system does not support posix_fallocate")
    assert os.stat(f).st_blocks * 512 >= 1 << 20


def test_query_lookups_count_disk_hits_encodings_and_reuse_apart(tiny_bert, tmp_path):
    cache, _ = _cache(tiny_bert, tmp_path)
    cache.texts(["a", "b", "a"])
    cache.texts(["b", "c"])
    # cold: nothing from disk; a, b, c encoded once; the second "a" and the second "b" reused
    assert (cache.hits, cache.misses, cache.reused, cache.lookups) == (0, 3, 2, 5)
    warm, _ = _cache(tiny_bert, tmp_path)
    warm.texts(["c", "a", "c"])
    warm.texts(["a", "d"])
    # warm: c and a served from disk once each, d encoded, the repeats reused
    assert (warm.hits, warm.misses, warm.reused, warm.lookups) == (2, 1, 2, 5)
