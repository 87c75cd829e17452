"""A generator declared once: a transformation, a list of constraints and a seeded picker.

Every generator of :mod:`perturb.generators` and :mod:`perturb.rodr` carries a :class:`Spec`:

* the **transformation** proposes candidate edits (:class:`Edit`) and knows nothing of validity;
* each **constraint** (:class:`Constraint`) judges one candidate: it passes it, vetoes it with a
  reason, or scores it on its evidence (:class:`Threshold`: a scorer passes a candidate whose
  score reaches its threshold). A constraint declares its parameters (:class:`Param`: name, type,
  default, description, the key its value is recorded under), and a threshold names the labelled
  set it was chosen on and the rule that chose it, so the value is written once, here, and
  :mod:`benchmarks.tuning` re-derives it from that set;
* the **picker** draws one passing candidate with the query's random generator.

The spec is the one place the generator's recorded configuration (``config()``), its variation
cache key (:mod:`perturb.io.cache`: spec name, version and the resource hashes, not the source
files) and the docs' table of operating points (:func:`operating_points`) come from. ``version``
is the one version counter of a generator: bump it whenever the generator's output for some query
changes (``tests/perturb/test_spec.py`` holds the digest of each spec's output on a probe set and
fails, naming the generator, when the output changed and the version did not).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

# --------------------------------------------------------------------------- parameters
_TYPES = (bool, int, float, str)


@dataclass(frozen=True)
class Param:
    """One declared parameter of a constraint (or of a transformation)."""

    name: str
    type: type
    default: Any
    description: str
    key: str = ""  # the name its value is recorded under in config(); "" = ``name``

    def __post_init__(self):
        if self.type not in _TYPES:
            raise TypeError(f"parameter {self.name!r}: type must be one of bool, int, float, str")

    @property
    def recorded_as(self) -> str:
        return self.key or self.name

    def coerce(self, value: Any, owner: str = "") -> Any:
        """``value`` as this parameter's type; ValueError naming the owner and the parameter."""
        where = f"{owner}: " if owner else ""
        if self.type is bool:
            if isinstance(value, bool):
                return value
            raise ValueError(f"{where}{self.name} must be true or false, got {value!r}")
        if self.type is str:
            if isinstance(value, str):
                return value
            raise ValueError(f"{where}{self.name} must be a string, got {value!r}")
        if isinstance(value, bool):
            raise ValueError(f"{where}{self.name} must be a number, got {value!r}")
        try:
            return self.type(value)
        except (TypeError, ValueError):
            raise ValueError(f"{where}{self.name} must be {self.type.__name__}, got {value!r}") from None


# --------------------------------------------------------------------------- candidates
@dataclass(frozen=True)
class Edit:
    """One candidate edit of a query: replacements of character spans of the original text.

    ``spans`` are ``(start, end, replacement)`` triples, non-overlapping; two spans exchanging
    their texts is a swap. ``kind`` names the sort of edit (what a kind table scores), ``score``
    the verifier's score where there is one, ``detail`` the text recorded in the set's detail
    column when this edit is picked."""

    spans: Tuple[Tuple[int, int, str], ...]
    kind: str = ""
    score: Optional[float] = None
    detail: str = ""

    def apply(self, text: str) -> str:
        out, at = [], 0
        for start, end, new in sorted(self.spans):
            if start < at:
                raise ValueError(f"overlapping spans in {self.spans!r}")
            out.append(text[at:start])
            out.append(new)
            at = end
        out.append(text[at:])
        return "".join(out)

    @classmethod
    def replace(cls, start: int, end: int, new: str, **kw) -> "Edit":
        return cls(((start, end, new),), **kw)

    @classmethod
    def exchange(cls, text: str, sa: int, ea: int, sb: int, eb: int, **kw) -> "Edit":
        """The spans ``[sa, ea)`` and ``[sb, eb)`` of ``text`` exchange places."""
        return cls(((sa, ea, text[sb:eb]), (sb, eb, text[sa:ea])), **kw)


@dataclass(frozen=True)
class Verdict:
    """A constraint's answer on one candidate: passed or not, why, and the score it rests on."""

    passed: bool
    reason: str = ""
    score: Optional[float] = None


