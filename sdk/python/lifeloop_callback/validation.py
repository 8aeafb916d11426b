"""The schema layer (``schema.*``), the integer-lexeme check and the cross-field rules.

Driven entirely by the generated metadata of :mod:`lifeloop_callback._gen_plans` and, for the
versions of the wire-version window, :mod:`lifeloop_callback._gen_window` (spec/wire-contract.md,
"Three layers"; spec/wire-window.md, "How a document is judged"). A document is judged by the
version its root ``schema_version`` names when that version is in the reader's window
(:func:`judge_version`), else by the window's newest version, and then, if the schema layer and
the integer lexemes pass, refused with the outside-window issue. The schema layer stops at the first violation and walks a value in the same
order spec/wire-contract.md defines ("Order of the schema layer"): object type, then ``required`` in
schema order, then unknown members (in JavaScript's key order: array-index-like names first,
ascending, then insertion order), then each present property in schema order (type, then
``maxLength`` / ``maximum`` / ``minimum`` / ``enum`` / ``maxItems``, then array items in order).
Rules run in the chosen version's ``rule_plans`` order; a field is *present* when its key exists and
its value is not ``None``.

A *window* argument (``window=``) is the reader's window: versions of
:data:`~lifeloop_callback._gen_window.WIRE_WINDOW` (a tuple, newest first), the default being all of
them; :func:`reader_window` checks and orders one given by a caller.
"""

from __future__ import annotations

import math
import re
from typing import (
    Any,
    Dict,
    FrozenSet,
    Iterable,
    List,
    Optional,
    Sequence,
    Tuple,
    Union,
)

from ._gen_plans import ObjectSchema, RuleStep, Shape
from ._gen_spec import LIMIT_MAX_OBJECT_MEMBERS, WIRE_VERSION
from ._gen_window import (
    OUTSIDE_WINDOW_MESSAGE,
    OUTSIDE_WINDOW_RULE,
    WIRE_VERSION_RULES,
    WIRE_WINDOW,
    WireVersionRules,
)
from .issues import ValidationIssue
from .strict_json import (
    RULE_LONE_SURROGATE,
    RULE_MAX_DEPTH,
    RULE_MAX_MEMBERS,
    RULE_NUMBER_RANGE,
    ParseResult,
    escape_pointer_token,
    floats_at,
    parse_strict_json,
    pointer_of,
)

_ARRAY_INDEX = re.compile(r"^(?:0|[1-9][0-9]*)$")
_SURROGATE = re.compile("[\ud800-\udfff]")
_TEMPLATE_VAR = re.compile(r"\{(\w+)\}")


def child_pointer(pointer: str, token: object) -> str:
    """Append one reference token (a member name, escaped per RFC 6901, or an array index)."""
    if isinstance(token, int):
        return f"{pointer}/{token}"
    return f"{pointer}/{escape_pointer_token(str(token))}"


def pointer_matches(pointer: str, pattern: str) -> bool:
    """True when a concrete pointer matches a pattern (same length; ``*`` matches a decimal index)."""
    a = pointer.split("/")[1:] if pointer else []
    b = pattern.split("/")[1:] if pattern else []
    if len(a) != len(b):
        return False
    for token, want in zip(a, b):
        if want == "*":
            if _ARRAY_INDEX.match(token) is None:
                return False
        elif want != token:
            return False
    return True


# ---------------------------------------------------------------------------
# Schema layer


def _issue(rule: str, pointer: str, message: str) -> ValidationIssue:
    return ValidationIssue(rule, pointer, message)


def _is_integer(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, float) and math.isfinite(value) and value.is_integer()


