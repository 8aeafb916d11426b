"""The exact scanner of the strict JSON parse (error path): one iterative left-to-right pass that
reports the first problem with the same rule id and pointer as the TypeScript binding. It runs only
when the fast path (:mod:`.json_fast`) declined, or to count the values of a huge document.
"""

from __future__ import annotations

import json
import math
import re
from typing import List, Optional, Set

from ._gen_spec import LIMIT_MAX_OBJECT_MEMBERS
from .issues import ValidationIssue
from .json_common import (
    _LONG_NUMBER_CHARS,
    _NO_LIMIT,
    _SURROGATE_ESCAPE,
    RULE_DUPLICATE_KEY,
    RULE_LONE_SURROGATE,
    RULE_MAX_DEPTH,
    RULE_MAX_MEMBERS,
    RULE_MAX_VALUES,
    RULE_NUMBER_RANGE,
    RULE_SYNTAX,
    RULE_TRAILING_DATA,
    _finite_float,
    _no_constant,
    _no_duplicates,
    _pairs_hook,
    _Trouble,
    escape_pointer_token,
)

_WS = re.compile(r"[ \t\n\r]*")
_PLAIN_RUN = re.compile(r'[^"\\\x00-\x1f]*')
_PREVIEW_BYTES = 32
_ESCAPES = frozenset('"\\/bfnrt')
_HEX = frozenset("0123456789abcdefABCDEF")
_NON_JSON_WS = frozenset(
    [0x0B, 0x0C, 0x85, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF] + list(range(0x2000, 0x200B))
)


_LONG_DIGITS = re.compile("[0-9]{" + str(_LONG_NUMBER_CHARS) + "}")
_ARRAY = 0
_OBJECT = 1
#: An array element that cannot hold a problem, and the ',' after it: a plain string, a literal, or
#: a number too short to overflow (no exponent), followed by something no number continues with.
#: Characters that start a string, number or container (literals are counted once they are whole).
_VALUE_STARTS = frozenset('"-0123456789[{')
_PLAIN_ELEMENT = re.compile(
    r'[ \t\n\r]*(?:"[^"\\\x00-\x1f]*"|true|false|null|-?(?:0|[1-9][0-9]{0,200})(?:\.[0-9]{1,100})?)[ \t\n\r]*,'
)


#: The C scanner used to skip, in one call, a nested container that provably holds no problem.
_SUBTREE_DECODER = json.JSONDecoder(
    object_pairs_hook=_no_duplicates, parse_float=_finite_float, parse_constant=_no_constant
)


