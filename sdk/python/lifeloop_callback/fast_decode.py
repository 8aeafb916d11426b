"""Fast accept path of :func:`lifeloop_callback.decode` and :func:`lifeloop_callback.check`.

Most documents on the wire are valid, and for a valid document the three layers (parse, schema,
rules; spec/wire-contract.md, "Three layers") have nothing to report. This module proves validity
cheaply and builds the dataclass in the same pass; whenever it cannot prove it, the caller runs the
exact, interpreted layers (:mod:`lifeloop_callback.strict_json`, :mod:`lifeloop_callback.validation`),
which find the first issue with its rule id and pointer. So this path never reports anything: it
only accepts (returning the same object as the exact path) or declines (returning ``None``). It must
never accept a document the exact path rejects; sdk/python/tests/test_fast_decode.py checks that on
every shared vector and on mutants of them, and the differential suite compares ``check`` (which
runs this path first) with the TypeScript validator.

How each strict rule is proved without a Python hook per value:

- parse layer: the bytes are decoded once (strict UTF-8) and handed to the plain ``json.loads``
  scanner (C, no hooks). What it allows and the wire does not is then ruled out:
  ``json.duplicate-key`` by counting ``:``: outside strings each member has exactly one, so when
  no ``\\u003A`` escape hides a colon inside a string, the text's colons equal the members plus
  the colons inside member names and strings; the parsed objects hold one entry per *distinct*
  name, so the count adds up only when there is no duplicate (any other count declines);
  ``json.lone-surrogate`` by declining any text with a ``\\uD800``-``\\uDFFF`` escape (raw
  surrogates are not valid UTF-8); ``json.number-range`` and ``NaN``/``Infinity`` by declining
  non-finite floats and integers of 1024 bits or more; a ``-0`` number (``json.loads`` makes it
  ``0``, the exact path ``-0.0`` or, at an integer path, an issue) by declining any text that may
  hold one; ``json.max-depth`` by levels: the closed structure's depth is known per type, open
  maps are walked; ``json.max-values`` (limits.max_values, the exact path's default) by an upper
  bound from the text's ``,``, ``[`` and ``:``; ``json.max-members`` (limits.max_object_members)
  by the open-map walk, which declines a parsed object of more entries (a closed object's members
  are its schema's; a duplicate, the only way the text has more names than entries, declines by
  the colon count); ``json.max-bytes`` and ``json.bom`` directly;
- schema layer and rules: one straight-line Python function per wire type and wire version,
  generated when a type is first decoded in that version from the version's ``object_schemas`` and
  ``rule_plans`` (:mod:`lifeloop_callback._gen_window`; current's are those of
  :mod:`lifeloop_callback._gen_plans`), with the type, bound, enum and closed-object checks inlined
  and every rule step of the type's plan evaluated at the objects its ``at`` pattern names. Integer
  fields accept only ``int`` (a number written ``1.0`` or ``1e2`` parses as ``float`` and declines).
- version selection (spec/wire-window.md): the parsed root's ``schema_version`` picks the checker;
  a document whose root ``schema_version`` is not a version of the reader's window declines (the
  exact path reports it). A version's checker proves its own ``schema-version-current`` steps, so
  nested documents of another version decline too.

Object building skips the frozen dataclasses' ``__init__`` (one ``object.__setattr__`` per field):
each parsed ``dict`` of a closed object becomes its instance's ``__dict__``, completed with the
absent members and the converted values (enum members, instances, tuples) exactly as
:func:`lifeloop_callback.codec.decode` would pass them to the constructor. The dataclasses are the
current version's, so only a version whose object schemas are current's (shared by
:mod:`lifeloop_callback._gen_window`) has a checker; any other always takes the exact path.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Callable, Dict, List, Optional, Tuple

from ._gen_enums import ENUM_CLASSES
from ._gen_plans import OBJECT_SCHEMAS, Field, RuleStep, Shape
from ._gen_spec import LIMIT_MAX_OBJECT_MEMBERS, LIMIT_MAX_VALUES
from ._gen_window import WIRE_VERSION_RULES, WIRE_WINDOW, WireVersionRules
from ._gen_wire import WIRE_CLASSES

__all__ = ["fast_decode"]

#: A decoder for whole documents: the plain C scanner; ``-0`` gives ``0``, ``1e400`` gives ``inf``
#: and ``NaN`` gives ``nan`` here, and the generated checks decline those.
_DECODER = json.JSONDecoder()
#: Escapes that decode to what the text does not show: a surrogate (maybe lone) or a ``:``.
_TELLING_ESCAPE = re.compile(rb"\\u(?:[dD][89a-fA-F]|003[aA])")
#: A ``-0`` number where a value may start (after ``:``, ``[``, ``,`` or whitespace; inside a string
#: too, which only declines): ``json.loads`` makes it ``0`` where the exact path keeps ``-0.0``
#: (open maps) or reports it (integer fields). The literal comes first so the search is fast.
_NEG_ZERO = re.compile(rb"-0(?![0-9.eE])(?<=[:\[, \t\n\r]-0)")
#: Strings up to this bound are checked together (see ``_Gen.object``); longer ones (a payload
#: body) alone, so no large string is copied.
_JOIN_MAX_LENGTH = 65536
#: Integers of this magnitude or more may not fit a finite double; the exact path judges them.
_BIG_INT = 1 << 1023
#: Integers below this magnitude need no check at all (the generated code's shortcut).
_SMALL_INT = 1 << 53
_BOM = b"\xef\xbb\xbf"

#: A generated checker: ``(value, max_depth) -> (instance, colons accounted for) or None``.
_Checker = Callable[[Any, int], Optional[Tuple[Any, int]]]


class _Decline(Exception):
    """Raised inside an open-map walk: the exact path must judge the document."""


def _open_colons(value: Any, level: int, max_depth: int) -> int:
    """The ``:`` that the JSON value ``value`` accounts for (one per member, plus those inside its
    member names and strings); ``value`` sits in an open map, inside a container at nesting
    ``level``. Raises :class:`_Decline` for anything the exact path must judge."""
    t = type(value)
    if t is str:
        colons: int = value.count(":")
        return colons
    if t is bool or value is None:
        return 0
    if t is int:
        if -_BIG_INT < value < _BIG_INT:
            return 0
        raise _Decline()
    if t is float:
        if math.isfinite(value):
            return 0
        raise _Decline()
    if level >= max_depth:
        raise _Decline()
    count = 0
    if t is dict:
        count = len(value)
        if count > LIMIT_MAX_OBJECT_MEMBERS:
            raise _Decline()
        for key, item in value.items():
            count += key.count(":") + _open_colons(item, level + 1, max_depth)
        return count
    if t is list:
        for item in value:
            count += _open_colons(item, level + 1, max_depth)
        return count
    raise _Decline()


def _open_value(value: Any, level: int, max_depth: int) -> int:
    """:func:`_open_colons` of a value in an open map at nesting ``level``, or -1 to decline."""
    try:
        return _open_colons(value, level, max_depth)
    except (_Decline, RecursionError):
        return -1


class _Gen:
    """Writes the straight-line checker of one wire type (Python source, compiled once).

    The checker takes the parsed value and ``max_depth``; it returns ``None`` (decline) or the
    built instance and ``c``: the number of ``:`` the value accounts for (one per member plus those
    inside strings; closed objects' member names hold none). Each member's raw value stays in a
    local ``r<N>`` for the rule checks; its converted value (enum member, instance, tuple) in
    ``f<N>``.
    """

    def __init__(self, root: str, rules: WireVersionRules) -> None:
        self.root = root
        self.rules = rules
        self.lines: List[str] = []
        self.consts: Dict[str, Any] = {
            "_onew": object.__new__,
            "_oset": object.__setattr__,
            "_open_value": _open_value,
        }
        self.counter = 0
        self.placed: List[int] = []
        self.steps: Tuple[RuleStep, ...] = rules.rule_plans[root]
        #: The deepest level a closed object or array of this type reaches (the root is level 1).
        self.depth = 1

    def var(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def const(self, value: Any, prefix: str) -> str:
        name = self.var(f"_{prefix}")
        self.consts[name] = value
        return name

    def emit(self, indent: int, line: str) -> None:
        self.lines.append("    " * indent + line)

    def decline_if(self, indent: int, condition: str) -> None:
        self.emit(indent, f"if {condition}:")
        self.emit(indent + 1, "return None")

    def source(self) -> str:
        self.emit(1, "c = 0")
        result = self.object(self.root, "v", 1, "", 1)
        self.emit(1, f"return {result}, c")
        missing = [step.at for i, step in enumerate(self.steps) if i not in self.placed]
        if missing:
            raise ValueError(f"rule steps of {self.root} at places the generator does not reach: {missing}")
        return "def check(v, max_depth):\n" + "\n".join(self.lines) + "\n"

    # -- objects, fields, values ---------------------------------------------------------------

    def object(self, name: str, v: str, level: int, at: str, ind: int) -> str:
        """Emit the checks of object type ``name`` held in local ``v`` (at nesting ``level``, rule
        pattern ``at``); returns the local holding the built instance."""
        schema = self.rules.object_schemas[name]
        if any(":" in field.name for field in schema.fields):
            raise ValueError(f"{name} has a member name with ':'")
        self.depth = max(self.depth, level)
        names = self.const(frozenset(f.name for f in schema.fields), "NAMES")
        # Only a dict has .keys() among JSON values: anything else raises, which declines.
        self.decline_if(ind, f"not {v}.keys() <= {names}")
        self.emit(ind, f"c += len({v})")
        raws: Dict[str, str] = {f.name: self.var("r") for f in schema.fields}
        converted: List[Tuple[Field, str]] = []
        # Every member's raw value (None when absent) in one C-level pass.
        keys = self.const(tuple(f.name for f in schema.fields), "KEYS")
        self.emit(ind, f"{', '.join(raws.values())}, = map({v}.get, {keys})")
        # The strings of bounded length are checked together: one join (a TypeError, so a decline,
        # when one is no string, or a required one is missing or null) for their types and
        # colons, and their lengths one by one only when the joined length could exceed the
        # smallest bound. A payload body (unbounded in practice) is checked alone: never copied.
        joined = [
            f
            for f in schema.fields
            if f.shape.kind == "string" and f.presence != "collection" and f.shape.max_length <= _JOIN_MAX_LENGTH
        ]
        if len(joined) < 2:
            joined = []
        parts: List[str] = []
        for field in schema.fields:
            raw = raws[field.name]
            if field not in joined:
                converted.append((field, self.field(field, raw, v, level, at, ind)))
                continue
            if field.nullable and field.presence in ("required", "required_nullable"):
                self.decline_if(ind, f"{raw} is None and {field.name!r} not in {v}")
            converted.append((field, raw))
            parts.append(f"{raw} if {raw} is not None else ''" if field.nullable else raw)
        if joined:
            j = self.var("j")
            self.emit(ind, f"{j} = ''.join(({', '.join(parts)}))")
            self.emit(ind, f"c += {j}.count(':')")
            self.emit(ind, f"if len({j}) > {min(f.shape.max_length for f in joined)}:")
            longer = [
                f"len({raws[f.name]}) > {f.shape.max_length}"
                if not f.nullable
                else f"({raws[f.name]} is not None and len({raws[f.name]}) > {f.shape.max_length})"
                for f in joined
            ]
            self.decline_if(ind + 1, " or ".join(longer))
        # Non-empty checks of one object together: one tuple scan.
        empty = [
            i
            for i, step in enumerate(self.steps)
            if step.at == at and step.check == "non_empty_string" and not step.each and step.field in raws
        ]
        if empty:
            self.decline_if(ind, f"'' in ({''.join(raws[self.steps[i].field] + ', ' for i in empty)})")
            self.placed.extend(empty)
        for index, step in enumerate(self.steps):
            if step.at == at and index not in self.placed:
                self.rule(step, {f.name: f for f in schema.fields}, raws, ind)
                self.placed.append(index)
        # The parsed dict becomes the instance's __dict__ (the type's attribute names are its
        # member names): only absent members and converted values are stored into it.
        obj = self.var("o")
        cls = self.const(WIRE_CLASSES[name], "CLS")
        for field, local in converted:
            if field.attr != field.name:
                raise ValueError(f"{name}.{field.name} has the attribute name {field.attr}")
            if local != raws[field.name] or field.presence not in ("required", "required_nullable"):
                self.emit(ind, f"{v}[{field.name!r}] = {local}")
        self.emit(ind, f"{obj} = _onew({cls})")
        self.emit(ind, f"_oset({obj}, '__dict__', {v})")
        return obj

    def field(self, field: Field, raw: str, v: str, level: int, at: str, ind: int) -> str:
        """Emit the checks of one member whose raw value (``None`` when absent) is in local ``raw``,
        of the object in local ``v``; returns an expression of its converted value."""
        key = repr(field.name)
        shape = field.shape
        if field.presence in ("required", "required_nullable") and not field.nullable:
            # Absent and null both fail the value checks (None is no string, dict, list or int).
            return self.value(shape, raw, level, f"{at}/{field.name}", ind)
        if field.presence in ("required", "required_nullable"):
            self.decline_if(ind, f"{raw} is None and {key} not in {v}")
        elif not field.nullable:
            self.decline_if(ind, f"{raw} is None and {key} in {v}")
        out = "f" + raw[1:]
        absent = "()" if shape.kind == "array" else "{}" if shape.kind == "open_object" else "None"
        self.emit(ind, f"if {raw} is None:")
        self.emit(ind + 1, f"{out} = {absent}")
        self.emit(ind, "else:")
        converted = self.value(shape, raw, level, f"{at}/{field.name}", ind + 1)
        self.emit(ind + 1, f"{out} = {converted}")
        return out

    def value(self, shape: Shape, raw: str, level: int, at: str, ind: int) -> str:
        """Emit the checks of a value in local ``raw`` whose container is at nesting ``level``;
        returns an expression of the converted value (valid after the checks)."""
        kind = shape.kind
        if kind == "string":
            self.decline_if(ind, f"type({raw}) is not str or len({raw}) > {shape.max_length}")
            self.emit(ind, f"c += {raw}.count(':')")
            return raw
        if kind == "integer":
            self.decline_if(ind, f"type({raw}) is not int or not {shape.minimum} <= {raw} <= {shape.maximum}")
            return raw
        if kind == "enum":
            cls = ENUM_CLASSES[shape.ref]
            members = self.const({value: cls(value) for value in self.rules.enum_values[shape.ref]}, "ENUM")
            member = self.var("e")
            # Not a member (KeyError) or unhashable (TypeError): the exception declines.
            self.emit(ind, f"{member} = {members}[{raw}]")
            return member
        if kind == "object":
            return self.object(shape.ref, raw, level + 1, at, ind)
        if kind == "open_object":
            self.depth = max(self.depth, level + 1)
            # Inline for the common flat map of strings and small integers; anything else is
            # walked by _open_value.
            key, item, n = self.var("k"), self.var("x"), self.var("n")
            self.decline_if(ind, f"type({raw}) is not dict or len({raw}) > {LIMIT_MAX_OBJECT_MEMBERS}")
            self.emit(ind, f"c += len({raw})")
            self.emit(ind, f"for {key}, {item} in {raw}.items():")
            self.emit(ind + 1, f"c += {key}.count(':')")
            self.emit(ind + 1, f"if type({item}) is str:")
            self.emit(ind + 2, f"c += {item}.count(':')")
            self.emit(ind + 1, f"elif type({item}) is not int or not {-_SMALL_INT} < {item} < {_SMALL_INT}:")
            self.emit(ind + 2, f"{n} = _open_value({item}, {level + 1}, max_depth)")
            self.decline_if(ind + 2, f"{n} < 0")
            self.emit(ind + 2, f"c += {n}")
            return raw
        if kind == "array":
            self.depth = max(self.depth, level + 1)
            items = shape.items
            if items is None:
                raise ValueError(f"array without an item shape at {at}")
            self.decline_if(ind, f"type({raw}) is not list or len({raw}) > {shape.max_items}")
            item = self.var("i")
            if items.kind == "string":
                self.emit(ind, f"for {item} in {raw}:")
                self.value(items, item, level + 1, f"{at}/*", ind + 1)
                return f"tuple({raw})"
            out = self.var("a")
            self.emit(ind, f"{out} = []")
            self.emit(ind, f"for {item} in {raw}:")
            converted = self.value(items, item, level + 1, f"{at}/*", ind + 1)
            self.emit(ind + 1, f"{out}.append({converted})")
            return f"tuple({out})"
        raise ValueError(f"unsupported shape {kind} at {at}")

    # -- rules ---------------------------------------------------------------------------------

    def rule(self, step: RuleStep, schema: Dict[str, Field], raws: Dict[str, str], ind: int) -> None:
        """Emit one rule step on an object whose members' raw values are in ``raws`` (a member
        not in the schema cannot be present: the object is closed). The member checks have run,
        so each raw value is ``None`` or of its shape's JSON type: the guards of the exact rules
        (``isinstance(value, str)``, ...) reduce to presence tests."""

        def raw(name: str) -> str:
            return raws.get(name, "None")

        def of_type(name: str, json_type: str) -> str:
            """A condition equal to "the raw value of ``name`` is a ``json_type``" here."""
            field = schema.get(name)
            if field is None or _JSON_TYPES[field.shape.kind] != json_type:
                return "False"
            if field.presence in ("required", "required_nullable") and not field.nullable:
                return "True"
            return f"{raws[name]} is not None"

        check = step.check
        value = raw(step.field)
        holds = ""
        if step.when is not None:
            if step.when.op not in ("in", "not_in"):
                raise ValueError(f"unsupported condition {step.when.op}")
            values = self.const(frozenset(step.when.values), "WHEN")
            cond = raw(step.when.field)
            holds = _all(
                of_type(step.when.field, "string"), f"{cond} {'in' if step.when.op == 'in' else 'not in'} {values}"
            )
        if check == "equals_wire_version":
            fire = _all(of_type(step.field, "string"), f"{value} != {step.expected!r}")
        elif check == "non_empty_string":
            fire = _all(of_type(step.field, "array"), f"'' in {value}") if step.each else f"{value} == ''"
        elif check == "required_when" and holds:
            fire = _all(holds, f"{value} is None")
        elif check == "forbidden_when" and holds:
            fire = _all(holds, f"{value} is not None")
        elif check == "forbidden_value":
            values = self.const(frozenset(step.values), "VALUES")
            fire = _all(of_type(step.field, "string"), f"{value} in {values}")
        elif check == "exactly_one_present":
            fire = " + ".join(f"({raw(name)} is not None)" for name in step.fields) + " != 1"
        elif check == "utf8_byte_length_equals":
            size = raw(step.length_field)
            utf8 = f"(len({value}) if {value}.isascii() else len({value}.encode('utf-8', 'surrogatepass')))"
            fire = _all(of_type(step.field, "string"), of_type(step.length_field, "integer"), f"{utf8} != {size}")
        elif check == "non_empty_array":
            fire = _all(of_type(step.field, "array"), f"not {value}")
        elif check == "fields_differ":
            pairs = [
                _all(of_type(later, "string"), of_type(earlier, "string"), f"{raw(later)} == {raw(earlier)}")
                for index, later in enumerate(step.fields)
                for earlier in step.fields[:index]
            ]
            pairs = [p for p in pairs if p != "False"]
            fire = " or ".join(f"({p})" for p in pairs) if pairs else "False"
        else:
            raise ValueError(f"unsupported rule check {check}")
        if fire != "False":
            self.decline_if(ind, fire)


def _all(*conditions: str) -> str:
    """The Python conjunction of ``conditions`` (``"True"`` parts dropped; ``"False"`` if any is)."""
    if "False" in conditions:
        return "False"
    kept = [f"({c})" for c in conditions if c != "True"]
    return " and ".join(kept) if kept else "True"


#: The JSON type of each shape kind's values (what the exact rules' isinstance guards test).
_JSON_TYPES = {
    "string": "string",
    "enum": "string",
    "integer": "integer",
    "array": "array",
    "object": "object",
    "open_object": "object",
}


#: Compiled checkers by wire version, then type name; ``None`` marks a type the generator cannot
#: express, or a version whose shapes are not the dataclasses' (always exact).
_CHECKERS: Dict[str, Dict[str, Optional[Tuple[_Checker, int]]]] = {version: {} for version in WIRE_VERSION_RULES}


#: Marks a checker not built yet in :data:`_CHECKERS` (``None`` there means "none can be").
_UNBUILT: Any = object()


def _checker(type_name: str, version: str) -> Optional[Tuple[_Checker, int]]:
    """The compiled checker of ``type_name`` in wire ``version`` (built on first use) and its depth."""
    cache = _CHECKERS[version]
    if type_name in cache:
        return cache[type_name]
    compiled: Optional[Tuple[_Checker, int]] = None
    rules = WIRE_VERSION_RULES[version]
    if rules.object_schemas is OBJECT_SCHEMAS:
        try:
            gen = _Gen(type_name, rules)
            source = gen.source()
            namespace: Dict[str, Any] = dict(gen.consts)
            exec(compile(source, f"<lifeloop_callback.fast_decode {type_name} {version}>", "exec"), namespace)  # noqa: S102 - our own generated source
            compiled = (namespace["check"], gen.depth)
        except ValueError:
            compiled = None
    cache[type_name] = compiled
    return compiled


def fast_decode(
    type_name: str, data: bytes, max_bytes: int, max_depth: int, window: Tuple[str, ...] = WIRE_WINDOW
) -> Optional[Any]:
    """The decoded dataclass instance of ``type_name`` when ``data`` is provably valid, else ``None``.

    ``data``: the document's bytes; ``max_bytes``, ``max_depth``: the limits of the exact path
    (json.max-bytes, json.max-depth); ``window``: the reader's window (versions newest first, as
    :func:`lifeloop_callback.validation.reader_window` returns it; default: the whole window).
    ``None`` means "not proved" (never "invalid"): run the exact layers. Never raises for any bytes.
    """
    if type(data) is not bytes or len(data) > max_bytes or data[:3] == _BOM:
        return None
    if b"\\" in data and _TELLING_ESCAPE.search(data) is not None:
        return None
    if _NEG_ZERO.search(data) is not None:
        return None
    text_colons = data.count(b":")
    # json.max-values, before anything is built (a document of millions of tiny values must not
    # become millions of objects): a document holds no more values than bytes; past that, bound the
    # count from above (every value but the root follows a ',', a '[' or a ':').
    if len(data) > LIMIT_MAX_VALUES and 1 + data.count(b",") + data.count(b"[") + text_colons > LIMIT_MAX_VALUES:
        return None
    try:
        value = _DECODER.decode(data.decode("utf-8"))
        # Version selection: only a root schema_version of the window has a checker to prove it.
        version = value.get("schema_version") if type(value) is dict else None
        if version not in window:
            return None
        # The cache first (one lookup on the hot path); _checker builds a missing entry.
        compiled = _CHECKERS[version].get(type_name, _UNBUILT)
        if compiled is _UNBUILT:
            compiled = _checker(type_name, version)
        if compiled is None:
            return None
        check, depth = compiled
        if depth > max_depth:
            return None
        checked = check(value, max_depth)
    except Exception:  # noqa: BLE001 - anything unexpected only means "not proved": the exact path judges
        return None
    if checked is None:
        return None
    instance, colons = checked
    if text_colons != colons:
        return None
    return instance
