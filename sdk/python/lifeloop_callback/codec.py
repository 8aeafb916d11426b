"""Strict decode and encode of every wire type (spec/wire-contract.md).

- :func:`decode` judges bytes in three layers (parse ``json.*``, schema ``schema.*``, rules) and
  returns the typed dataclass, or raises :class:`WireValidationError` with the same rule ids and
  JSON pointers as the TypeScript binding.
- :func:`encode` writes a dataclass as compact UTF-8 JSON (``allow_nan=False``, no ASCII
  escaping, schema field order) with null-vs-absent as the reference writes it: ``required`` and
  ``required_nullable`` always written (``None`` as ``null``), ``optional`` omitted when ``None``,
  ``optional_emit_null`` written as ``null`` when ``None``, collections omitted when empty. The
  value is validated first; an invalid value raises :class:`WireValidationError`.

The wire-version window (spec/wire-window.md): readers (:func:`decode`, :func:`check`,
:func:`from_json_value`) judge each document by the version its root ``schema_version`` names
when that version is in the reader's window, and refuse any other with rule
``schema-version-current`` at ``/schema_version`` (``OUTSIDE_WINDOW_RULE``, message
``OUTSIDE_WINDOW_MESSAGE``). The window is, by default, ``WIRE_WINDOW`` (current, then every
accepted version, newest first); ``window=`` closes it, e.g. ``window=WIRE_VERSION`` (one version)
or ``window=(WIRE_VERSION, "lifeloop.v0.3")``, never opening it beyond ``WIRE_WINDOW`` (``ValueError``).
:func:`encode` writes a version with ``wire_version=``. The decoded dataclasses are the current
version's (an accepted version's documents have the same shapes today; a version whose shapes
differ is built field by field: members current lacks are dropped).
"""

from __future__ import annotations

import json
from enum import Enum
from typing import (
    Any,
    Dict,
    Iterable,
    List,
    Mapping,
    Optional,
    Tuple,
    Type,
    TypeVar,
    Union,
    cast,
)

from ._gen_enums import ENUM_CLASSES
from ._gen_plans import OBJECT_SCHEMAS, Shape
from ._gen_spec import LIMIT_MAX_DEPTH, LIMIT_MAX_REQUEST_BYTES, LIMIT_MAX_VALUES
from ._gen_window import WIRE_WINDOW
from ._gen_wire import WIRE_CLASSES, WireObject
from .fast_decode import fast_decode
from .issues import ValidationIssue, WireValidationError
from .json_value import JsonObject
from .strict_json import parse_strict_json
from .validation import (
    check_document,
    reader_window,
    stamp_wire_version,
    validate_json_value,
)

T = TypeVar("T")

#: A reader's window as the functions here take it: ``None`` (the default window ``WIRE_WINDOW``),
#: one version string, or an iterable of versions (see :func:`lifeloop_callback.validation.reader_window`).
Window = Union[None, str, Iterable[str]]

_NAMES_BY_CLASS: Dict[type, str] = {cls: name for name, cls in WIRE_CLASSES.items()}


def _type_name(target: Union[str, type]) -> str:
    if isinstance(target, str):
        if target not in OBJECT_SCHEMAS:
            raise TypeError(f"{target!r} is not a wire object type")
        return target
    name = _NAMES_BY_CLASS.get(target)
    if name is None:
        raise TypeError(f"{target!r} is not a wire object class")
    return name


def _judge(
    target: Union[str, type],
    data: bytes,
    max_bytes: Optional[int],
    max_depth: Optional[int],
    window: Tuple[str, ...],
) -> Tuple[str, Any, List[ValidationIssue]]:
    name = _type_name(target)
    value, issues = check_document(name, data, _max_bytes(max_bytes), _max_depth(max_depth), window)
    return name, value, issues


def _max_bytes(max_bytes: Optional[int]) -> int:
    return LIMIT_MAX_REQUEST_BYTES if max_bytes is None else max_bytes


def _max_depth(max_depth: Optional[int]) -> int:
    return LIMIT_MAX_DEPTH if max_depth is None else max_depth


