"""What the strict JSON fast path (:mod:`.json_fast`) and exact scanner (:mod:`.json_scanner`) share:
the parse-layer rule ids, :class:`ParseResult`, JSON pointers, and the ``json.loads`` hooks that
decline (raise :class:`_Trouble`) wherever the exact scanner must judge. Entry point:
:func:`lifeloop_callback.strict_json.parse_strict_json`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from ._gen_spec import (
    LIMIT_MAX_OBJECT_MEMBERS,
    RULE_JSON_BOM,
    RULE_JSON_DUPLICATE_KEY,
    RULE_JSON_LONE_SURROGATE,
    RULE_JSON_MAX_BYTES,
    RULE_JSON_MAX_DEPTH,
    RULE_JSON_MAX_MEMBERS,
    RULE_JSON_MAX_VALUES,
    RULE_JSON_NUMBER_RANGE,
    RULE_JSON_SYNTAX,
    RULE_JSON_TRAILING_DATA,
    RULE_JSON_UTF8,
)
from .issues import ValidationIssue

# The parse-layer rule ids (spec/tables/document-rules.json), under this module's short names.
RULE_MAX_BYTES = RULE_JSON_MAX_BYTES
RULE_BOM = RULE_JSON_BOM
RULE_UTF8 = RULE_JSON_UTF8
RULE_SYNTAX = RULE_JSON_SYNTAX
RULE_TRAILING_DATA = RULE_JSON_TRAILING_DATA
RULE_DUPLICATE_KEY = RULE_JSON_DUPLICATE_KEY
RULE_MAX_DEPTH = RULE_JSON_MAX_DEPTH
RULE_LONE_SURROGATE = RULE_JSON_LONE_SURROGATE
RULE_NUMBER_RANGE = RULE_JSON_NUMBER_RANGE
RULE_MAX_VALUES = RULE_JSON_MAX_VALUES
RULE_MAX_MEMBERS = RULE_JSON_MAX_MEMBERS


@dataclass(frozen=True)
class ParseResult:
    """Outcome of :func:`parse_strict_json`.

    ``issue`` is ``None`` when the document is acceptable; then ``value`` is the parsed JSON value
    (objects are ``dict``, arrays ``list``; numbers written with a fraction or exponent, and ``-0``,
    are ``float``; other integers are ``int``) and ``non_integer_pointers`` lists, in input order,
    the RFC 6901 pointers of the ``float`` values (numbers whose lexeme is not a plain integer):
    only those at the ``non_integer_paths`` given to :func:`parse_strict_json`, else the first
    :data:`MAX_RECORDED_NON_INTEGER` of them.
    """

    value: Any
    non_integer_pointers: Tuple[str, ...]
    issue: Optional[ValidationIssue]


#: How many non-integer number pointers :func:`parse_strict_json` records at most when it is given
#: no ``non_integer_paths`` (the rest are parsed but not recorded), as the TypeScript binding does.
MAX_RECORDED_NON_INTEGER = 1024


def escape_pointer_token(token: str) -> str:
    """RFC 6901 escaping of one reference token (``~`` -> ``~0``, ``/`` -> ``~1``)."""
    if "~" not in token and "/" not in token:
        return token
    return token.replace("~", "~0").replace("/", "~1")


def pointer_of(path: Sequence[Union[str, int]]) -> str:
    """The RFC 6901 pointer of a path of member names (escaped here) and array indexes."""
    return "".join(f"/{t}" if isinstance(t, int) else "/" + escape_pointer_token(t) for t in path)


_LONG_NUMBER_CHARS = 309
_NO_LIMIT = 1 << 30
#: A ``\uD800``-``\uDFFF`` escape (a cheap test whether a text may hold a lone surrogate).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class _Trouble(Exception):
    """Raised inside json.loads hooks: the exact scanner must judge the document."""


def _pairs_hook(max_members: int) -> Callable[[List[Tuple[str, Any]]], Dict[str, Any]]:
    """The ``object_pairs_hook`` of the strict parse: the object of ``pairs`` (the text's members,
    duplicates included), or :class:`_Trouble` for a duplicate or more than ``max_members``
    members (the exact scanner then judges the document)."""

    def hook(pairs: List[Tuple[str, Any]]) -> Dict[str, Any]:
        if len(pairs) > max_members:
            raise _Trouble()
        obj = dict(pairs)
        if len(obj) != len(pairs):
            raise _Trouble()
        return obj

    return hook


#: The hook at limits.max_object_members, shared by every parse with the default bound.
_no_duplicates = _pairs_hook(LIMIT_MAX_OBJECT_MEMBERS)


def _finite_float(lexeme: str) -> float:
    value = float(lexeme)
    if math.isinf(value):
        raise _Trouble()
    return value


def _no_constant(lexeme: str) -> Any:
    raise _Trouble()
