"""The parse layer (json.* rules): same rule ids and pointers as runtime/wire/json/."""

from __future__ import annotations

from typing import Optional, Tuple

import pytest

from lifeloop_callback.strict_json import escape_pointer_token, parse_strict_json

BIG = 1 << 20


def judge(data: bytes, max_bytes: int = BIG, max_depth: int = 64) -> Optional[Tuple[str, str]]:
    result = parse_strict_json(data, max_bytes, max_depth)
    if result.issue is None:
        return None
    assert 10 < len(result.issue.message) < 400
    return result.issue.rule, result.issue.pointer


def test_escape_pointer_token() -> None:
    assert escape_pointer_token("a/b") == "a~1b"
    assert escape_pointer_token("a~b") == "a~0b"
    assert escape_pointer_token("/~/~") == "~1~0~1~0"


@pytest.mark.parametrize(
    "text, value",
    [
        ("{}", {}),
        ("[]", []),
        ('"s"', "s"),
        ("-12", -12),
        ("3.25", 3.25),
        ("1E+2", 100.0),
        ("true", True),
        ("null", None),
        (' \t\r\n{ "a" : [ 1 , 2 ] , "b" : { } }\n', {"a": [1, 2], "b": {}}),
        ('"\\ud83d\\ude00x"', "😀x"),
        ('{"😀":"🎉"}', {"😀": "🎉"}),
        ('{"a":{"a":1},"b":[{"a":1},{"a":2}]}', {"a": {"a": 1}, "b": [{"a": 1}, {"a": 2}]}),
        ('"\ufeff"', "\ufeff"),
        ("1e-400", 0.0),
    ],
)
def test_valid_documents(text: str, value: object) -> None:
    result = parse_strict_json(text.encode("utf-8"), BIG, 64)
    assert result.issue is None
    assert result.value == value


def test_non_integer_pointers_in_input_order() -> None:
    result = parse_strict_json(b'{"a":[1,2.0,-0],"b/c":{"d":1e2},"e":0}', BIG, 64)
    assert result.non_integer_pointers == ("/a/1", "/a/2", "/b~1c/d")


def test_non_integer_pointers_only_at_the_given_paths() -> None:
    data = b'{"z":{"n":1.5},"a":[1.0,{"b":2.0},{"b":3}],"c":-0,"n":[0.5,[1e2]],"d":{"e":1e2,"n":-0}}'
    paths = ["/a/*/b", "/c", "/a/0", "/d/n", "/n/1/0", "/q/*"]
    result = parse_strict_json(data, BIG, 64, paths)
    assert result.issue is None
    assert result.non_integer_pointers == ("/a/0", "/a/1/b", "/c", "/n/1/0", "/d/n")
    assert parse_strict_json(data, BIG, 64, ()).non_integer_pointers == ()
    # A '*' matches array indexes only; in an object it is a member name like any other.
    assert parse_strict_json(b'{"q":{"*":1.5},"r":{"0":2.5}}', BIG, 64, ["/q/*", "/r/0"]).non_integer_pointers == (
        "/q/*",
        "/r/0",
    )
    # The same paths while the depth and surrogate checks run (more brackets than max_depth).
    deep = b'{"a":[[[[1.0]]]],"c":-0.0,"e":[],"f":{},"s":"\\ud83d\\ude00"}'
    assert parse_strict_json(deep, BIG, 5, ["/c", "/a/0/0/0/0"]).non_integer_pointers == ("/a/0/0/0/0", "/c")


def test_without_paths_the_first_non_integers_are_recorded() -> None:
    from lifeloop_callback.strict_json import MAX_RECORDED_NON_INTEGER

    data = ('{"' + "k" * 1000 + '":[' + ",".join(["0.5"] * (MAX_RECORDED_NON_INTEGER + 10)) + "]}").encode()
    pointers = parse_strict_json(data, BIG, 64).non_integer_pointers
    assert len(pointers) == MAX_RECORDED_NON_INTEGER
    assert pointers[-1] == "/" + "k" * 1000 + f"/{MAX_RECORDED_NON_INTEGER - 1}"