# --------------------------------------------------------------------------- constraints
class Constraint:
    """Judges one candidate. Subclasses set ``name``, ``description`` and ``params`` and
    implement :meth:`check`; parameter values are given by keyword and checked against
    ``params`` (an unknown name or a wrong type is a ValueError naming the constraint)."""

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    params: ClassVar[Tuple[Param, ...]] = ()
    #: what it judges: "edit" (a proposed edit, the default), "target" (the word an edit would
    #: change, before any edit is drawn), "option" (one replacement a transformation may draw from,
    #: before the draw) or "result" (the picked edits as one); :mod:`perturb.engine` runs each
    #: stage's constraints
    judges: ClassVar[str] = "edit"

    def __init__(self, **values: Any):
        known = {p.name: p for p in self.params}
        unknown = sorted(set(values) - set(known))
        if unknown:
            raise ValueError(f"constraint {self.name!r} has no parameter {unknown[0]!r}; "
                             f"its parameters: {', '.join(known) or 'none'}")
        self.values: Dict[str, Any] = {p.name: p.coerce(values.get(p.name, p.default), self.name)
                                       for p in self.params}

    def __getattr__(self, item: str) -> Any:
        values = self.__dict__.get("values")
        if values is not None and item in values:
            return values[item]
        raise AttributeError(item)

    def with_values(self, **values: Any) -> "Constraint":
        """A copy with some parameters changed (``None`` values keep the current one)."""
        new = dict(self.values)
        new.update({k: v for k, v in values.items() if v is not None})
        return type(self)(**new)

    def check(self, edit: Edit, context: Any = None) -> Verdict:  # pragma: no cover - abstract
        raise NotImplementedError

    def config(self) -> Dict[str, Any]:
        """The parameter values, under the keys they are recorded as."""
        return {p.recorded_as: self.values[p.name] for p in self.params}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.values.items())
        return f"{type(self).__name__}({args})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.values == self.values  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(sorted(self.values.items()))))


class Veto(Constraint):
    """A hard rule: ``reason(edit, context)`` names why the candidate is refused, or None."""

    def reason(self, edit: Edit, context: Any = None) -> Optional[str]:  # pragma: no cover - abstract
        raise NotImplementedError

    def check(self, edit: Edit, context: Any = None) -> Verdict:
        why = self.reason(edit, context)
        return Verdict(why is None, why or "")


class Floor(Veto):
    """Refuses a candidate whose measured value (``measure``) is missing or under ``floor``."""

    measure: ClassVar[str] = ""
    params: ClassVar[Tuple[Param, ...]] = (Param("floor", float, 0.0, "the lowest value that passes"),)

    def refuses(self, value: Optional[float]) -> bool:
        return value is None or value < self.values["floor"]

    def reason(self, edit: Edit, context: Any = None) -> Optional[str]:
        value = context.get(self.name) if isinstance(context, Mapping) else None
        return f"{self.measure} {value} < {self.values['floor']:g}" if self.refuses(value) else None


def veto(name: str, *, description: str, why: Callable[[Edit, Any], Optional[str]]) -> Veto:
    """A :class:`Veto` without parameters declared in one call: ``why(edit, context)`` names why a
    candidate is refused, or gives None."""
    cls = type(f"Veto[{name}]", (Veto,), {
        "name": name, "description": description,
        "reason": lambda self, edit, context=None: why(edit, context)})
    return cls()


def floor_veto(name: str, floor: float, *, measure: str, description: str, key: str = "floor") -> Floor:
    """A :class:`Floor` declared in one call (``key``: the name recorded in ``config()``)."""
    cls = type(f"Floor[{name}]", (Floor,), {
        "name": name, "description": description, "measure": measure,
        "params": (Param("floor", float, float(floor), f"the lowest {measure} that passes", key=key),)})
    return cls()


@dataclass(frozen=True)
class Tuning:
    """Where a threshold came from: the labelled set (a path below the repository root) and the
    rule of :mod:`benchmarks.tuning` that chose it on that set, with its arguments."""

    labelled: str
    rule: str
    args: Mapping[str, Any] = field(default_factory=dict)
    note: str = ""

    def describe(self) -> str:
        args = ", ".join(f"{k}={v}" for k, v in sorted(self.args.items()))
        return f"{self.rule}({args}) on {self.labelled}" + (f"; {self.note}" if self.note else "")