class _Scanner:
    def __init__(
        self, text: str, max_depth: int, max_values: int = _NO_LIMIT, max_members: int = LIMIT_MAX_OBJECT_MEMBERS
    ) -> None:
        self.s = text
        self.n = len(text)
        self.max_depth = max_depth
        self.max_values = max_values
        self.max_members = max_members
        # try_skip's C scanner enforces the same member bound (its hook declines past it).
        self.subtree_decoder = (
            _SUBTREE_DECODER
            if max_members == LIMIT_MAX_OBJECT_MEMBERS
            else json.JSONDecoder(
                object_pairs_hook=_pairs_hook(max_members), parse_float=_finite_float, parse_constant=_no_constant
            )
        )
        self.values = 0
        self.depth = 0
        # Per depth (1-based, index 0 unused): kind, element index / member count, member names.
        self.kinds: List[int] = [0]
        self.counts: List[int] = [0]
        self.keys: List[List[str]] = [[]]
        self.key_sets: List[Set[str]] = [set()]
        self.issue: Optional[ValidationIssue] = None

    # -- pointers -----------------------------------------------------------------------------

    def token_at(self, d: int) -> str:
        if self.kinds[d] == _ARRAY:
            return str(self.counts[d])
        names = self.keys[d]
        return escape_pointer_token(names[-1]) if names else ""

    def container_pointer(self, d: int) -> str:
        pointer = ""
        for k in range(1, d):
            pointer += "/" + self.token_at(k)
        return pointer

    def slot_pointer(self) -> str:
        if self.depth == 0:
            return ""
        return self.container_pointer(self.depth) + "/" + self.token_at(self.depth)

    # -- issues -------------------------------------------------------------------------------

    def byte_offset(self, index: int) -> int:
        return len(self.s[:index].encode("utf-8", "surrogatepass"))

    def preview(self, index: int) -> str:
        if index >= self.n:
            return "at end of input"
        out = []
        used = 0
        i = index
        while i < self.n:
            width = len(self.s[i].encode("utf-8", "surrogatepass"))
            if used + width > _PREVIEW_BYTES:
                break
            used += width
            out.append(self.s[i])
            i += 1
        shown = json.dumps("".join(out))[1:-1]
        return 'near "' + shown + ('..."' if i < self.n else '"')

    def fail(self, rule: str, message: str, pointer: str) -> int:
        self.issue = ValidationIssue(rule, pointer, message)
        return -1

    def too_many_values(self, i: int) -> bool:
        """Count the value starting at ``i``; True (issue recorded) once there are more than allowed."""
        self.values += 1
        if self.values <= self.max_values:
            return False
        self.fail(
            RULE_MAX_VALUES,
            f"value number {self.values} at byte {self.byte_offset(i)} exceeds the limit of "
            f"{self.max_values} values per document",
            self.slot_pointer(),
        )
        return True

    def syntax(self, message: str, index: int, pointer: str) -> int:
        return self.fail(RULE_SYNTAX, f"{message} at byte {self.byte_offset(index)}, {self.preview(index)}", pointer)

    def char(self, i: int) -> str:
        return self.s[i] if i < self.n else ""

    def skip_ws(self, i: int) -> int:
        match = _WS.match(self.s, i)
        return match.end() if match else i

    def unexpected_value(self, i: int, after_comma: bool) -> int:
        c = self.char(i)
        ptr = self.slot_pointer()
        if c == "":
            if self.depth == 0 and i == 0:
                return self.fail(RULE_SYNTAX, "empty document (no JSON value) at byte 0", "")
            if self.depth == 0:
                return self.syntax("whitespace-only document (no JSON value)", i, "")
            what = "array" if self.kinds[self.depth] == _ARRAY else "object"
            return self.syntax(f"unterminated {what}: expected a value", i, ptr)
        closer = "]" if self.kinds[self.depth] == _ARRAY else "}"
        if after_comma and self.depth > 0 and c == closer:
            return self.syntax(f"trailing comma before '{c}'", i, self.container_pointer(self.depth))
        if c in "]},:":
            return self.syntax(f"expected a value but found '{c}'", i, ptr)
        if c == "'":
            return self.syntax("single-quoted strings are not allowed", i, ptr)
        if c in "/#":
            return self.syntax("comments are not allowed", i, ptr)
        if c == "+":
            return self.syntax("numbers must not start with '+'", i, ptr)
        if c == ".":
            return self.syntax("numbers must have a digit before '.'", i, ptr)
        if self.s.startswith("NaN", i) or self.s.startswith("Infinity", i):
            return self.syntax("NaN and Infinity are not valid JSON", i, ptr)
        if ord(c) in _NON_JSON_WS:
            return self.syntax(f"non-JSON whitespace U+{ord(c):04X} (only space, tab, LF and CR are allowed)", i, ptr)
        return self.syntax(f"unexpected character U+{ord(c):04X} where a value was expected", i, ptr)

    def unexpected_structural(self, i: int, expected: str, ptr: str) -> int:
        c = self.char(i)
        if c == "":
            what = "array" if self.kinds[self.depth] == _ARRAY else "object"
            return self.syntax(f"unterminated {what}: expected {expected}", i, ptr)
        if c in "/#":
            return self.syntax("comments are not allowed", i, ptr)
        if ord(c) in _NON_JSON_WS:
            return self.syntax(f"non-JSON whitespace U+{ord(c):04X} (only space, tab, LF and CR are allowed)", i, ptr)
        return self.syntax(f"expected {expected} but found U+{ord(c):04X}", i, ptr)

    # -- lexing -------------------------------------------------------------------------------

    def hex4(self, i: int) -> int:
        digits = self.s[i : i + 4]
        if len(digits) != 4 or any(c not in _HEX for c in digits):
            return -1
        return int(digits, 16)

    def string_pointer(self, is_key: bool) -> str:
        return self.container_pointer(self.depth) if is_key else self.slot_pointer()

    def scan_string_from(self, start: int, i: int, is_key: bool) -> int:
        """Continue the string opened at ``start`` from ``i``; return the index past the closing quote."""
        s = self.s
        while True:
            match = _PLAIN_RUN.match(s, i)
            if match:
                i = match.end()
            c = self.char(i)
            if c == '"':
                return i + 1
            if c == "\\":
                e = self.char(i + 1)
                if e == "u":
                    v = self.hex4(i + 2)
                    if v < 0:
                        count = 0
                        while count < 4 and self.char(i + 2 + count) in _HEX and self.char(i + 2 + count) != "":
                            count += 1
                        if i + 2 + count >= self.n:
                            return self.unterminated_string(start, self.n, is_key)
                        return self.syntax(
                            "invalid \\u escape (expected 4 hex digits) in string", i, self.string_pointer(is_key)
                        )
                    if 0xD800 <= v <= 0xDFFF:
                        if v >= 0xDC00:
                            return self.fail(
                                RULE_LONE_SURROGATE,
                                f"lone low-surrogate escape \\u{s[i + 2 : i + 6]} (not preceded by a high-surrogate "
                                f"escape) at byte {self.byte_offset(i)}",
                                self.string_pointer(is_key),
                            )
                        w = self.hex4(i + 8) if s.startswith("\\u", i + 6) else -1
                        if w < 0xDC00 or w > 0xDFFF:
                            return self.fail(
                                RULE_LONE_SURROGATE,
                                f"lone high-surrogate escape \\u{s[i + 2 : i + 6]} (not followed by a \\uDC00-\\uDFFF "
                                f"escape) at byte {self.byte_offset(i)}",
                                self.string_pointer(is_key),
                            )
                        i += 12
                    else:
                        i += 6
                    continue
                if e != "" and e in _ESCAPES:
                    i += 2
                    continue
                if e == "":
                    return self.unterminated_string(start, i + 1, is_key)
                return self.syntax(
                    f"invalid escape sequence \\U+{ord(e):04X} in string", i, self.string_pointer(is_key)
                )
            if c == "":
                return self.unterminated_string(start, i, is_key)
            # A control character (the plain run stops only at '"', '\\' or U+0000..U+001F).
            return self.syntax(
                f"unescaped control character U+{ord(c):04X} in string (must be written as an escape)",
                i,
                self.string_pointer(is_key),
            )

    def unterminated_string(self, start: int, i: int, is_key: bool) -> int:
        return self.syntax(
            f"unterminated string (opened at byte {self.byte_offset(start)}): end of input",
            i,
            self.string_pointer(is_key),
        )

    def is_digit(self, i: int) -> bool:
        return i < self.n and "0" <= self.s[i] <= "9"

    def after_digits(self, i: int) -> int:
        """Index past the run of ASCII digits starting at ``i``."""
        while self.is_digit(i):
            i += 1
        return i

    def scan_number(self, start: int) -> int:
        s = self.s
        i = start + 1 if self.char(start) == "-" else start
        if self.char(i) == "0":
            i += 1
            if self.is_digit(i):
                return self.syntax("number with a leading zero", start, self.slot_pointer())
        elif self.is_digit(i):
            i = self.after_digits(i)
        else:
            return self.syntax("expected a digit after '-'", i, self.slot_pointer())
        if self.char(i) == ".":
            i += 1
            if not self.is_digit(i):
                return self.syntax("expected a digit after the decimal point", i, self.slot_pointer())
            i = self.after_digits(i)
        has_exponent = False
        if self.char(i) in ("e", "E"):
            i += 1
            if self.char(i) in ("+", "-"):
                i += 1
            if not self.is_digit(i):
                return self.syntax("expected a digit in the exponent", i, self.slot_pointer())
            i = self.after_digits(i)
            has_exponent = True
        if (has_exponent or i - start >= _LONG_NUMBER_CHARS) and math.isinf(float(s[start:i])):
            lexeme = s[start:i] if i - start <= _PREVIEW_BYTES else s[start : start + _PREVIEW_BYTES] + "..."
            return self.fail(
                RULE_NUMBER_RANGE,
                f"number {lexeme} at byte {self.byte_offset(start)} overflows an IEEE-754 double "
                "(magnitude above 1.7976931348623157e308)",
                self.slot_pointer(),
            )
        return i

    def scan_key(self, i: int, d: int) -> int:
        """Scan a member name of the object at depth ``d``; check it for duplicates and record it."""
        c = self.char(i)
        if c != '"':
            if c == "'":
                return self.syntax("single-quoted member names are not allowed", i, self.container_pointer(d))
            if c == "}":
                return self.syntax("trailing comma before '}'", i, self.container_pointer(d))
            return self.unexpected_structural(i, "a double-quoted member name", self.container_pointer(d))
        match = _PLAIN_RUN.match(self.s, i + 1)
        j = match.end() if match else i + 1
        if self.char(j) == '"':
            end = j + 1
            name = self.s[i + 1 : j]
        else:
            end = self.scan_string_from(i, j, True)
            if end < 0:
                return -1
            name = json.loads(self.s[i:end])
        self.keys[d].append(name)
        self.counts[d] += 1
        # Every name of the text counts, a repeated one too: the count comes before the comparison.
        if self.counts[d] > self.max_members:
            return self.fail(
                RULE_MAX_MEMBERS,
                f"member number {self.counts[d]} at byte {self.byte_offset(i)} exceeds the limit of "
                f"{self.max_members} members per object",
                self.slot_pointer(),
            )
        if name in self.key_sets[d]:
            shown = json.dumps(name[:_PREVIEW_BYTES])
            return self.fail(
                RULE_DUPLICATE_KEY,
                f"duplicate member name {shown} at byte {self.byte_offset(i)} (each name may appear only once per object)",
                self.slot_pointer(),
            )
        self.key_sets[d].add(name)
        return end

    def open_level(self, d: int, kind: int) -> None:
        if d >= len(self.kinds):
            self.kinds.append(kind)
            self.counts.append(0)
            self.keys.append([])
            self.key_sets.append(set())
        else:
            self.kinds[d] = kind
            self.counts[d] = 0
            self.keys[d] = []
            self.key_sets[d] = set()

    def try_skip(self, i: int, d: int) -> int:
        """Skip the container opening at ``i`` (inside containers of depth ``d``) at C speed.

        Returns the index past it when it provably holds no problem (it parses with no duplicate,
        NaN/Infinity or overflowing float, holds no surrogate escape or 309+ digit run, and has too
        few brackets to break the depth limit), else -1: the caller scans it token by token.
        """
        s = self.s
        try:
            _, end = self.subtree_decoder.raw_decode(s, i)
        except (_Trouble, ValueError, RecursionError):
            return -1
        if s.count("[", i, end) + s.count("{", i, end) > self.max_depth - d:
            return -1
        if _SURROGATE_ESCAPE.search(s, i, end) is not None or _LONG_DIGITS.search(s, i, end) is not None:
            return -1
        return end

    def member_name(self, i: int, d: int) -> int:
        """Scan a member name and the ':' after it (whitespace allowed); return the index past the ':'."""
        i = self.scan_key(i, d)
        if i < 0:
            return -1
        if self.char(i) != ":":
            i = self.skip_ws(i)
            if self.char(i) != ":":
                return self.unexpected_structural(i, "':' after member name", self.slot_pointer())
        return i + 1

    # -- the scan -----------------------------------------------------------------------------

    def scan(self) -> Optional[ValidationIssue]:
        """Scan the whole document; return the first issue, or None when it is acceptable."""
        s = self.s
        i = 0
        d = 0
        after_comma = False
        kinds = self.kinds
        counts = self.counts
        while True:
            if d > 0 and kinds[d] == _ARRAY:
                # A run of elements that cannot hold a problem, each followed by ',': one match each.
                match = _PLAIN_ELEMENT.match(s, i) if self.values + 1 < self.max_values else None
                while match is not None:
                    i = match.end()
                    counts[d] += 1
                    self.values += 1
                    after_comma = True
                    match = _PLAIN_ELEMENT.match(s, i) if self.values + 1 < self.max_values else None
            # One value at i (after optional whitespace).
            i = self.skip_ws(i)
            c = self.char(i)
            if c in _VALUE_STARTS and self.too_many_values(i):
                return self.issue
            if c == '"':
                match = _PLAIN_RUN.match(s, i + 1)
                j = match.end() if match else i + 1
                if self.char(j) == '"':
                    i = j + 1
                else:
                    i = self.scan_string_from(i, j, False)
                    if i < 0:
                        return self.issue
            elif c == "-" or self.is_digit(i):
                i = self.scan_number(i)
                if i < 0:
                    return self.issue
            elif c in ("{", "["):
                if d >= self.max_depth:
                    self.fail(
                        RULE_MAX_DEPTH,
                        f"nesting depth {d + 1} at byte {self.byte_offset(i)} exceeds the limit of {self.max_depth}",
                        self.slot_pointer(),
                    )
                    return self.issue
                # The root already failed the fast path; a nested container may be clean.
                end = self.try_skip(i, d) if d > 0 and self.max_values == _NO_LIMIT else -1
                if end >= 0:
                    i = end
                else:
                    d += 1
                    self.open_level(d, _ARRAY if c == "[" else _OBJECT)
                    self.depth = d
                    after_comma = False
                    i = self.skip_ws(i + 1)
                    nxt = self.char(i)
                    if c == "[":
                        if nxt != "]":
                            continue
                    elif nxt != "}":
                        i = self.member_name(i, d)
                        if i < 0:
                            return self.issue
                        continue
                    i += 1
                    d -= 1
                    self.depth = d
            elif c == "t":
                if not s.startswith("true", i):
                    self.syntax("invalid literal (expected 'true')", i, self.slot_pointer())
                    return self.issue
                if self.too_many_values(i):
                    return self.issue
                i += 4
            elif c == "f":
                if not s.startswith("false", i):
                    self.syntax("invalid literal (expected 'false')", i, self.slot_pointer())
                    return self.issue
                if self.too_many_values(i):
                    return self.issue
                i += 5
            elif c == "n":
                if not s.startswith("null", i):
                    self.syntax("invalid literal (expected 'null')", i, self.slot_pointer())
                    return self.issue
                if self.too_many_values(i):
                    return self.issue
                i += 4
            else:
                self.unexpected_value(i, after_comma)
                return self.issue

            # A value just ended: consume ',' (then the next value) or closers.
            while d > 0:
                i = self.skip_ws(i)
                c = self.char(i)
                kind = self.kinds[d]
                if c == ",":
                    i += 1
                    after_comma = True
                    if kind == _ARRAY:
                        self.counts[d] += 1
                        break
                    i = self.member_name(self.skip_ws(i), d)
                    if i < 0:
                        return self.issue
                    after_comma = False
                    break
                if kind == _ARRAY:
                    if c == "]":
                        i += 1
                        d -= 1
                        self.depth = d
                        continue
                    self.unexpected_structural(i, "',' or ']' after array element", self.container_pointer(d))
                    return self.issue
                if c == "}":
                    i += 1
                    d -= 1
                    self.depth = d
                    continue
                self.unexpected_structural(i, "',' or '}' after object member", self.container_pointer(d))
                return self.issue
            if d == 0:
                break

        # Only whitespace may follow the top-level value.
        i = self.skip_ws(i)
        if i < self.n:
            c = s[i]
            if ord(c) in _NON_JSON_WS:
                self.syntax(f"non-JSON whitespace U+{ord(c):04X} (only space, tab, LF and CR are allowed)", i, "")
                return self.issue
            self.fail(
                RULE_TRAILING_DATA,
                f"unexpected data after the top-level JSON value at byte {self.byte_offset(i)} "
                f"(only whitespace may follow it), {self.preview(i)}",
                "",
            )
            return self.issue
        return None