@pytest.mark.parametrize(
    "data, max_bytes, max_depth, expected",
    [
        (b"[1,22]", 5, 4, ("json.max-bytes", "")),
        (b"\xef\xbb\xbf{}", BIG, 64, ("json.bom", "")),
        (b'\xef\xbb\xbf"\xc0\xaf"', BIG, 64, ("json.bom", "")),
        (b'"\xc0\xaf"', BIG, 64, ("json.utf8", "")),
        (b'"\xed\xa0\x80"', BIG, 64, ("json.utf8", "")),
        (b"[1,\xc3]", BIG, 64, ("json.utf8", "")),
        (b"", 0, 4, ("json.syntax", "")),
        (b"[[[[[[]]]]]]", 100, 5, ("json.max-depth", "/0/0/0/0/0")),
        (b"[]", 10, 0, ("json.max-depth", "")),
        (b'{"a":[{"b":{}}]}', BIG, 3, ("json.max-depth", "/a/0/b")),
        (b'{"x":1,"a/b":[0,{"c":[]}]}', BIG, 3, ("json.max-depth", "/a~1b/1/c")),
    ],
)
def test_limits_bom_and_utf8(data: bytes, max_bytes: int, max_depth: int, expected: Tuple[str, str]) -> None:
    assert judge(data, max_bytes, max_depth) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("", ("json.syntax", "")),
        (" \n\t\r ", ("json.syntax", "")),
        ("NaN", ("json.syntax", "")),
        ("[-Infinity]", ("json.syntax", "/0")),
        ("01", ("json.syntax", "")),
        ("1.", ("json.syntax", "")),
        ("{'a':1}", ("json.syntax", "")),
        ("[1 // c\n]", ("json.syntax", "")),
        ("[1,2,]", ("json.syntax", "")),
        ('{"a":1,}', ("json.syntax", "")),
        ('{"a":[1,{"b":01}]}', ("json.syntax", "/a/1/b")),
        ('{"a":"x\ny"}', ("json.syntax", "/a")),
        ('{"a":1 "b":2}', ("json.syntax", "")),
        ('{"x":{"a\\q":1}}', ("json.syntax", "/x")),
        ("[[1,2],[3,", ("json.syntax", "/1/1")),
        ('["é😀",+1]', ("json.syntax", "/1")),
        ('{"a" 1}', ("json.syntax", "/a")),
        ('{"a":}', ("json.syntax", "/a")),
        ("[1,\ufeff2]", ("json.syntax", "/1")),
        ("{} \u00a0", ("json.syntax", "")),
        ("{} x", ("json.trailing-data", "")),
        ('{"k":1} {"k":2}', ("json.trailing-data", "")),
        ('{"a":1,"a":2}', ("json.duplicate-key", "/a")),
        ('{"a":1,"\\u0061":2}', ("json.duplicate-key", "/a")),
        ('{"a/b":1,"a\\/b":2}', ("json.duplicate-key", "/a~1b")),
        ('{"😀":1,"\\ud83d\\ude00":2}', ("json.duplicate-key", "/😀")),
        ('{"x":{"y":[{"k":1},{"k":1,"k":2}]}}', ("json.duplicate-key", "/x/y/1/k")),
        ('{"":1,"":2}', ("json.duplicate-key", "/")),
        ('"\\ud800"', ("json.lone-surrogate", "")),
        ('["ok","a\\uDFFF"]', ("json.lone-surrogate", "/1")),
        ('{"x":{"\\ud800":1}}', ("json.lone-surrogate", "/x")),
        ('"\\ud800\\uZZZZ"', ("json.lone-surrogate", "")),
        # Runs of plain array elements (skipped one regex match each) end exactly where a problem starts.
        ('{"a":[1,"x",true,null,-0,0.5,01]}', ("json.syntax", "/a/6")),
        ('{"a":[1, "x" ,\n2,]}', ("json.syntax", "/a")),
        ('[0,1,2,"\\ud800"]', ("json.lone-surrogate", "/3")),
        ("[1,2,3,1e400]", ("json.number-range", "/3")),
        ("[1,2," + "9" * 400 + "]", ("json.number-range", "/2")),
        ("[1,2,3 4]", ("json.syntax", "")),
        ('{"a":[[1,2],[3,"é",1.],4]}', ("json.syntax", "/a/1/2")),
        ("[1,2,\u00a02]", ("json.syntax", "/2")),
        ('{"a":{"b":[1,2,{"c":1,"c":2}]}}', ("json.duplicate-key", "/a/b/2/c")),
        ('[1,2,"a\tb"]', ("json.syntax", "/2")),
        ("[" + "1," * 50 + "0" + "1" * 300 + "]", ("json.syntax", "/50")),
        ("1e400", ("json.number-range", "")),
        ('{"a":[0,1.8e308]}', ("json.number-range", "/a/1")),
        ("[" + "9" * 400 + "]", ("json.number-range", "/0")),
        # The first problem in the input wins.
        ('{"a":{"a":1,"a":2},"b":"\\ud800"}', ("json.duplicate-key", "/a/a")),
        ('{"a":1,"b":[1e999,"\\ud800"]}', ("json.number-range", "/b/0")),
        ('{"a":"\\ud800","a":1}', ("json.lone-surrogate", "/a")),
        ('[{"a":1,"a":2}', ("json.duplicate-key", "/0/a")),
        ("[1e999", ("json.number-range", "/0")),
        # Clean nested containers are skipped at C speed; troubled ones are scanned token by token.
        ('{"a":[' + "1," * 1000 + '1],"a":2}', ("json.duplicate-key", "/a")),
        ('[[1,2,{"x":1,"x":2}]]', ("json.duplicate-key", "/0/2/x")),
        ("[[1],[" + "9" * 400 + "]]", ("json.number-range", "/1/0")),
        ('{"m":' + "9" * 309 + "}", ("json.number-range", "/m")),
        ('[[1],["\\ud800"],[NaN]]', ("json.lone-surrogate", "/1/0")),
        ('[{"a":[-0,1.5,"[[[["]},{"b":[1e5,]}]', ("json.syntax", "/1/b")),
        ('{"a":' + "[" * 63 + "]" * 63 + ',"b":' + "[" * 64 + "]" * 64 + "}", ("json.max-depth", "/b" + "/0" * 63)),
    ],
)
def test_first_problem_and_pointer(text: str, expected: Tuple[str, str]) -> None:
    assert judge(text.encode("utf-8")) == expected