def check(
    target: Union[str, type],
    data: bytes,
    *,
    max_bytes: Optional[int] = None,
    max_depth: Optional[int] = None,
    window: Window = None,
) -> Tuple[ValidationIssue, ...]:
    """Judge the bytes of one document of wire type ``target`` (a class or a type name).

    Returns every issue found (the first is the primary one), or ``()`` when the document is valid.
    ``max_bytes`` defaults to limits.max_request_bytes, ``max_depth`` to limits.max_depth,
    ``window`` to ``WIRE_WINDOW`` (the reader's wire-version window; see the module). Never raises
    for bad input (only :class:`TypeError` for an unknown ``target``, ``ValueError`` for a window
    beyond ``WIRE_WINDOW``).
    """
    name = _type_name(target)
    versions = WIRE_WINDOW if window is None else reader_window(window)
    if fast_decode(name, data, _max_bytes(max_bytes), _max_depth(max_depth), versions) is not None:
        return ()
    _, _, issues = _judge(name, data, max_bytes, max_depth, versions)
    return tuple(issues)


def decode(
    cls: Type[T],
    data: bytes,
    *,
    max_bytes: Optional[int] = None,
    max_depth: Optional[int] = None,
    window: Window = None,
) -> T:
    """Decode and strictly validate one wire document of class ``cls`` (e.g. ``DispatchEnvelope``).

    ``data`` is the raw document (UTF-8 JSON bytes). ``max_bytes`` (default
    limits.max_request_bytes) and ``max_depth`` (default limits.max_depth) bound the document;
    ``window`` (default ``WIRE_WINDOW``) is the reader's wire-version window: the document is
    judged by the version it carries when that is in the window (see the module), e.g.
    ``decode(DispatchEnvelope, data, window=("lifeloop.v0.3",))`` accepts v0.3 only.
    Raises :class:`WireValidationError` (a ``ValueError``) carrying ``issues`` on any problem, and
    ``ValueError`` for a window beyond ``WIRE_WINDOW``.
    """
    versions = WIRE_WINDOW if window is None else reader_window(window)
    fast = fast_decode(_type_name(cls), data, _max_bytes(max_bytes), _max_depth(max_depth), versions)
    if fast is not None:
        return cast(T, fast)
    name, value, issues = _judge(cls, data, max_bytes, max_depth, versions)
    if issues:
        raise WireValidationError(name, issues)
    return cast(T, _object_from_json(name, value))


def from_json_value(cls: Type[T], value: Any, *, window: Window = None) -> T:
    """Build ``cls`` from an already-parsed JSON value (``dict``), validating it first.

    Runs the schema layer and the rules of the version the value carries (plus the in-memory
    checks of :func:`lifeloop_callback.validation.validate_json_value`) with the reader window
    ``window`` (default ``WIRE_WINDOW``; see the module); raises :class:`WireValidationError`.
    Prefer :func:`decode` for bytes: only it can see duplicate keys and number lexemes.
    """
    name = _type_name(cls)
    issues = validate_json_value(name, value, LIMIT_MAX_DEPTH, reader_window(window))
    if issues:
        raise WireValidationError(name, issues)
    return cast(T, _object_from_json(name, value))


def to_json_value(value: WireObject) -> JsonObject:
    """The JSON object (``dict``) a wire dataclass is written as, with the presence rules applied.

    Does not validate; :func:`encode` does. Nested dataclasses become dicts, enums their strings.
    """
    return cast(JsonObject, _object_to_json(_type_name(type(value)), value))


