"""The seam for scale-out: independent work units go through an executor.

Contract (every executor):

- ``map(fn, items)``: ``[fn(item) for item in items]``, results in input order. Each unit is a
  pure function of its inputs, so the result files do not depend on the executor.
- ``encode_shards(encoder, jobs)`` (optional): encode the missing corpus shards
  (:class:`bench.encoding.shards.ShardJob`, consumed lazily), write each shard file atomically and yield a
  :class:`bench.encoding.shards.ShardDone` per shard, in any order. Executors without it get the local
  loop (:func:`bench.encoding.shards.run_local`).

``LocalExecutor`` (the default) runs everything in this process, in order.

``RayExecutor`` (``--executor ray [--address auto|HOST:PORT]``; ``pip install "drbench[ray]"``):

- shards: a pool of Ray actors, each loading the model once, on the driver encoder's device
  class (``--device``: one CPU each for ``cpu``; one GPU each for ``cuda``, which the cluster must
  have), encodes shards with the same length-sorted batches as the local executor, so the vectors
  are byte-identical to local ones on the same device class. Workers
  return each shard's array to the driver, which writes it to the content-addressed cache as soon
  as it arrives: the cache home only has to exist on the driver's machine (no shared filesystem
  is needed), a finished shard is never lost, and a rerun or an interrupted run recomputes only
  missing shards. GPU vectors are not byte-identical to CPU vectors, so the cache key names the
  device class and GPU model beyond the CPU (:mod:`bench.encoding.runtime`): a worker whose key
  differs from the driver's (another GPU model, other files) is refused. ``gpus=False`` keeps a
  cuda encoder's shards off the GPUs (an error: use ``--device cpu``). Every node must see the model folder at the
  same path (registered models are installed packages; a local checkpoint folder must be copied
  or on a shared path). At most one shard per worker is in flight, so the driver holds that many
  shards' texts at a time.
- failure: an actor that dies (node loss, OOM kill, ``os._exit``) is restarted and its shard
  retried (``retries`` times, default 3); the other shards are unaffected. When retries run out
  the run stops with an error; the shards already written stay in the cache for the rerun.
- ``map``: one Ray task per unit (``fn`` is shipped once through the object store); results are
  gathered in input order; a failed task is retried (``max_retries``). Each task runs with the
  driver's torch thread count and asks Ray for that many CPUs (at most a node's), because CPU
  training is not bit-reproducible across thread counts (the few-shot suite's losses change in
  the last bits): with the same count, local and Ray write identical result files. The closure
  carries what it references (for the variations suite: the retriever and its index, pickled
  once); an exact index over several shards reads the shard files by path, so on a multi-node
  cluster those units need the cache home on a shared filesystem (shard encoding does not).
- ``address=None`` starts a local Ray instance (``num_cpus`` CPUs, default all) unless this
  process is already connected to one (then that cluster is used and left running);
  ``"auto"`` joins the cluster started with ``ray start --head`` on this machine;
  ``"HOST:PORT"`` (GCS address) or ``"ray://HOST:PORT"`` (Ray Client) joins a remote one.
"""
from __future__ import annotations

import os
import re
import sys
import time
from typing import Callable, Iterable, Iterator, List, Optional, Protocol, Sequence, TypeVar

from bench.core.errors import BenchError, ResourceError
from bench.core.registry import Registry
from bench.encoding.encoder import Encoder
from bench.encoding.shards import ShardDone, kill_hook, run_local, write_shard

A = TypeVar("A")
B = TypeVar("B")

RAY_INSTALL = 'pip install "drbench[ray]"'


class Executor(Protocol):
    name: str

    def map(self, fn: Callable[[A], B], items: Sequence[A]) -> List[B]:
        ...


class LocalExecutor:
    name = "local"

    def map(self, fn: Callable[[A], B], items: Sequence[A]) -> List[B]:
        return [fn(item) for item in items]

    def encode_shards(self, encoder, jobs: Iterable) -> Iterator:
        return run_local(encoder, jobs)

    def shutdown(self) -> None:
        pass


# --------------------------------------------------------------------------------------------
# Ray


_ADDRESS = re.compile(r"^(?:ray://)?(?P<host>[A-Za-z0-9.\-_]+|\[[0-9A-Fa-f:]+\]):(?P<port>\d{1,5})$")