def test_long_integers_within_range_are_fine() -> None:
    result = parse_strict_json(("[1" + "0" * 308 + "]").encode(), BIG, 64)
    assert result.issue is None and result.value == [10**308]


def test_deep_nesting_never_raises() -> None:
    assert judge(b"[" * 100000) == ("json.max-depth", "/0" * 64)
    assert judge(b"[" * 100000 + b"]" * 100000) == ("json.max-depth", "/0" * 64)
    assert judge(b'{"a":' * 5000) == ("json.max-depth", "/a" * 64)


def _members(n: int) -> str:
    return ",".join(f'"k{i}":0' for i in range(n))


@pytest.mark.parametrize(
    "text, expected",
    [
        ('{"a":0,"b":0}', None),
        ('{"a":0,"b":0,"c":0}', ("json.max-members", "/c")),
        ('{"m":[{"a":0},{"a":0,"b":0,"\\u0063":0}]}', ("json.max-members", "/m/1/c")),
        # Every name of the text counts, a repeated one too: the count comes before the comparison.
        ('{"a":0,"b":0,"a":1}', ("json.max-members", "/a")),
        ('{"a":0,"a":1}', ("json.duplicate-key", "/a")),
        # A nested object that the scanner would skip at C speed is bounded too.
        ('{"x":[1],"m":{"n":{"a":0,"b":0,"c":0}}}', ("json.max-members", "/m/n/c")),
    ],
)
def test_max_members(text: str, expected: Optional[Tuple[str, str]]) -> None:
    parsed = parse_strict_json(text.encode(), BIG, 64, None, max_members=2)
    got = None if parsed.issue is None else (parsed.issue.rule, parsed.issue.pointer)
    assert got == expected


def test_max_members_default_is_the_table_limit() -> None:
    assert judge(f'{{"m":{{{_members(32768)}}}}}'.encode()) is None
    assert judge(f'{{"m":{{{_members(32769)}}}}}'.encode()) == ("json.max-members", "/m/k32768")
    # Past twice max_values' bound the scanner counts first; an object over the limit stops it too.
    assert judge(f'{{"m":{{{_members(300000)}}}}}'.encode(), 1 << 24) == ("json.max-members", "/m/k32768")