class Threshold(Constraint):
    """A scorer with a threshold: a candidate passes when its score is at least ``threshold``.

    ``score(edit, context)`` gives the score (default: the score the transformation's verifier
    attached to the edit). ``tuning`` says on which labelled set and by which rule the threshold
    was chosen; ``evidence`` what the score is made of (a kind table, a weighted sum of evidence,
    a logistic model)."""

    evidence: ClassVar[str] = ""
    tuning: ClassVar[Optional[Tuning]] = None
    params: ClassVar[Tuple[Param, ...]] = (
        Param("threshold", float, 0.5, "a candidate passes when its score is at least this"),)

    def score(self, edit: Edit, context: Any = None) -> float:
        if edit.score is None:
            raise ValueError(f"{self.name}: the candidate carries no score")
        return float(edit.score)

    def passes(self, score: float) -> bool:
        return score >= self.values["threshold"]

    def check(self, edit: Edit, context: Any = None) -> Verdict:
        s = self.score(edit, context)
        ok = self.passes(s)
        return Verdict(ok, f"score {s:g} {'>=' if ok else '<'} {self.values['threshold']:g}", s)


def threshold_constraint(name: str, threshold: float, *, description: str, evidence: str, tuning: Tuning,
                         key: str = "threshold") -> Threshold:
    """A :class:`Threshold` declared in one call: its class (named after ``name``) carries the
    description, evidence and tuning; the instance the threshold. ``key`` is the name the
    threshold is recorded under in the generator's ``config()``."""
    cls = type(f"Threshold[{name}]", (Threshold,), {
        "name": name, "description": description, "evidence": evidence, "tuning": tuning,
        "params": (Param("threshold", float, float(threshold),
                         "a candidate passes when its score is at least this", key=key),)})
    return cls()


# --------------------------------------------------------------------------- the spec
@dataclass(frozen=True)
class Spec:
    """One generator, declared: what it proposes, what judges it, how one is picked.

    ``facts`` are the fixed entries of the generator's recorded configuration (what the
    transformation does, which resources it reads); ``config(...)`` adds each constraint's
    parameter values and the run-time facts the generator passes (model names, resource hashes).
    """

    name: str
    version: int
    protocol: str
    transformation: str
    constraints: Tuple[Constraint, ...] = ()
    picker: str = "uniform among passing candidates (query rng)"
    facts: Mapping[str, Any] = field(default_factory=dict)
    #: the transformation's and picker's parameters (their defaults: the one place the values live)
    params: Tuple[Param, ...] = ()
    #: the picker (:data:`perturb.engine.Picker`) :meth:`perturb.engine.SpecGenerator.engine` runs; None:
    #: :func:`perturb.engine.uniform`. ``picker`` describes it.
    choose: Optional[Callable[..., Any]] = None
    #: what a reader of the set's figures must know that its operating point does not say (a measured
    #: validity below 0.90 on human labels of queries, with its source); not part of the configuration,
    #: printed as a note by every run with the set (:func:`perturb.io.generation.set_notes`)
    caveat: str = ""

    def __post_init__(self):
        names = [c.name for c in self.constraints]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.name}: two constraints share a name: {names}")
        if self.protocol not in ("validated", "rodr"):
            raise ValueError(f"{self.name}: protocol must be validated or rodr")

    def constraint(self, name: str) -> Constraint:
        for c in self.constraints:
            if c.name == name:
                return c
        raise KeyError(f"{self.name} has no constraint {name!r}; its constraints: "
                       f"{', '.join(c.name for c in self.constraints) or 'none'}")

    def param_values(self, **overrides: Any) -> Dict[str, Any]:
        """Each declared parameter's value: the default, or ``overrides[name]`` when given (not None),
        coerced to its type; an unknown name is a ValueError naming the spec's parameters."""
        known = {p.name: p for p in self.params}
        unknown = sorted(k for k, v in overrides.items() if k not in known and v is not None)
        if unknown:
            raise ValueError(f"{self.name} has no parameter {unknown[0]!r}; its parameters: "
                             f"{', '.join(known) or 'none'}")
        return {n: p.coerce(p.default if overrides.get(n) is None else overrides[n], self.name)
                for n, p in known.items()}

    def constraints_with(self, **values: Mapping[str, Any]) -> Tuple[Constraint, ...]:
        """The constraints with some parameters changed: ``values[name]`` the parameter values of the
        constraint called ``name`` (:meth:`Constraint.with_values`; None values keep the spec's)."""
        unknown = sorted(set(values) - {c.name for c in self.constraints})
        if unknown:
            self.constraint(unknown[0])
        return tuple(c.with_values(**values[c.name]) if c.name in values else c for c in self.constraints)

    def thresholds(self) -> Iterator[Threshold]:
        return (c for c in self.constraints if isinstance(c, Threshold))

    def config(self, constraints: Optional[Sequence[Constraint]] = None, **runtime: Any) -> Dict[str, Any]:
        """The recorded configuration: the facts, each constraint's values (``constraints``: the
        instance's, when it was made with other values than the spec's), then ``runtime``."""
        cfg: Dict[str, Any] = dict(self.facts)
        for c in (self.constraints if constraints is None else constraints):
            cfg.update(c.config())
        cfg.update(runtime)
        return cfg

    def identity(self) -> Dict[str, Any]:
        """What keys the variation cache besides the configuration and resource versions."""
        return {"spec": self.name, "protocol": self.protocol, "version": self.version}


