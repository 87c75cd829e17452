"""The one encoder contract: every model form (a registered name, a model folder, a model object,
a callable) is wrapped once, by :func:`bench.encoding.encoders.make_encoders`, and every batch of
vectors an encoder returns is checked by :meth:`VectorContract.check` before it is written to the
cache or searched:

- vectors, not complex numbers (a complex array is refused, never cast to its real part);
- 2-D, one row per text, at least one column;
- one width for the whole run: queries and passages of one model, every batch;
- finite (no NaN or infinity) after the cast to float32 (a float64 value beyond float32's range
  becomes infinite there and is refused);
- no row of norm 0 (an all-zero vector has no direction: cosine divides by it, and every document
  scores 0 against it), and no row of norm above :data:`MAX_NORM` (a dot product of two such
  vectors would leave float32's range: scores of ``inf``).

The query and passage encoders of a model share one contract, so a query batch of another width
than the corpus (cached or encoded) is a BenchError naming both widths, never a faiss assertion.
:func:`check_similarity` refuses a similarity the retriever does not implement. A model object's
outputs on the probe texts are compared with its fingerprint after every call that produced vectors
for the cache (:meth:`bench.encoding.objects.ObjectEncoder.check_unchanged`): an object trained in
place during the run is refused before its vectors are stored under the old key.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from bench.core.errors import BenchError

#: the largest accepted vector norm: two vectors of this norm have a dot product of 1e36, inside
#: float32's range (3.4e38); a model whose vectors are larger (scale 1e20) gives infinite scores
MAX_NORM = 1e18
#: the similarities the retriever implements (bench.search.ann.build_index)
SIMILARITIES = ("cos", "dot")
#: how sentence-transformers and other libraries spell them (``similarity_fn_name``)
SIMILARITY_NAMES = {"cos": "cos", "cosine": "cos", "dot": "dot", "dot_product": "dot"}


def check_similarity(name: Any, where: str) -> str:
    """Our name of a similarity (``cosine`` -> ``cos``); another (``euclidean``, ``manhattan``) is refused."""
    got = SIMILARITY_NAMES.get(str(name).strip().lower()) if isinstance(name, str) else None
    if got is None:
        raise BenchError(f"{where}: similarity {name!r} is not supported; drbench scores by cosine or dot product. "
                         f"Fix: give similarity='cos' or similarity='dot' (--similarity cos|dot), which overrides the "
                         f"model's own setting, if the model's vectors are meant for one of those")
    return got


class VectorContract:
    """The checks of the module docstring for one model (both roles share one contract)."""

    def __init__(self, model: str):
        self.model = model
        self.width: Optional[int] = None
        self.width_from = ""

    def expect_width(self, width: int, source: str) -> None:
        """Record or compare the width of vectors from ``source`` (a role, or a cache entry)."""
        if self.width is None:
            self.width, self.width_from = int(width), source
        elif int(width) != self.width:
            raise BenchError(f"model {self.model!r}: {source} vectors have {int(width)} dimensions, {self.width_from} "
                             f"vectors {self.width}; queries and passages must be compared in one space. Fix: return "
                             f"vectors of one size for queries and passages")

    def check(self, out: Any, n_texts: int, source: str) -> np.ndarray:
        """``out`` (a numpy array, torch tensor or list of lists) as a C-ordered float32 matrix of
        ``n_texts`` rows, checked; ``source`` names what produced it (``query batch`` ...)."""
        arr = self._as_array(out, source)
        if arr.ndim != 2 or arr.shape[0] != n_texts or arr.shape[1] < 1:
            raise BenchError(f"model {self.model!r}: {source} returned shape {tuple(arr.shape)} for {n_texts} texts. "
                             f"Fix: return one vector per text, shape ({n_texts}, dim)")
        self.expect_width(arr.shape[1], source)
        with np.errstate(over="ignore"):  # a value beyond float32's range becomes inf, refused just below
            arr = np.ascontiguousarray(arr, dtype=np.float32)
        self.check_values(arr, source)
        return arr

    def _as_array(self, out: Any, source: str) -> np.ndarray:
        if hasattr(out, "detach"):  # a torch tensor
            out = out.detach().cpu()
            if out.is_complex():
                self._complex(source)
            out = out.float().numpy()
        if isinstance(out, np.ndarray) and out.dtype.kind in "fiu" and out.dtype.itemsize <= 8:
            return out
        try:
            arr = np.asarray(out)
        except (TypeError, ValueError) as exc:
            raise BenchError(f"model {self.model!r}: {source} returned {type(out).__name__}, not vectors ({exc}). "
                             f"Fix: return a numpy array, a torch tensor or a list of lists") from None
        if arr.dtype.kind == "c":
            self._complex(source)
        if arr.dtype.kind not in "fiu":
            raise BenchError(f"model {self.model!r}: {source} returned values of type {arr.dtype}, not numbers. Fix: "
                             f"return a numpy array, a torch tensor or a list of lists of floats")
        return arr

    def _complex(self, source: str) -> None:
        raise BenchError(f"model {self.model!r}: {source} returned complex numbers; a vector's imaginary part would "
                         f"be dropped. Fix: return real vectors")

    def check_values(self, arr: np.ndarray, source: str) -> None:
        """Finite values, and every row's norm in (0, MAX_NORM] (module docstring)."""
        if not np.isfinite(arr).all():
            raise BenchError(f"model {self.model!r}: {source} returned NaN or infinite values (or values beyond "
                             f"float32's range, 3.4e38). Fix: check the model's outputs")
        peak = np.abs(arr).max(axis=1) if arr.size else np.zeros(0, dtype=np.float32)
        if (peak == 0).any():
            row = int(np.flatnonzero(peak == 0)[0])
            raise BenchError(f"model {self.model!r}: {source} returned an all-zero vector (row {row}); it has no "
                             f"direction, so every document would score 0 against it. Fix: check the model's "
                             f"outputs (an empty or unknown text?)")
        if (peak > MAX_NORM / np.sqrt(arr.shape[1])).any():  # cheap pre-test; the exact norm only then
            norms = np.sqrt(np.einsum("ij,ij->i", arr.astype(np.float64), arr.astype(np.float64)))
            if (norms > MAX_NORM).any():
                raise BenchError(f"model {self.model!r}: {source} returned vectors of norm up to {norms.max():.3g}, "
                                 f"above {MAX_NORM:g}: their dot products leave float32's range (scores of inf). "
                                 f"Fix: scale or normalise the vectors")
