"""Strict JSON front-end for untrusted wire documents: the parse layer (``json.*`` rules).

``json.loads`` alone is too lax for the wire: it keeps the last of two duplicate member names,
accepts ``NaN``/``Infinity`` and lone surrogate escapes, turns ``1e400`` into ``inf`` and has no
size or depth limits. :func:`parse_strict_json` applies the same rules, in the same order and
with the same JSON pointers, as the TypeScript reference binding (spec/wire-contract.md,
"Bytes and JSON"):

1. ``json.max-bytes``      input longer than ``max_bytes`` (nothing is decoded)
2. ``json.bom``            input starts with the UTF-8 BOM ``EF BB BF``
3. ``json.utf8``           input is not well-formed UTF-8
4. then whichever of ``json.syntax``, ``json.duplicate-key``, ``json.max-depth``,
   ``json.lone-surrogate``, ``json.number-range`` occurs first in the input,
5. then ``json.trailing-data`` (non-whitespace after the top-level value).

Implementation: a fast path runs ``json.loads`` with hooks (``object_pairs_hook`` for duplicates,
``parse_constant`` for NaN/Infinity, ``parse_float``/``parse_int`` so ``1.0``, ``1e2`` and ``-0``
stay distinguishable from integers and overflow is seen) and a bounded walk for depth and lone
surrogates. Only when the fast path sees any problem does an exact, iterative left-to-right
scanner run to find the *first* problem and its pointer. Never raises for any input.

Modules: this one is the entry point; :mod:`.json_fast` is the fast path, :mod:`.json_scanner` the
exact scanner, :mod:`.json_common` what both share (rule ids, :class:`ParseResult`, pointers and the
``json.loads`` hooks). Go twin: sdk/go/json_*.go; TypeScript twin: runtime/wire/json/.
"""

from __future__ import annotations

from typing import Optional, Sequence

from ._gen_spec import LIMIT_MAX_OBJECT_MEMBERS, LIMIT_MAX_VALUES
from .issues import ValidationIssue
from .json_common import (
    _NO_LIMIT,
    MAX_RECORDED_NON_INTEGER,
    RULE_BOM,
    RULE_DUPLICATE_KEY,
    RULE_LONE_SURROGATE,
    RULE_MAX_BYTES,
    RULE_MAX_DEPTH,
    RULE_MAX_MEMBERS,
    RULE_MAX_VALUES,
    RULE_NUMBER_RANGE,
    RULE_SYNTAX,
    RULE_TRAILING_DATA,
    RULE_UTF8,
    ParseResult,
    escape_pointer_token,
    pointer_of,
)
from .json_fast import _fast_parse, floats_at
from .json_scanner import _Scanner

__all__ = [
    "MAX_RECORDED_NON_INTEGER",
    "RULE_BOM",
    "RULE_DUPLICATE_KEY",
    "RULE_LONE_SURROGATE",
    "RULE_MAX_BYTES",
    "RULE_MAX_DEPTH",
    "RULE_MAX_MEMBERS",
    "RULE_MAX_VALUES",
    "RULE_NUMBER_RANGE",
    "RULE_SYNTAX",
    "RULE_TRAILING_DATA",
    "RULE_UTF8",
    "ParseResult",
    "escape_pointer_token",
    "floats_at",
    "parse_strict_json",
    "pointer_of",
]


def parse_strict_json(
    data: bytes,
    max_bytes: int,
    max_depth: int,
    non_integer_paths: Optional[Sequence[str]] = None,
    max_values: int = LIMIT_MAX_VALUES,
    max_members: int = LIMIT_MAX_OBJECT_MEMBERS,
) -> ParseResult:
    """Strictly parse one untrusted JSON wire document.

    ``data``: raw bytes (UTF-8 without BOM). ``max_bytes``: inclusive byte limit of ``data``.
    ``max_depth``: inclusive nesting limit (a top-level array/object is depth 1; scalars are 0).
    ``non_integer_paths``: JSON pointer patterns (``*`` matches any array index) of the only places
    where a non-integer number is recorded in ``non_integer_pointers``, typically
    ``INTEGER_PATHS[type_name]`` of :mod:`lifeloop_callback._gen_plans`; pass them for untrusted input so
    the work and memory spent on numbers elsewhere (open maps) stay proportional to the input.
    Without them the first :data:`MAX_RECORDED_NON_INTEGER` non-integer numbers are recorded.
    ``max_values``: inclusive bound on the JSON values of the document (every string, number,
    literal, array and object, the root included; member names are not values), rule
    ``json.max-values`` (default ``limits.max_values``).
    ``max_members``: inclusive bound on the members of any one object (every member name of the
    text, a repeated one too; counted at each name before it is compared with the earlier ones),
    rule ``json.max-members`` at the first member past it (default ``limits.max_object_members``).
    Returns a :class:`ParseResult`; its ``issue`` names the first problem (rule id, pointer,
    message with a byte offset). Never raises for any bytes-like input (``TypeError`` for ``str``).
    """
    raw: object = data
    if isinstance(raw, str):
        raise TypeError("parse_strict_json takes the document's bytes, not str")
    data = bytes(data)
    n = len(data)
    if n > max_bytes:
        return _fail(RULE_MAX_BYTES, "", f"document is {n} bytes, which exceeds the limit of {max_bytes} bytes")
    if data[:3] == b"\xef\xbb\xbf":
        return _fail(
            RULE_BOM,
            "",
            "document starts with a UTF-8 byte-order mark (EF BB BF) at byte 0; JSON on the wire must not have a BOM",
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        at = error.start
        shown = " ".join(f"{b:02X}" for b in data[at : at + 4])
        return _fail(RULE_UTF8, "", f"invalid UTF-8 at byte {at} (bytes {shown})")
    # Every value but the root follows a '[', '{' or ','; so this bounds the count from above.
    bound = 1 + text.count(",") + text.count("[") + text.count("{")
    if bound > 2 * max_values:
        # Possibly far too many values: the scanner counts them and stops at the limit, so a
        # document of millions of tiny values is never built (json.loads would build them all).
        counted = _Scanner(text, max_depth, max_values, max_members).scan()
        if counted is not None:
            return ParseResult(None, (), counted)
    # Otherwise at most twice the limit can be built; the walk then counts them exactly.
    fast = _fast_parse(
        text,
        data,
        max_depth,
        non_integer_paths,
        max_values if max_values < bound <= 2 * max_values else _NO_LIMIT,
        max_members,
    )
    if fast is not None:
        return fast
    issue = _Scanner(text, max_depth, max_values if bound > max_values else _NO_LIMIT, max_members).scan()
    if issue is None:
        # The fast path and the scanner disagree; report rather than accept.
        issue = ValidationIssue(RULE_SYNTAX, "", "the document could not be parsed")
    return ParseResult(None, (), issue)


def _fail(rule: str, pointer: str, message: str) -> ParseResult:
    return ParseResult(None, (), ValidationIssue(rule, pointer, message))