def all_specs() -> List[Spec]:
    """Every built-in generator's spec, validated protocol first, each in the paper's order."""
    from perturb import PAPER_ORDER, PROTOCOLS

    out = []
    for protocol in ("validated", "rodr"):
        registry = PROTOCOLS[protocol]
        out.extend(registry.get(name).spec for name in PAPER_ORDER)
    return out


def operating_points(specs: Optional[Sequence[Spec]] = None) -> List[Dict[str, Any]]:
    """One row per threshold of every spec: the table docs/methods.md shows (generated)."""
    rows = []
    for spec in all_specs() if specs is None else specs:
        for c in spec.thresholds():
            rows.append({"set": spec.name, "protocol": spec.protocol, "version": spec.version,
                         "constraint": c.name, "threshold": c.values["threshold"], "evidence": c.evidence,
                         "chosen": c.tuning.describe() if c.tuning else "not tuned"})
    return rows


def operating_points_markdown(specs: Optional[Sequence[Spec]] = None) -> str:
    lines = ["| set | protocol | spec version | constraint | threshold | score from | chosen by |",
             "|---|---|---:|---|---:|---|---|"]
    for r in operating_points(specs):
        lines.append(f"| {r['set']} | {r['protocol']} | {r['version']} | {r['constraint']} | {r['threshold']:g} "
                     f"| {r['evidence']} | {r['chosen']} |")
    return "\n".join(lines) + "\n"


def constraint_type(c: Constraint) -> str:
    """"threshold", "floor", "veto" (or "constraint" for another subclass)."""
    for cls, name in ((Threshold, "threshold"), (Floor, "floor"), (Veto, "veto")):
        if isinstance(c, cls):
            return name
    return "constraint"


def constraint_rows(specs: Optional[Sequence[Spec]] = None) -> List[Dict[str, Any]]:
    """One row per constraint of every spec, in the spec's order: the table docs/architecture.md
    shows (generated; ``python -m benchmarks.tuning constraints``)."""
    rows = []
    for spec in all_specs() if specs is None else specs:
        for c in spec.constraints:
            params = ", ".join(f"{p.recorded_as}={c.values[p.name]!r}" for p in c.params)
            rows.append({"set": spec.name, "protocol": spec.protocol, "constraint": c.name,
                         "type": constraint_type(c), "params": params, "description": c.description})
    return rows


def constraints_markdown(specs: Optional[Sequence[Spec]] = None) -> str:
    lines = ["| set | protocol | constraint | type | parameters | what it asks |", "|---|---|---|---|---|---|"]
    for r in constraint_rows(specs):
        lines.append(f"| {r['set']} | {r['protocol']} | {r['constraint']} | {r['type']} | {r['params'] or '-'} "
                     f"| {r['description']} |")
    return "\n".join(lines) + "\n"