class _Version:
    """The exact layers' view of one wire version (:class:`WireVersionRules`), with what they look up
    per object built once: member names per type and rule plans with their ``at`` patterns split."""

    __slots__ = ("rules", "names", "plans")

    def __init__(self, rules: WireVersionRules) -> None:
        self.rules = rules
        self.names: Dict[str, FrozenSet[str]] = {name: schema.names for name, schema in rules.object_schemas.items()}
        self.plans: Dict[str, Tuple[Tuple[RuleStep, Tuple[str, ...]], ...]] = {
            name: tuple((step, tuple(step.at.split("/")[1:]) if step.at else ()) for step in steps)
            for name, steps in rules.rule_plans.items()
        }


#: Every version of the default window, ready for the exact layers.
_VERSIONS: Dict[str, _Version] = {version: _Version(rules) for version, rules in WIRE_VERSION_RULES.items()}
#: The current version's (the default of the functions below that take a ``version``).
_CURRENT = WIRE_VERSION


def reader_window(window: Union[None, str, Iterable[str]]) -> Tuple[str, ...]:
    """A reader's window as the functions of this module take it: versions newest first.

    ``None`` is the default window :data:`~lifeloop_callback._gen_window.WIRE_WINDOW` (current,
    then every accepted version); one version string is the window closed to it; any other iterable
    of versions is put in ``WIRE_WINDOW`` order, duplicates dropped (spec/wire-window.md: a window
    is closed to fewer versions, never opened beyond the generated ones). Raises ``ValueError`` for
    an empty window or a version outside ``WIRE_WINDOW``, ``TypeError`` for a non-string member.
    """
    if window is None:
        return WIRE_WINDOW
    asked = (window,) if isinstance(window, str) else tuple(window)
    for version in asked:
        if not isinstance(version, str):
            raise TypeError(f"a wire-version window holds version strings, not {type(version).__name__}")
        if version not in WIRE_VERSION_RULES:
            raise ValueError(
                f"{version!r} is not a version of this SDK's wire-version window ({', '.join(WIRE_WINDOW)})"
            )
    if not asked:
        raise ValueError("an empty wire-version window accepts no document")
    return tuple(version for version in WIRE_WINDOW if version in asked)


def judge_version(value: Any, window: Tuple[str, ...]) -> Tuple[str, Optional[str]]:
    """Version selection (spec/wire-window.md, "How a document is judged", step 2).

    ``value``: the parsed document; ``window``: versions newest first (:func:`reader_window`).
    Returns ``(version, outside)``: the version that judges the document (its root
    ``schema_version`` when that is in ``window``, else the newest of ``window``) and, when the
    root ``schema_version`` is a string outside ``window``, that string (else ``None``).
    """
    found = value.get("schema_version") if isinstance(value, dict) else None
    if isinstance(found, str):
        if found in window:
            return found, None
        return window[0], found
    return window[0], None


def outside_window_issue(value: str, window: Tuple[str, ...]) -> ValidationIssue:
    """The one issue of a document whose ``schema_version`` ``value`` is outside ``window``:
    ``outside_window.rule`` at ``/schema_version`` with ``outside_window.message`` (spec/wire-version.json),
    ``{window}`` being the versions newest first, each in backticks, joined by ``", "``."""
    listed = ", ".join(f"`{version}`" for version in window)
    return _issue(
        OUTSIDE_WINDOW_RULE, "/schema_version", _format(OUTSIDE_WINDOW_MESSAGE, {"value": value, "window": listed})
    )


def _js_first_unknown(obj: Dict[str, Any], schema: ObjectSchema, names: FrozenSet[str]) -> Optional[str]:
    """The first member not in the schema (whose member names are ``names``), in JavaScript's property order."""
    if len(obj) <= len(names) and all(key in names for key in obj):
        return None
    first_index: Optional[str] = None
    first_name: Optional[str] = None
    for key in obj:
        if key in names:
            continue
        if _ARRAY_INDEX.match(key) is not None and int(key) < 4294967295:
            if first_index is None or int(key) < int(first_index):
                first_index = key
        elif first_name is None:
            first_name = key
    return first_index if first_index is not None else first_name