def check_address(address: Optional[str]) -> Optional[str]:
    """``None``, ``"auto"``, ``"HOST:PORT"`` or ``"ray://HOST:PORT"``; anything else is a user error."""
    if address is None:
        return None
    a = str(address).strip()
    if a == "auto":
        return a
    m = _ADDRESS.match(a)
    if m and 0 < int(m.group("port")) < 65536:
        return a
    raise BenchError(f"--address {address!r} is not a Ray cluster address. Fix: use --address auto (the cluster "
                     f"started here with `ray start --head`), --address HOST:PORT (its GCS address, e.g. "
                     f"10.0.0.5:6379) or --address ray://HOST:10001 (Ray Client); omit --address to start a local "
                     f"Ray instance.")


def _check_reachable(address: str, timeout: float = 5.0) -> None:
    """Fail fast when nothing listens at ``HOST:PORT`` (ray.init would retry for minutes)."""
    import socket

    m = _ADDRESS.match(address)
    host, port = m.group("host").strip("[]"), int(m.group("port"))
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as exc:
        raise ResourceError(f"--address {address}: nothing answers at {host}:{port} ({exc.strerror or exc}). Fix: "
                            f"start the cluster there (`ray start --head --port {port}`), check the host and port "
                            f"(the GCS address printed by `ray start`, or ray://HOST:10001 for Ray Client), or omit "
                            f"--address to start a local Ray instance.") from None


def _import_ray():
    try:
        import ray
    except ImportError:
        raise ResourceError(f"--executor ray needs the ray package. Install: {RAY_INSTALL}") from None
    return ray


def _apply(fn, item, threads: int = 0):
    if threads:
        import torch

        torch.set_num_threads(threads)  # the driver's count: CPU reductions (training) depend on it
    return fn(item)


def _driver_threads() -> int:
    """torch's thread count in this process, when torch is already in use (0: leave it alone)."""
    torch = sys.modules.get("torch")
    return int(torch.get_num_threads()) if torch is not None else 0


