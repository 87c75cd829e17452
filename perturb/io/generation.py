"""Generating variation sets: one generator (:func:`generate`) or several at once
(:func:`generate_many`, which overlaps BACKTRANS's translations with the other generators)."""
from __future__ import annotations

from typing import Callable, ContextManager, Dict, Iterable, List, Optional, Sequence, Tuple

from perturb import DEFAULT_PROTOCOL, PAPER_ORDER, registry_of
from perturb.base import Generator, Perturbation, ResourceMissing
from perturb.io.sets import VariationSet


def generate(name: str, queries: Sequence[Tuple[str, str]], seed: int, generator=None,
             cache: bool = True, protocol: str = DEFAULT_PROTOCOL) -> VariationSet:
    """Run generator ``name`` of ``protocol`` ("validated" or "rodr": :data:`perturb.PROTOCOLS`)
    over ``(qid, text)`` pairs. Never skips silently: a generator that cannot run here gives a set
    with ``status="missing"`` and the install hint as ``reason``. Variations come from the content
    cache (:mod:`perturb.io.cache`) when ``cache``."""
    qids = [str(q) for q, _ in queries]
    texts = [t for _, t in queries]
    if len(set(qids)) != len(qids):
        dup = next(q for q in qids if qids.count(q) > 1)
        raise ValueError(f"query id {dup!r} appears twice: ids must be unique (they seed the generators)")
    registry = registry_of(protocol)
    gen = generator if generator is not None else registry.get(name)()
    canonical = registry.canonical(name) if name in registry else name
    fits = [i for i, t in enumerate(texts) if not too_long(gen, t)]
    try:
        gen.check()
        items = [(qids[i], texts[i]) for i in fits]
        if cache:
            from perturb.io.cache import cached_cap_set, cached_perturb_batch

            done = cached_perturb_batch(gen, items, seed)
            if hasattr(gen, "cap_set"):  # a set-level constraint over the whole set, cached per set
                done = cached_cap_set(gen, items, seed, done)
        else:
            done = gen.perturb_batch(items, seed)
            if hasattr(gen, "cap_set"):
                done = gen.cap_set([t for _, t in items], list(done))
        results = [Perturbation(t, False, "") for t in texts]  # a query over the bound keeps its text
        for i, r in zip(fits, done):
            results[i] = r
    except ResourceMissing as exc:
        return VariationSet(name=canonical, label=gen.label, config=_safe_config(gen), seed=seed, qids=qids,
                            texts=list(texts), applied=[False] * len(qids), details=[""] * len(qids),
                            status="missing", reason=str(exc))
    vs = VariationSet(name=canonical, label=gen.label, config=gen.config(), seed=seed, qids=qids,
                      texts=[r.text for r in results], applied=[bool(r.applied) for r in results],
                      details=[r.detail for r in results])
    if len(fits) < len(qids):
        vs.too_long = {"n": len(qids) - len(fits), "max_chars": gen.max_query_chars, "reason": gen.max_query_reason}
    return vs


def too_long(gen, text: str) -> bool:
    """Whether ``text`` is longer than the generator's bound (:attr:`perturb.base.Generator.max_query_chars`)."""
    limit = getattr(gen, "max_query_chars", None)
    return limit is not None and len(text) > limit


def _safe_config(gen) -> dict:
    try:
        return gen.config()
    except Exception as exc:  # noqa: BLE001 - a missing resource may break config() too
        return {"error": str(exc)}


def generate_many(names: Iterable[str], queries: Sequence[Tuple[str, str]], seeds: Sequence[int],
                  protocol: str = DEFAULT_PROTOCOL, cache: bool = True,
                  around: Optional[Callable[[str, bool], ContextManager]] = None) -> Dict[str, List[VariationSet]]:
    """name -> [the set for each of ``seeds``], as :func:`generate` gives them one by one (a name
    given twice is made once).

    One generator instance per name serves every seed. A generator with seed-independent work it
    can start in the background (:meth:`perturb.base.Generator.prefetch`: BACKTRANS's Apertium
    round trips, which run in their own processes) starts it first, for the texts not cached for
    any seed, and runs last, so the other generators run meanwhile. The sets are those each
    generator gives alone (what is prefetched does not depend on the batch or the seed).
    ``around(name, ahead, cached)``, if given, is entered around each generator's sets (timers,
    progress); ``ahead``: its background work started before the others ran; ``cached``: every
    variation it is asked for is already in the variation cache (nothing to generate)."""
    from contextlib import nullcontext

    registry = registry_of(protocol)
    names = list(dict.fromkeys(names))  # each generator made, and its round trips started, once
    gens = {n: registry.get(n)() if n in registry else None for n in names}
    ahead = [n for n in names if gens[n] is not None and type(gens[n]).prefetch is not Generator.prefetch]
    started = set()
    for n in ahead:
        gen = gens[n]
        try:
            gen.check()
        except ResourceMissing:
            continue  # generate() records it as missing
        if cache:
            from perturb.io.cache import uncached

            todo = list({t: (q, t) for s in seeds for q, t in uncached(gen, queries, s)}.values())
        else:
            todo = list(queries)
        todo = [(q, t) for q, t in todo if not too_long(gen, t)]
        if gen.prefetch(todo):
            started.add(n)
    out: Dict[str, List[VariationSet]] = {}
    for n in [n for n in names if n not in ahead] + ahead:
        with (around(n, n in started, _all_cached(gens[n], queries, seeds, cache)) if around is not None
              else nullcontext()):
            out[n] = [generate(n, queries, s, generator=gens[n], cache=cache, protocol=protocol) for s in seeds]
    return {n: out[n] for n in names}


def _all_cached(gen, queries: Sequence[Tuple[str, str]], seeds: Sequence[int], cache: bool) -> bool:
    """Whether every variation ``gen`` would make for ``queries`` and ``seeds`` is in the cache
    (False for a generator that cannot run here: :func:`generate` reports it as missing)."""
    if gen is None or not cache:
        return False
    from perturb.io.cache import uncached

    try:
        gen.check()
        fit = [(q, t) for q, t in queries if not too_long(gen, t)]
        return not any(uncached(gen, fit, s) for s in seeds)
    except ResourceMissing:
        return False


def generate_all(queries: Sequence[Tuple[str, str]], seed: int, names: Iterable[str] = None,
                 protocol: str = DEFAULT_PROTOCOL) -> List[VariationSet]:
    names = list(PAPER_ORDER if names is None else names)
    sets = generate_many(names, queries, [seed], protocol=protocol)
    return [sets[n][0] for n in names]  # a name given twice stays twice (write_sets refuses it)


def set_notes(names, protocol: str = DEFAULT_PROTOCOL) -> list:
    """What a reader of the figures of the generated sets ``names`` must know, one line each: the
    paper protocol's remaining deviations from the authors' operations (``rodr``), or each set's
    measured shortfall (its spec's ``caveat``). Printed by ``bench perturb`` and recorded in a
    variations run's ``result.json`` ``notes``."""
    if protocol == "rodr":
        from perturb.rodr.protocol import textflint_deviations

        return textflint_deviations(names)
    registry = registry_of(protocol)
    specs = [getattr(registry.get(n), "spec", None) for n in names if n in registry]
    return [f"{s.name}: {s.caveat}" for s in specs if s is not None and s.caveat]