def _check_object(version: _Version, schema: ObjectSchema, value: Any, pointer: str) -> Optional[ValidationIssue]:
    if not isinstance(value, dict):
        return _issue("schema.type", pointer, "must be object")
    for name in schema.required:
        if name not in value:
            return _issue("schema.required", child_pointer(pointer, name), f"missing required member `{name}`")
    extra = _js_first_unknown(value, schema, version.names[schema.name])
    if extra is not None:
        return _issue(
            "schema.additional-properties",
            child_pointer(pointer, extra),
            f"unknown member `{extra}` (the object is closed)",
        )
    for field in schema.fields:
        if field.name in value:
            found = _check_value(
                version, field.shape, field.nullable, value[field.name], child_pointer(pointer, field.name)
            )
            if found is not None:
                return found
    return None


def _check_value(
    version: _Version, shape: Shape, nullable: bool, value: Any, pointer: str
) -> Optional[ValidationIssue]:
    if value is None and nullable:
        return None
    kind = shape.kind
    suffix = ",null" if nullable else ""
    if kind == "string":
        if not isinstance(value, str):
            return _issue("schema.type", pointer, f"must be string{suffix}")
        if len(value) > shape.max_length:
            return _issue("schema.max-length", pointer, f"must NOT have more than {shape.max_length} characters")
        return None
    if kind == "integer":
        if not _is_integer(value):
            return _issue("schema.type", pointer, f"must be integer{suffix}")
        if value > shape.maximum:
            return _issue("schema.maximum", pointer, f"must be <= {shape.maximum}")
        if value < shape.minimum:
            return _issue("schema.minimum", pointer, f"must be >= {shape.minimum}")
        return None
    if kind == "enum":
        if not isinstance(value, str):
            return _issue("schema.type", pointer, "must be string")
        allowed = version.rules.enum_values[shape.ref]
        if value not in allowed:
            return _issue("schema.enum", pointer, "must be one of " + ", ".join(f'"{v}"' for v in allowed))
        return None
    if kind == "object":
        return _check_object(version, version.rules.object_schemas[shape.ref], value, pointer)
    if kind == "open_object":
        if not isinstance(value, dict):
            return _issue("schema.type", pointer, "must be object")
        return None
    if kind == "array":
        if not isinstance(value, list):
            return _issue("schema.type", pointer, "must be array")
        if len(value) > shape.max_items:
            return _issue("schema.max-items", pointer, f"must NOT have more than {shape.max_items} items")
        items = shape.items
        if items is None:
            return None
        for index, item in enumerate(value):
            found = _check_value(version, items, False, item, f"{pointer}/{index}")
            if found is not None:
                return found
        return None
    return _issue("schema.type", pointer, f"unsupported shape {kind}")


def schema_issues(type_name: str, value: Any, version: str = _CURRENT) -> List[ValidationIssue]:
    """Run the schema of ``type_name`` in wire version ``version`` (default: current) against
    ``value``: at most one issue (the first found). ``KeyError`` for a version not in the window."""
    judged = _VERSIONS[version]
    found = _check_object(judged, judged.rules.object_schemas[type_name], value, "")
    return [] if found is None else [found]


def integer_lexeme_issues(type_name: str, pointers: Sequence[str], version: str = _CURRENT) -> List[ValidationIssue]:
    """``schema.type`` for the first number written as ``1.0``/``1e2``/``-0`` in an integer field
    of ``type_name`` in wire version ``version`` (default: current)."""
    patterns = _VERSIONS[version].rules.integer_paths[type_name]
    for pointer in pointers:
        if any(pointer_matches(pointer, pattern) for pattern in patterns):
            return [
                _issue("schema.type", pointer, "must be an integer written without fraction, exponent or minus zero")
            ]
    return []


# ---------------------------------------------------------------------------
# Rules


def _present(obj: Dict[str, Any], field: str) -> bool:
    return obj.get(field) is not None


def _condition_holds(step: RuleStep, obj: Dict[str, Any]) -> bool:
    when = step.when
    if when is None:
        return True
    value = obj.get(when.field)
    if not isinstance(value, str):
        return False
    member = value in when.values
    return member if when.op == "in" else not member