def encode(value: WireObject, *, max_bytes: Optional[int] = None, wire_version: Optional[str] = None) -> bytes:
    """Validate ``value`` and write it as compact UTF-8 JSON bytes (no trailing newline).

    ``wire_version`` (default ``None``): ``None`` judges the document by the version it carries,
    within ``WIRE_WINDOW``; a version ``V`` of ``WIRE_WINDOW`` writes the document in ``V``: every
    ``schema_version`` that holds the current version (the dataclasses' default), the root's and
    the nested documents', is written as ``V``, and the document is judged with the window closed
    to ``V`` (so a nested document of another version is refused). The client runners write each
    response in its request's version this way (spec/wire-window.md, "Who speaks which version").
    Raises :class:`WireValidationError` when the value is invalid (same rule ids as decoding: also
    ``json.max-members`` and ``json.max-values``, which every reader would refuse) or, when
    ``max_bytes`` is given, when the output would be longer (``json.max-bytes``); ``ValueError``
    for a ``wire_version`` outside ``WIRE_WINDOW``.
    """
    name = _type_name(type(value))
    window = reader_window(wire_version)
    raw = _object_to_json(name, value)
    if wire_version is not None:
        raw = stamp_wire_version(name, raw, wire_version)
    issues = validate_json_value(name, raw, LIMIT_MAX_DEPTH, window)
    if issues:
        raise WireValidationError(name, issues)
    data = json.dumps(raw, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")
    if max_bytes is not None and len(data) > max_bytes:
        raise WireValidationError(
            name,
            [ValidationIssue("json.max-bytes", "", f"document is {len(data)} bytes, over the limit of {max_bytes}")],
        )
    # A document of n bytes holds at most (n + 1) / 2 values: one longer than 2 * max_values may
    # hold more than every reader accepts (json.max-values); they are counted on the bytes written,
    # as a reader counts them.
    if len(data) > 2 * LIMIT_MAX_VALUES and _more_values_than(raw, LIMIT_MAX_VALUES):
        # Over: the reader's own issue (the pointer of the first value past the limit).
        counted = parse_strict_json(data, len(data), LIMIT_MAX_DEPTH, (), max_values=LIMIT_MAX_VALUES)
        if counted.issue is not None:
            raise WireValidationError(name, [counted.issue])
    return data


def _more_values_than(value: Any, limit: int) -> bool:
    """Whether ``value`` (as ``json.dumps`` writes it: one JSON value per dict, list, tuple and
    scalar) holds more than ``limit`` JSON values, the root included; one pass, no recursion,
    stopping at the first value past the limit."""
    count = 0
    pending = [value]
    while pending:
        item = pending.pop()
        count += 1
        if count > limit:
            return True
        if isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, (list, tuple)):
            pending.extend(item)
    return False


# ---------------------------------------------------------------------------
# Conversion, driven by the generated field metadata (lifeloop_callback._gen_plans).


def _object_from_json(name: str, raw: Mapping[str, Any]) -> Any:
    schema = OBJECT_SCHEMAS[name]
    kwargs: Dict[str, Any] = {}
    for field in schema.fields:
        kwargs[field.attr] = _value_from_json(field.shape, raw.get(field.name))
    return WIRE_CLASSES[name](**kwargs)


def _value_from_json(shape: Shape, value: Any) -> Any:
    kind = shape.kind
    if value is None:
        if kind == "array":
            return ()
        if kind == "open_object":
            return {}
        return None
    if kind == "enum":
        return ENUM_CLASSES[shape.ref](value)
    if kind == "object":
        return _object_from_json(shape.ref, value)
    if kind == "array" and shape.items is not None:
        items = shape.items
        return tuple(_value_from_json(items, item) for item in value)
    return value


def _object_to_json(name: str, value: Any) -> Any:
    schema = OBJECT_SCHEMAS[name]
    if not isinstance(value, WIRE_CLASSES[name]):
        return value  # a raw value: the schema layer judges it
    out: Dict[str, Any] = {}
    for field in schema.fields:
        item = getattr(value, field.attr)
        presence = field.presence
        if presence == "collection":
            if item is None or (isinstance(item, (list, tuple, dict)) and len(item) == 0):
                continue
        elif presence == "optional":
            if item is None:
                continue
        elif item is None:
            out[field.name] = None
            continue
        out[field.name] = _value_to_json(field.shape, item)
    return out


def _value_to_json(shape: Shape, value: Any) -> Any:
    kind = shape.kind
    if isinstance(value, Enum):
        return value.value
    if kind == "object":
        return _object_to_json(shape.ref, value)
    if kind == "array" and shape.items is not None and isinstance(value, (list, tuple)):
        items = shape.items
        converted: List[Any] = [_value_to_json(items, item) for item in value]
        return converted
    if kind == "open_object" and isinstance(value, Mapping):
        return dict(value)
    return value
