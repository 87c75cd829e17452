"""Typed JSON: check plain data against ``TypedDict`` annotations and turn them into JSON Schema.

The models of :mod:`bench.results.schema` are ``TypedDict`` classes whose keys are annotated as
``Annotated[<type>, "<what the key means>"]``. This module reads those annotations (no third-party
dependency) and

- compiles a model once into a small tree of checkers (:func:`compile_type`) that validates a
  loaded JSON value quickly and reports the first problem with its key path
  (``sets[3].metrics``);
- converts a model to JSON Schema (draft 2020-12, :func:`json_schema`);
- lists every key of a model with its type and text (:func:`iter_keys`), for the documentation.

Supported annotations: ``str``, ``int``, ``float`` (JSON number: an int is accepted), ``bool``,
``None``, ``Any``, ``Optional`` / ``Union``, ``Literal``, ``List[X]``, ``Dict[str, X]`` (an object
whose keys are data: set names, measures, classes ...) and nested ``TypedDict`` classes. Keys of a
``total=False`` class (or of a ``total=False`` subclass) are optional. A key a model does not know
is accepted, unless the check is ``strict`` (the tests check the committed files strictly).
"""
from __future__ import annotations

import typing
from typing import Any, Dict, Iterator, List, Optional, Tuple, Union

_NONE = type(None)


def is_typeddict(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, dict) and hasattr(tp, "__required_keys__")


def key_hints(cls: type) -> Dict[str, Tuple[Any, str]]:
    """``{key: (type, doc)}`` of a TypedDict, in declaration order (bases first)."""
    hints = typing.get_type_hints(cls, include_extras=True)
    out: Dict[str, Tuple[Any, str]] = {}
    for key, tp in hints.items():
        doc = ""
        if typing.get_origin(tp) is typing.Annotated:
            tp, *meta = typing.get_args(tp)
            doc = " ".join(m for m in meta if isinstance(m, str))
        out[key] = (tp, doc)
    return out


def _strip(tp: Any) -> Any:
    return typing.get_args(tp)[0] if typing.get_origin(tp) is typing.Annotated else tp


# --------------------------------------------------------------------------------------------
# checking


class Problem(Exception):
    """A value does not fit its model: ``path`` is the key path (``sets[3].metrics``)."""

    def __init__(self, path: str, message: str):
        self.path, self.message = path, message
        super().__init__(f"{path or '<top level>'}: {message}")


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


class _Node:
    label = "value"

    def check(self, value: Any, path: str, strict: bool) -> None:  # pragma: no cover
        raise NotImplementedError


class _AnyNode(_Node):
    label = "any value"

    def check(self, value, path, strict):
        return None


class _Prim(_Node):
    def __init__(self, types: tuple, label: str):
        self.types, self.label = types, label

    def check(self, value, path, strict):
        if not isinstance(value, self.types) or (isinstance(value, bool) and bool not in self.types):
            raise Problem(path, f"expected {self.label}, found {_kind(value)}")


class _Literal(_Node):
    def __init__(self, values: tuple):
        self.values = values
        self.label = " or ".join(repr(v) for v in values)

    def check(self, value, path, strict):
        if value not in self.values or isinstance(value, bool) != isinstance(self.values[0], bool):
            raise Problem(path, f"expected {self.label}, found {value!r}")


class _Union(_Node):
    def __init__(self, options: List[_Node], nullable: bool):
        self.options, self.nullable = options, nullable
        self.label = " or ".join([o.label for o in options] + (["null"] if nullable else []))

    def check(self, value, path, strict):
        if value is None and self.nullable:
            return
        if len(self.options) == 1:  # Optional[X]: X's own message is the most precise one
            if value is None:
                raise Problem(path, f"expected {self.label}, found null")
            return self.options[0].check(value, path, strict)
        for option in self.options:
            try:
                return option.check(value, path, strict)
            except Problem:
                continue
        raise Problem(path, f"expected {self.label}, found {_kind(value)}")


class _List(_Node):
    def __init__(self, item: _Node):
        self.item = item
        self.label = f"a list of {item.label}"

    def check(self, value, path, strict):
        if not isinstance(value, list):
            raise Problem(path, f"expected {self.label}, found {_kind(value)}")
        item = self.item
        if isinstance(item, _AnyNode):
            return
        for i, v in enumerate(value):
            item.check(v, f"{path}[{i}]", strict)


class _Map(_Node):
    def __init__(self, item: _Node):
        self.item = item
        self.label = f"an object of {item.label}"

    def check(self, value, path, strict):
        if not isinstance(value, dict):
            raise Problem(path, f"expected {self.label}, found {_kind(value)}")
        item = self.item
        if isinstance(item, _AnyNode):
            return
        for k, v in value.items():
            item.check(v, _join(path, k), strict)


class _Object(_Node):
    def __init__(self, cls: type):
        self.cls = cls
        self.label = f"an object ({cls.__name__})"
        self.keys: Dict[str, _Node] = {}
        self.required = tuple(k for k in key_hints(cls) if k in cls.__required_keys__)

    def check(self, value, path, strict):
        if not isinstance(value, dict):
            raise Problem(path, f"expected {self.label}, found {_kind(value)}")
        for k in self.required:
            if k not in value:
                raise Problem(_join(path, k), "missing key")
        keys = self.keys
        for k, v in value.items():
            node = keys.get(k)
            if node is not None:
                node.check(v, _join(path, k), strict)
            elif strict:
                raise Problem(_join(path, k), f"key not in the model {self.cls.__name__}")


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {value[:40]!r}"
    return {list: "a list", dict: "an object"}.get(type(value), type(value).__name__)


