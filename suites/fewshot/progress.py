"""What a few-shot run says about its own plan and pace: which K values run (and why another
does not) before any training, and one overall line over every training run of every method,
with an ETA for the whole suite's training (each trial's own bar still shows its steps)."""
from __future__ import annotations

from typing import Any, Callable, Sequence

from bench.core.progress import progress
from bench.core.progress import count


def plan_line(plan: Any, requested: Sequence[int], n_trials: int, methods: Sequence[str], full_shot: bool) -> str:
    """``K 5, 20 run (3 trials each, 2 methods, + full-shot) = 14 training runs; K=100 not run: ...``."""
    ran = ", ".join(str(k) for k in plan.ks) or "none"
    runs = training_runs(plan, methods, full_shot)
    text = (f"plan: K {ran} run ({count(n_trials, 'trial')} each, {len(methods)} method{'s' if len(methods) != 1 else ''}"
            f"{', + full-shot' if full_shot else ''}) = {runs} training run{'s' if runs != 1 else ''}")
    skipped = [f"K={k} not run: {why}" for k, why in sorted(plan.skipped_k.items()) if int(k) in set(requested)]
    return text + ("; " + "; ".join(skipped) if skipped else "")


def training_runs(plan: Any, methods: Sequence[str], full_shot: bool) -> int:
    per_method = sum(len(plan.trials[k]) for k in plan.ks) + (1 if full_shot else 0)
    return per_method * len(methods)


class Overall:
    """One progress counter over every training run; ``wrap(work)`` counts a run when it ends.
    Only for an in-process executor (a remote worker's copy would count on its own)."""

    def __init__(self, total: int, enabled: bool, executor: Any = None):
        from bench.encoding.executor import LocalExecutor

        local = executor is None or isinstance(executor, LocalExecutor)
        self.local = local
        self.bar = progress(total=total, desc="few-shot training runs (all methods)", unit="run",
                            enabled=enabled and local and total > 0, interval=0.0)

    def wrap(self, work: Callable[[Any], Any]) -> Callable[[Any], Any]:
        """``work`` counting each finished run; ``work`` itself for a remote executor, which ships the
        function to its workers (the counter holds the console stream, which cannot be pickled)."""
        if not self.local:
            return work

        def counted(unit: Any) -> Any:
            out = work(unit)
            self.bar.update(1)
            self.bar.set_postfix(last=getattr(unit, "set_name", ""))
            return out
        return counted

    def close(self) -> None:
        self.bar.close()
