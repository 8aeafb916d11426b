"""The fast path of the strict JSON parse: ``json.loads`` with hooks, then a bounded walk for depth,
lone surrogates, the value count and non-integer numbers. It returns None whenever anything may be
wrong; the exact scanner (:mod:`.json_scanner`) then finds the first problem.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from ._gen_spec import LIMIT_MAX_OBJECT_MEMBERS
from .json_common import (
    _LONG_NUMBER_CHARS,
    _NO_LIMIT,
    _SURROGATE_ESCAPE,
    MAX_RECORDED_NON_INTEGER,
    ParseResult,
    _finite_float,
    _no_constant,
    _no_duplicates,
    _pairs_hook,
    _Trouble,
    pointer_of,
)


def _fast_parse(
    text: str,
    data: bytes,
    max_depth: int,
    paths: Optional[Sequence[str]],
    max_values: int,
    max_members: int = LIMIT_MAX_OBJECT_MEMBERS,
) -> Optional[ParseResult]:
    """json.loads with hooks; returns None when anything may be wrong (the scanner decides).

    Cheap whole-text pre-checks keep the per-value Python work to what the text can need: the
    ``parse_int`` hook only when ``-0`` or a 309+ digit run occurs, the surrogate check only when a
    ``\\uD800``-``\\uDFFF`` escape occurs, the depth check only when there are more brackets than
    ``max_depth``. Those checks keep no per-value state; non-integer numbers are then looked up at
    ``paths`` only (or the first :data:`MAX_RECORDED_NON_INTEGER` of them without ``paths``).
    """

    def parse_int(lexeme: str) -> Any:
        if lexeme == "-0":
            return _MINUS_ZERO
        if len(lexeme) >= _LONG_NUMBER_CHARS and math.isinf(float(lexeme)):
            raise _Trouble()
        return int(lexeme)

    special_ints = _NEG_ZERO.search(text) is not None or _LONG_DIGIT_RUN in data.translate(_DIGIT_MAP)
    pairs_hook = _no_duplicates if max_members == LIMIT_MAX_OBJECT_MEMBERS else _pairs_hook(max_members)
    try:
        if special_ints:
            value = json.loads(
                text,
                object_pairs_hook=pairs_hook,
                parse_float=_finite_float,
                parse_int=parse_int,
                parse_constant=_no_constant,
            )
        else:
            value = json.loads(
                text, object_pairs_hook=pairs_hook, parse_float=_finite_float, parse_constant=_no_constant
            )
    except (_Trouble, ValueError, RecursionError):
        return None
    check_surrogates = _SURROGATE_ESCAPE.search(text) is not None
    check_depth = text.count("[") + text.count("{") > max_depth
    record_all = paths is None and (special_ints or _FLOAT_MARK.search(text) is not None)
    check_values = max_values < _NO_LIMIT
    if check_surrogates or check_depth or record_all or check_values:
        walk = _Walk(max_depth if check_depth else _NO_LIMIT, check_surrogates, record_all, max_values)
        if not walk.ok(value, 0):
            return None
        if record_all:
            return ParseResult(value, tuple(walk.floats), None)
    if paths is None:
        return ParseResult(value, (), None)
    return ParseResult(value, floats_at(value, paths), None)


#: What ``-0`` parses to (one shared object: a document of a million ``-0`` costs no float objects).
_MINUS_ZERO = -0.0
_NEG_ZERO = re.compile(r"-0(?![0-9.eE])")
#: A fraction or exponent (a cheap test whether a document may hold any non-integer number).
_FLOAT_MARK = re.compile(r"[0-9][.eE]")
#: Maps ASCII digits to ``d`` and every other byte to a space (a C-speed search for long digit runs).
_DIGIT_MAP = bytes(0x64 if 0x30 <= b <= 0x39 else 0x20 for b in range(256))
_LONG_DIGIT_RUN = b"d" * _LONG_NUMBER_CHARS
_SURROGATE = re.compile("[\ud800-\udfff]")


class _Walk:
    """Depth and lone-surrogate check of a parsed value; with ``record``, collects the pointers of
    its first :data:`MAX_RECORDED_NON_INTEGER` floats in input order.

    The path to the current value is a stack of tokens: a pointer string is built only for a
    recorded float, never per value.
    """

    def __init__(self, max_depth: int, surrogates: bool, record: bool, max_values: int = _NO_LIMIT) -> None:
        self.max_depth = max_depth
        self.surrogates = surrogates
        self.record = record
        self.values_left = max_values
        self.path: List[Union[str, int]] = []
        self.floats: List[str] = []

    def ok(self, value: Any, depth: int) -> bool:
        self.values_left -= 1
        if self.values_left < 0:
            return False
        if isinstance(value, str):
            return not self.surrogates or _SURROGATE.search(value) is None
        if isinstance(value, float):
            if self.record and len(self.floats) < MAX_RECORDED_NON_INTEGER:
                self.floats.append(pointer_of(self.path))
            return True
        if isinstance(value, dict):
            if depth >= self.max_depth:
                return False
            path = self.path
            for key, item in value.items():
                if self.surrogates and _SURROGATE.search(key) is not None:
                    return False
                path.append(key)
                good = self.ok(item, depth + 1)
                path.pop()
                if not good:
                    return False
            return True
        if isinstance(value, list):
            if depth >= self.max_depth:
                return False
            path = self.path
            for index, item in enumerate(value):
                path.append(index)
                good = self.ok(item, depth + 1)
                path.pop()
                if not good:
                    return False
            return True
        return True


class _Trie:
    """JSON pointer patterns as a tree of reference tokens (``*`` = any array index)."""

    __slots__ = ("children", "indexes", "end")

    def __init__(self) -> None:
        self.children: Dict[str, _Trie] = {}
        #: The children whose token is a decimal array index (rare: patterns use ``*``).
        self.indexes: Dict[int, _Trie] = {}
        #: Whether a pattern ends here.
        self.end = False


_INDEX_TOKEN = re.compile(r"^(?:0|[1-9][0-9]*)$")
#: Compiled patterns (a handful of tuples: one per wire type).
_TRIES: Dict[Tuple[str, ...], _Trie] = {}
_MAX_TRIES = 64


def _trie_of(patterns: Sequence[str]) -> _Trie:
    key = tuple(patterns)
    trie = _TRIES.get(key)
    if trie is not None:
        return trie
    trie = _Trie()
    for pattern in key:
        node = trie
        for token in pattern.split("/")[1:] if pattern else []:
            child = node.children.get(token)
            if child is None:
                child = node.children[token] = _Trie()
                if _INDEX_TOKEN.match(token):
                    node.indexes[int(token)] = child
            node = child
        node.end = True
    if len(_TRIES) < _MAX_TRIES:
        _TRIES[key] = trie
    return trie


def floats_at(value: Any, patterns: Sequence[str]) -> Tuple[str, ...]:
    """Pointers, in document order, of the ``float`` values of ``value`` at ``patterns``.

    ``patterns`` are JSON pointer patterns with unescaped member names in which ``*`` matches any
    array index (``INTEGER_PATHS``); lists and tuples are arrays. Visits only the containers on
    the patterns' paths, so open maps cost nothing however large.
    """
    out: List[str] = []
    _collect_floats(value, _trie_of(patterns), [], out)
    return tuple(out)


def _collect_floats(value: Any, node: _Trie, path: List[Union[str, int]], out: List[str]) -> None:
    if node.end and isinstance(value, float):
        out.append(pointer_of(path))
    children = node.children
    if not children:
        return
    if isinstance(value, dict):
        if len(children) == 1:
            # One branch: no document order to keep among siblings; a lookup instead of a scan.
            token, child = next(iter(children.items()))
            if token in value:
                path.append(token)
                _collect_floats(value[token], child, path, out)
                path.pop()
            return
        for key, item in value.items():
            branch = children.get(key)
            if branch is not None:
                path.append(key)
                _collect_floats(item, branch, path, out)
                path.pop()
    elif isinstance(value, (list, tuple)):
        star = children.get("*")
        indexes = node.indexes
        for index, item in enumerate(value):
            path.append(index)
            if star is not None:
                _collect_floats(item, star, path, out)
            if indexes and index in indexes:
                _collect_floats(item, indexes[index], path, out)
            path.pop()