def _format(template: str, variables: Dict[str, str]) -> str:
    return _TEMPLATE_VAR.sub(lambda m: variables.get(m.group(1), m.group(0)), template)


def _run_step(step: RuleStep, obj: Dict[str, Any], path: Sequence[Union[str, int]], out: List[ValidationIssue]) -> None:
    """Check one object (at ``path``) against one step; pointers are built only for issues."""
    field = step.field

    def issue(at: Optional[str], **extra: str) -> None:
        field_pointer = child_pointer(pointer_of(path), field)
        variables = {
            "field": field_pointer,
            "when_value": _js_string(obj.get(step.when.field)) if step.when is not None else "",
            "expected": step.expected,
            **extra,
        }
        out.append(ValidationIssue(step.rule, field_pointer if at is None else at, _format(step.message, variables)))

    check = step.check
    if check == "equals_wire_version":
        value = obj.get(field)
        if isinstance(value, str) and value != step.expected:
            issue(None, value=value)
    elif check == "non_empty_string":
        value = obj.get(field)
        if step.each:
            if isinstance(value, list):
                for index, item in enumerate(value):
                    if item == "":
                        at = child_pointer(child_pointer(pointer_of(path), field), index)
                        issue(at, field=at)
        elif value == "":
            issue(None)
    elif check == "required_when":
        if _condition_holds(step, obj) and not _present(obj, field):
            issue(None)
    elif check == "forbidden_when":
        if _condition_holds(step, obj) and _present(obj, field):
            issue(None)
    elif check == "forbidden_value":
        value = obj.get(field)
        if isinstance(value, str) and value in step.values:
            issue(None, value=value)
    elif check == "exactly_one_present":
        here = [name for name in step.fields if _present(obj, name)]
        if not here:
            issue(pointer_of(path))
        elif len(here) > 1:
            issue(child_pointer(pointer_of(path), here[1]))
    elif check == "utf8_byte_length_equals":
        body = obj.get(field)
        declared = obj.get(step.length_field)
        if not isinstance(body, str) or isinstance(declared, bool) or not isinstance(declared, (int, float)):
            return
        actual = len(body.encode("utf-8", "surrogatepass"))
        if actual != declared:
            issue(None, actual=str(actual), expected=_js_string(declared))
    elif check == "non_empty_array":
        value = obj.get(field)
        if isinstance(value, list) and not value:
            issue(None)
    elif check == "fields_differ":
        # The first field whose string value repeats an earlier field's (absent, null and
        # non-string members take part in no comparison).
        for index in range(1, len(step.fields)):
            later = obj.get(step.fields[index])
            if not isinstance(later, str):
                continue
            if any(obj.get(earlier) == later for earlier in step.fields[:index]):
                at = child_pointer(pointer_of(path), step.fields[index])
                issue(at, field=at)
                break