class _ShardWorker:
    """A Ray actor: loads the passage encoder once, then encodes shard after shard."""

    def __init__(self, spec, batch_size: int, expected_key: str, threads: int, device: str):
        import torch


        if device == "cpu" and threads > 0:
            torch.set_num_threads(threads)
        self.encoder = Encoder(spec, "passage", batch_size=batch_size, device=device, progress=False)
        if self.encoder.key != expected_key:
            raise ResourceError(f"the model files of {spec.name!r} differ on this Ray node (encoder key "
                                f"{self.encoder.key[:12]} != {expected_key[:12]} on the driver): every node must "
                                f"have the same model folder and, on GPUs, the same GPU model as the driver")
        self.encoder.load()

    def encode(self, index: int, texts, kill=None):
        import numpy as np

        if kill is not None and kill[0] == index and not os.path.exists(kill[1]):
            with open(kill[1], "w") as fh:  # the test's evidence that the first attempt died
                fh.write(f"{os.getpid()}\n")
            os._exit(1)  # a worker dying mid-shard (test-only fault injection, see bench.encoding.shards)
        t0 = time.perf_counter()
        out = np.empty((len(texts), self.encoder.dim), dtype=np.float32)
        self.encoder.encode_into(texts, out)
        return out, time.perf_counter() - t0, f"ray:{os.getpid()}"

    def peak_rss_mb(self) -> float:
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class RayExecutor:
    """Work units and corpus shards on a Ray cluster (see the module docstring)."""

    name = "ray"

    def __init__(self, address: Optional[str] = None, num_cpus: Optional[int] = None, workers: Optional[int] = None,
                 cpus_per_worker: int = 1, retries: int = 3, batch_size: Optional[int] = None,
                 gpus: Optional[bool] = None):
        self.address = check_address(address)
        for label, value in (("num_cpus", num_cpus), ("workers", workers)):
            if value is not None and (not isinstance(value, int) or value < 1):
                raise BenchError(f"RayExecutor: {label} must be a positive integer, got {value!r}")
        if cpus_per_worker < 1 or retries < 0:
            raise BenchError("RayExecutor: cpus_per_worker must be >= 1 and retries >= 0")
        self.num_cpus, self.workers, self.cpus_per_worker, self.retries = num_cpus, workers, cpus_per_worker, retries
        self.batch_size = batch_size
        self.gpus = gpus  # None: one GPU per shard worker when the cluster has GPUs
        self._owns = False
        self.worker_rss_mb: List[float] = []  # peak RSS reported by each shard worker before it stopped

    # ---- cluster ---------------------------------------------------------------------------
    def _ray(self):
        ray = _import_ray()
        if not ray.is_initialized():
            kwargs = dict(include_dashboard=False, log_to_driver=False, configure_logging=False)
            if self.address is None:
                kwargs["num_cpus"] = self.num_cpus
            elif self.address != "auto":
                _check_reachable(self.address)
            try:
                ray.init(address=self.address, **kwargs)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                where = f"--address {self.address}" if self.address else "a local Ray instance"
                raise ResourceError(f"could not connect to {where}: {str(exc).rstrip('.')}. Fix: start the cluster "
                                    f"(`ray start --head` on the head node) and pass its address, or omit --address "
                                    f"to start a local instance.") from None
            self._owns = True
        return ray

    def shutdown(self) -> None:
        """Stop the Ray instance if this executor started it."""
        if self._owns:
            import ray

            ray.shutdown()
            self._owns = False

    def n_workers(self) -> int:
        ray = self._ray()
        if self.workers:
            return self.workers
        cpus = ray.cluster_resources().get("CPU", 1)
        return max(1, int(cpus // self.cpus_per_worker))

    # ---- independent units -----------------------------------------------------------------
    def map(self, fn: Callable[[A], B], items: Sequence[A]) -> List[B]:
        items = list(items)
        if not items:
            return []
        ray = self._ray()
        threads = _driver_threads()
        node_cpus = max([n.get("Resources", {}).get("CPU", 1) for n in ray.nodes() if n.get("Alive")] or [1])
        fn_ref = ray.put(fn)
        task = ray.remote(num_cpus=max(1, min(threads, int(node_cpus))), max_retries=self.retries)(_apply)
        return ray.get([task.remote(fn_ref, item, threads) for item in items])

    # ---- corpus shards ---------------------------------------------------------------------
    def encode_shards(self, encoder, jobs: Iterable) -> Iterator:
        ray = self._ray()
        gpus = ray.cluster_resources().get("GPU", 0) if self.gpus is not False else 0
        device = "cuda" if str(encoder.device).startswith("cuda") else str(encoder.device)
        if device == "cuda" and gpus < 1:
            raise ResourceError(f"the passage encoder runs on {encoder.device} but the Ray cluster offers no GPU to its "
                                f"shard workers. Fix: --device cpu, or add GPU nodes to the cluster")
        actor_cls = ray.remote(num_cpus=self.cpus_per_worker, num_gpus=1 if device == "cuda" else 0,
                               max_restarts=self.retries, max_task_retries=self.retries)(_ShardWorker)
        limit = self.n_workers()
        kill = kill_hook()
        batch = self.batch_size or encoder.batch_size
        actors: list = []
        idle: list = []
        pending: dict = {}
        job_iter = iter(jobs)
        exhausted = False
        try:
            while True:
                while not exhausted and (idle or len(actors) < limit):
                    job = next(job_iter, None)
                    if job is None:
                        exhausted = True
                        break
                    if idle:
                        actor = idle.pop()
                    else:
                        actor = actor_cls.remote(encoder.spec, batch, encoder.key, self.cpus_per_worker, device)
                        actors.append(actor)
                    ref = actor.encode.remote(job.index, list(job.texts), kill)
                    pending[ref] = (job, actor)
                if not pending:
                    break
                done, _ = ray.wait(list(pending), num_returns=1)
                ref = done[0]
                job, actor = pending.pop(ref)
                try:
                    arr, seconds, worker = ray.get(ref)
                except ray.exceptions.RayError as exc:
                    first = str(exc).splitlines()[0] if str(exc) else ""
                    raise BenchError(f"corpus shard {job.index} failed: {type(exc).__name__}: {first} (a worker "
                                     f"that dies is restarted and its shard retried up to {self.retries} times). "
                                     f"Shards already encoded are in the cache; rerun to resume.") from None
                if arr.shape[0] != len(job.texts):
                    raise BenchError(f"corpus shard {job.index}: worker returned {arr.shape[0]} vectors for "
                                     f"{len(job.texts)} texts")
                write_shard(job.path, arr)
                del arr
                idle.append(actor)
                yield ShardDone(job.index, len(job.texts), seconds, worker)
        finally:
            for actor in actors:
                try:
                    self.worker_rss_mb.append(float(ray.get(actor.peak_rss_mb.remote(), timeout=30)))
                except Exception:  # a dead actor has nothing to report
                    pass
                ray.kill(actor)


EXECUTORS: Registry = Registry("executor", "drbench.executors")
EXECUTORS.register("local", LocalExecutor)
EXECUTORS.register("ray", RayExecutor)


def make_executor(name: str, address: Optional[str] = None):
    """The executor registered as ``name`` (``--executor``), with ``--address`` when given."""
    cls = EXECUTORS.get(name)
    if address is not None:
        if EXECUTORS.canonical(name) == "local":
            raise BenchError("--address names a Ray cluster; use it with --executor ray")
        return cls(address=address)
    return cls()