_PRIMS = {str: ((str,), "a string"), int: ((int,), "an integer"), float: ((int, float), "a number"),
          bool: ((bool,), "a boolean"), _NONE: ((_NONE,), "null")}


def compile_type(tp: Any, _memo: Optional[Dict[type, _Object]] = None) -> _Node:
    """A checker for ``tp``: ``compile_type(Model).check(value, "", strict)`` raises
    :class:`Problem` at the first value that does not fit."""
    memo = {} if _memo is None else _memo
    tp = _strip(tp)
    if tp is Any:
        return _AnyNode()
    if tp in _PRIMS:
        return _Prim(*_PRIMS[tp])
    if is_typeddict(tp):
        if tp not in memo:
            node = memo[tp] = _Object(tp)
            node.keys = {k: compile_type(t, memo) for k, (t, _) in key_hints(tp).items()}
        return memo[tp]
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Literal:
        return _Literal(args)
    if origin is Union:
        options = [compile_type(a, memo) for a in args if a is not _NONE]
        return _Union(options, _NONE in args)
    if origin in (list, List):
        return _List(compile_type(args[0], memo) if args else _AnyNode())
    if origin in (dict, Dict):
        return _Map(compile_type(args[1], memo) if args else _AnyNode())
    raise TypeError(f"unsupported annotation {tp!r}")


# --------------------------------------------------------------------------------------------
# JSON Schema and key listing


def _schema(tp: Any, defs: Dict[str, dict]) -> dict:
    tp = _strip(tp)
    if tp is Any:
        return {}
    if tp in _PRIMS:
        return {"type": {str: "string", int: "integer", float: "number", bool: "boolean", _NONE: "null"}[tp]}
    if is_typeddict(tp):
        name = tp.__name__
        if name not in defs:
            defs[name] = {}  # placeholder: recursion stops here
            props = {}
            for k, (t, doc) in key_hints(tp).items():
                props[k] = {**({"description": doc} if doc else {}), **_schema(t, defs)}
            body: dict = {"type": "object"}
            if tp.__doc__:
                body["description"] = " ".join(tp.__doc__.split())
            body["properties"] = props
            required = [k for k in props if k in tp.__required_keys__]
            if required:
                body["required"] = required
            defs[name] = body
        return {"$ref": f"#/$defs/{name}"}
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Literal:
        return {"enum": list(args)}
    if origin is Union:
        options = [_schema(a, defs) for a in args]
        return {"anyOf": options}
    if origin in (list, List):
        return {"type": "array", **({"items": _schema(args[0], defs)} if args and args[0] is not Any else {})}
    if origin in (dict, Dict):
        inner = _schema(args[1], defs) if args else {}
        return {"type": "object", **({"additionalProperties": inner} if inner else {})}
    raise TypeError(f"unsupported annotation {tp!r}")


def json_schema(root: Any, *, title: str = "", description: str = "", schema_id: str = "") -> dict:
    """JSON Schema (draft 2020-12) of ``root`` (a model or a ``Union`` of models)."""
    defs: Dict[str, dict] = {}
    body = _schema(root, defs)
    head = {"$schema": "https://json-schema.org/draft/2020-12/schema"}
    if schema_id:
        head["$id"] = schema_id
    if title:
        head["title"] = title
    if description:
        head["description"] = description
    return {**head, **body, "$defs": dict(sorted(defs.items()))}


def type_label(tp: Any) -> str:
    """A short readable name of an annotation (``list[str]``, ``SetEntry | null``)."""
    tp = _strip(tp)
    if tp is Any:
        return "any"
    if tp in _PRIMS:
        return {str: "str", int: "int", float: "float", bool: "bool", _NONE: "null"}[tp]
    if is_typeddict(tp):
        return tp.__name__
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Literal:
        return " | ".join(repr(a) for a in args)
    if origin is Union:
        return " | ".join(type_label(a) for a in args)
    if origin in (list, List):
        return f"list[{type_label(args[0])}]" if args else "list"
    if origin in (dict, Dict):
        return f"{{name: {type_label(args[1])}}}" if args else "object"
    return repr(tp)


def models_in(tp: Any, seen: Optional[List[type]] = None) -> List[type]:
    """Every TypedDict reachable from ``tp``, in first-reached order."""
    seen = [] if seen is None else seen
    tp = _strip(tp)
    if is_typeddict(tp):
        if tp in seen:
            return seen
        seen.append(tp)
        for t, _ in key_hints(tp).values():
            models_in(t, seen)
        return seen
    for a in typing.get_args(tp):
        if a is not None and not isinstance(a, (str, int, float, bool)):
            models_in(a, seen)
    return seen


def iter_keys(cls: type) -> Iterator[Tuple[str, str, bool, str]]:
    """``(key, type label, required, doc)`` of every key a model declares."""
    for k, (t, doc) in key_hints(cls).items():
        yield k, type_label(t), k in cls.__required_keys__, doc