def _js_string(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _visit(
    value: Any,
    tokens: Tuple[str, ...],
    index: int,
    path: List[Union[str, int]],
    step: RuleStep,
    out: List[ValidationIssue],
) -> None:
    if index == len(tokens):
        if isinstance(value, dict):
            _run_step(step, value, path, out)
        return
    token = tokens[index]
    if token == "*":
        if isinstance(value, list):
            for i, item in enumerate(value):
                path.append(i)
                _visit(item, tokens, index + 1, path, step, out)
                path.pop()
        return
    if isinstance(value, dict) and token in value:
        path.append(token)
        _visit(value[token], tokens, index + 1, path, step, out)
        path.pop()


def evaluate_rules(type_name: str, value: Any, version: str = _CURRENT) -> List[ValidationIssue]:
    """Every rule of ``type_name`` in wire version ``version`` (default: current) against ``value``
    (already accepted by that version's schema layer), in plan order."""
    out: List[ValidationIssue] = []
    path: List[Union[str, int]] = []
    for step, tokens in _VERSIONS[version].plans[type_name]:
        _visit(value, tokens, 0, path, step, out)
    return out


def _stamp(value: Any, tokens: Tuple[str, ...], index: int, field: str, version: str) -> Any:
    """``value`` with ``field`` of every object at ``tokens[index:]`` set to ``version`` where it
    holds the current version; the objects and arrays on the way are copied, never changed."""
    if index == len(tokens):
        if isinstance(value, dict) and value.get(field) == WIRE_VERSION:
            return {**value, field: version}
        return value
    token = tokens[index]
    if token == "*":
        if isinstance(value, list):
            return [_stamp(item, tokens, index + 1, field, version) for item in value]
        return value
    if isinstance(value, dict) and token in value:
        return {**value, token: _stamp(value[token], tokens, index + 1, field, version)}
    return value


def stamp_wire_version(type_name: str, value: Any, version: str) -> Any:
    """The JSON value ``value`` of a ``type_name`` document as written in wire version ``version``:
    every ``schema_version`` member the current version's rules check (its ``equals_wire_version``
    steps: the root's and the nested documents', e.g. ``/client_payloads/*``) that holds the current
    version (the dataclasses' default) holds ``version`` instead; any other value is kept, for the
    reader to judge. ``value`` itself is not changed (what is rewritten is copied)."""
    if version == WIRE_VERSION:
        return value
    for step, tokens in _VERSIONS[WIRE_VERSION].plans[type_name]:
        if step.check == "equals_wire_version":
            value = _stamp(value, tokens, 0, step.field, version)
    return value


# ---------------------------------------------------------------------------
# Whole documents and in-memory values


def validate_parsed(
    type_name: str,
    value: Any,
    non_integer_pointers: Optional[Sequence[str]] = None,
    window: Tuple[str, ...] = WIRE_WINDOW,
) -> List[ValidationIssue]:
    """Judge a value from the strict parser with the reader window ``window`` (versions newest
    first; default: the whole window): version selection, then that version's schema layer,
    integer lexemes and rules (spec/wire-window.md, "How a document is judged"). [] when valid.

    ``non_integer_pointers``: the pointers of the numbers written as ``1.0``/``1e2``/``-0`` (those
    of :class:`~lifeloop_callback.strict_json.ParseResult`). ``None`` (the default) looks for them
    only after the schema layer accepted ``value``: the ``float`` values at the chosen version's
    ``integer_paths`` of ``type_name`` (``-0`` is a ``float`` after parsing), so open maps are never
    walked. A root ``schema_version`` string outside ``window`` gives, once the schema layer and
    the integer lexemes pass, the one issue :func:`outside_window_issue`.
    """
    version, outside = judge_version(value, window)
    found = schema_issues(type_name, value, version)
    if found:
        return found
    if non_integer_pointers is None:
        non_integer_pointers = floats_at(value, _VERSIONS[version].rules.integer_paths[type_name])
    found = integer_lexeme_issues(type_name, non_integer_pointers, version)
    if found:
        return found
    if outside is not None:
        return [outside_window_issue(outside, window)]
    return evaluate_rules(type_name, value, version)


def check_document(
    type_name: str, data: bytes, max_bytes: int, max_depth: int, window: Tuple[str, ...] = WIRE_WINDOW
) -> Tuple[Any, List[ValidationIssue]]:
    """Parse and judge the bytes of one ``type_name`` document with the reader window ``window``
    (versions newest first; default: the whole window): ``(value, [])`` or ``(None, issues)``.

    The parse layer is current's (it is not versioned: a document must be parsed before its
    version can be read). Numbers are recorded nowhere while parsing (no ``non_integer_paths``):
    the integer fields are looked up once the schema layer has accepted the value, so time and
    memory stay proportional to the input whatever its open maps hold.
    """
    parsed: ParseResult = parse_strict_json(data, max_bytes, max_depth, ())
    if parsed.issue is not None:
        return None, [parsed.issue]
    found = validate_parsed(type_name, parsed.value, window=window)
    if found:
        return None, found
    return parsed.value, []


#: Ints of at least this magnitude may not convert to a finite double (the exact test is ``float``).
_BIG_INT = 1 << 1023


class _Ready:
    """The in-memory checks of :func:`validate_json_value`: one walk, the path kept as a stack of
    tokens, so a pointer string is built only for the issue found."""

    def __init__(self, max_depth: int) -> None:
        self.max_depth = max_depth
        self.path: List[Union[str, int]] = []

    def issue(self, rule: str, message: str) -> ValidationIssue:
        return _issue(rule, pointer_of(self.path), message)

    def check(self, value: Any, depth: int) -> Optional[ValidationIssue]:
        """The first problem of ``value`` (at ``self.path``, nested ``depth`` levels), or None."""
        if value is None or isinstance(value, bool):
            return None
        if isinstance(value, int):
            if -_BIG_INT < value < _BIG_INT:
                return None
            try:
                float(value)
            except OverflowError:
                return self.issue(
                    RULE_NUMBER_RANGE,
                    f"integer of {value.bit_length()} bits overflows an IEEE-754 double "
                    "(magnitude above 1.7976931348623157e308)",
                )
            return None
        if isinstance(value, str):
            if _SURROGATE.search(value) is not None:
                return self.issue(RULE_LONE_SURROGATE, "string holds a lone UTF-16 surrogate")
            return None
        if isinstance(value, float):
            if not math.isfinite(value):
                return self.issue(RULE_NUMBER_RANGE, f"{value} is not a finite number")
            return None
        if not isinstance(value, (dict, list, tuple)):
            return self.issue("schema.type", f"{type(value).__name__} is not a JSON value")
        if depth >= self.max_depth:
            return self.issue(RULE_MAX_DEPTH, f"nesting exceeds the limit of {self.max_depth}")
        path = self.path
        if isinstance(value, dict):
            members = 0
            for key, item in value.items():
                if not isinstance(key, str):
                    return self.issue("schema.type", f"member name {key!r} is not a string")
                if _SURROGATE.search(key) is not None:
                    return self.issue(RULE_LONE_SURROGATE, "member name holds a lone UTF-16 surrogate")
                path.append(key)
                # As a reader counts the text's names (json.max-members): the name first, then the count.
                members += 1
                if members > LIMIT_MAX_OBJECT_MEMBERS:
                    return self.issue(
                        RULE_MAX_MEMBERS,
                        f"member number {members} exceeds the limit of {LIMIT_MAX_OBJECT_MEMBERS} members per object",
                    )
                found = self.check(item, depth + 1)
                if found is not None:
                    return found
                path.pop()
            return None
        for index, item in enumerate(value):
            path.append(index)
            found = self.check(item, depth + 1)
            if found is not None:
                return found
            path.pop()
        return None


def validate_json_value(
    type_name: str, value: Any, max_depth: int, window: Tuple[str, ...] = WIRE_WINDOW
) -> List[ValidationIssue]:
    """Judge an in-memory JSON value (``dict``/``list``/``str``/``int``/``float``/``bool``/``None``)
    with the reader window ``window`` (versions newest first; default: the whole window).

    Stricter than :func:`validate_parsed` only where memory allows what bytes cannot: non-JSON
    Python objects (``schema.type``), non-finite floats and ints too large for a finite double
    (``json.number-range``: no reader could take the number), lone surrogates
    (``json.lone-surrogate``), nesting beyond ``max_depth`` (``json.max-depth``) and a ``dict`` of
    more than limits.max_object_members members (``json.max-members``, at the first member past
    the limit in the order they are written, as every reader of the bytes would refuse). A ``float``
    in an integer field is ``schema.type``, because it would be written as ``1.0``.
    """
    found = _Ready(max_depth).check(value, 0)
    if found is not None:
        return [found]
    return validate_parsed(type_name, value, window=window)
