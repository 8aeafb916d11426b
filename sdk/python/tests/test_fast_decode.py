"""The fast accept path (lifeloop_callback.fast_decode) never accepts what the exact layers reject.

For every shared vector and for deterministic byte-level mutants of the valid ones, and for the
hand-made cases that aim at each shortcut of the fast path (duplicate members hidden by the colon
count, escapes, ``-0``, non-finite numbers, depth, limits), the fast path either declines
(``None``) or returns exactly the object the exact path builds, and the exact path accepts.
"""

from __future__ import annotations

import base64
import json
import random
from typing import Any, Dict, List, Optional

import pytest

from lifeloop_callback import WIRE_CLASSES, check, decode
from lifeloop_callback._gen_spec import LIMIT_MAX_DEPTH, LIMIT_MAX_REQUEST_BYTES
from lifeloop_callback.codec import _object_from_json
from lifeloop_callback.fast_decode import fast_decode
from lifeloop_callback.validation import check_document

from conftest import SAMPLE_PAYLOAD, SAMPLE_REQUEST, VECTORS_DIR, WIRE_VERSION


def _vectors() -> List[Dict[str, Any]]:
    listed = json.loads((VECTORS_DIR / "index.json").read_text("utf-8"))["vectors"]
    return [json.loads((VECTORS_DIR / entry["path"]).read_text("utf-8")) for entry in listed]


VECTORS = _vectors()


def _agrees(
    type_name: str, data: bytes, max_bytes: int = LIMIT_MAX_REQUEST_BYTES, max_depth: int = LIMIT_MAX_DEPTH
) -> Optional[Any]:
    """Assert the fast path agrees with the exact path on ``data``; return the fast result."""
    fast = fast_decode(type_name, data, max_bytes, max_depth)
    value, issues = check_document(type_name, data, max_bytes, max_depth)
    if fast is not None:
        assert issues == [], f"fast path accepted what the exact path rejects: {issues[0]} in {data[:200]!r}"
        assert fast == _object_from_json(type_name, value)
        assert type(fast) is WIRE_CLASSES[type_name]
    return fast


def _mutants(data: bytes, rng: random.Random, count: int) -> List[bytes]:
    """Deterministic byte-level mutants: a byte deleted, duplicated or replaced by a JSON-ish one,
    or a span repeated (which often duplicates a member)."""
    alphabet = b'{}[]:,"\\-0123456789.eE ntfu\x00\xff'
    out = []
    for _ in range(count):
        b = bytearray(data)
        i = rng.randrange(len(b))
        op = rng.randrange(4)
        if op == 0:
            del b[i]
        elif op == 1:
            b.insert(i, b[i])
        elif op == 2:
            b[i] = alphabet[rng.randrange(len(alphabet))]
        else:
            j = min(len(b), i + rng.randrange(1, 40))
            b[i:i] = b[i:j]
        out.append(bytes(b))
    return out


@pytest.mark.parametrize("case", VECTORS, ids=[case["id"] for case in VECTORS])
def test_vector_and_its_mutants(case: Dict[str, Any]) -> None:
    data = base64.b64decode(case["document_base64"])
    fast = _agrees(case["type"], data)
    if case["expect"] == "invalid":
        assert fast is None
        return
    rng = random.Random(case["id"])
    for mutant in _mutants(data, rng, 40):
        _agrees(case["type"], mutant)


def test_the_fast_path_accepts_plain_valid_documents() -> None:
    """It is really used: compact documents without escapes or -0 take it."""
    request = json.dumps(SAMPLE_REQUEST, separators=(",", ":"), ensure_ascii=False).encode()
    payload = json.dumps(SAMPLE_PAYLOAD, separators=(",", ":"), ensure_ascii=False).encode()
    envelope = json.dumps(
        {"schema_version": WIRE_VERSION, "request": SAMPLE_REQUEST, "payloads": [SAMPLE_PAYLOAD]}
    ).encode()
    assert _agrees("CallbackRequest", request) is not None
    assert _agrees("PayloadEnvelope", payload) is not None
    assert _agrees("DispatchEnvelope", envelope) is not None
    accepted = [
        case
        for case in VECTORS
        if case["expect"] == "valid" and _agrees(case["type"], base64.b64decode(case["document_base64"])) is not None
    ]
    assert len(accepted) > 10


def _request(**metadata: Any) -> Dict[str, Any]:
    return {**SAMPLE_REQUEST, "metadata": metadata}


def _text(doc: Any) -> str:
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False)


@pytest.mark.parametrize(
    "text",
    [
        # duplicates, also where the colon count could be fooled by colons inside strings
        _text(SAMPLE_REQUEST)[:-1] + ',"event_id":"ev-2"}',
        _text(_request(a="x:y"))[:-2] + '},"metadata":{"a":"x:y"}}',
        _text(_request(a={"k": "v:w"}))[:-3] + ',"k":1}}}',
        _text(_request(a="1"))[:-2] + ',"a":"::"}}',
        _text(_request(**{"k:1": 1}))[:-2] + ',"k:1":2}}',
        # a colon written as an escape, with a duplicate to balance the count
        _text(_request(a="x"))[:-2] + ',"b":"\\u003a","b":1}}',
        _text(_request(a="x"))[:-2] + ',"b":"\\u003A","b":1}}',
        # whitespace around colons and a duplicate
        _text(SAMPLE_REQUEST)[:-1] + ' , "event_id" : "ev-2" }',
        # lone surrogates
        _text(_request(a="x")).replace('"x"', '"\\ud800"'),
        _text(_request(a="x")).replace('"x"', '"\\uDFFF"'),
        _text(SAMPLE_REQUEST).replace('"ev-1"', '"ev-\\ud83d"'),
        # numbers
        _text(_request(a="x")).replace('"x"', "NaN"),
        _text(_request(a="x")).replace('"x"', "-Infinity"),
        _text(_request(a="x")).replace('"x"', "1e400"),
        _text(_request(a="x")).replace('"x"', "9" * 400),
        _text(_request(a="x")).replace('"x"', "[-0]"),
        _text(_request(a="x")).replace('"x"', "-0"),
        _text({**SAMPLE_REQUEST, "sequence": 0}).replace('"sequence":0', '"sequence":-0'),
        _text({**SAMPLE_REQUEST, "sequence": 0}).replace('"sequence":0', '"sequence": -0'),
        _text({**SAMPLE_REQUEST, "sequence": 3}).replace('"sequence":3', '"sequence":3.0'),
        _text({**SAMPLE_REQUEST, "sequence": 3}).replace('"sequence":3', '"sequence":3e0'),
        _text({**SAMPLE_REQUEST, "sequence": 3}).replace('"sequence":3', '"sequence":true'),
        _text({**SAMPLE_REQUEST, "sequence": 2**53}),
        # depth (max_depth 64: the request is level 1, metadata 2)
        _text(_request(a=json.loads("[" * 62 + "]" * 62))),
        _text(_request(a=json.loads("[" * 63 + "]" * 63))),
        _text(_request(a=json.loads('{"b":' * 62 + "1" + "}" * 62))),
        # schema and rules
        _text({**SAMPLE_REQUEST, "event_id": ""}),
        _text({**SAMPLE_REQUEST, "unknown": 1}),
        _text({**SAMPLE_REQUEST, "frame_context": None}),
        _text({**SAMPLE_REQUEST, "metadata": None}),
        _text({**SAMPLE_REQUEST, "payload_refs": None}),
        _text(
            {**SAMPLE_REQUEST, "event": "frame.opened", "frame_context": {"frame_id": "f", "frame_class": "subcall"}}
        ),
        _text({**SAMPLE_REQUEST, "event": "receipt.emitted", "idempotency_key": "k"}),
        _text({**SAMPLE_REQUEST, "schema_version": "lifeloop.v0.2"}),
        _text({**SAMPLE_REQUEST, "event_id": "x" * 513}),
        _text({**SAMPLE_REQUEST, "event": "frame.bogus"}),
        _text({**SAMPLE_REQUEST, "event": ["frame.opening"]}),
        # fine, and fine in both paths
        _text(_request(a="x:y", b={"c": [1, 2.5, "d:e", None, True]}, **{"k:1": -1})),
        _text(_request(a=-0.0, b=1e308, c=-(2**60))),
        " \n" + _text(SAMPLE_REQUEST) + "\r\n",
        _text(SAMPLE_REQUEST).replace(":", " : "),
        _text({**SAMPLE_REQUEST, "event_id": "run-0", "adapter_id": "a:-0"}),
    ],
)
def test_hand_made_cases_agree(text: str) -> None:
    _agrees("CallbackRequest", text.encode("utf-8"))


def test_declines_where_the_exact_path_reports() -> None:
    ok = _text(SAMPLE_REQUEST).encode()
    assert fast_decode("CallbackRequest", b"\xef\xbb\xbf" + ok, LIMIT_MAX_REQUEST_BYTES, LIMIT_MAX_DEPTH) is None
    assert fast_decode("CallbackRequest", ok, len(ok) - 1, LIMIT_MAX_DEPTH) is None
    assert fast_decode("CallbackRequest", ok, len(ok), LIMIT_MAX_DEPTH) is not None
    nested = _text(_request(a=[[1]])).encode()
    assert fast_decode("CallbackRequest", nested, LIMIT_MAX_REQUEST_BYTES, 3) is None
    assert fast_decode("CallbackRequest", nested, LIMIT_MAX_REQUEST_BYTES, 4) is not None
    assert (
        fast_decode("CallbackRequest", ok.replace(b"ev-1", b"ev-\xff"), LIMIT_MAX_REQUEST_BYTES, LIMIT_MAX_DEPTH)
        is None
    )
    assert fast_decode("CallbackRequest", bytearray(ok), LIMIT_MAX_REQUEST_BYTES, LIMIT_MAX_DEPTH) is None  # type: ignore[arg-type]


def test_decode_and_check_give_the_exact_verdict_either_way() -> None:
    """decode/check run the fast path first; their results do not depend on which path answered."""
    cls = WIRE_CLASSES["CallbackRequest"]
    for text in (
        _text(SAMPLE_REQUEST),
        _text(SAMPLE_REQUEST).replace(":", " : "),
        _text({**SAMPLE_REQUEST, "sequence": -0.0}),
    ):
        data = text.encode()
        value, issues = check_document("CallbackRequest", data, LIMIT_MAX_REQUEST_BYTES, LIMIT_MAX_DEPTH)
        assert check(cls, data) == tuple(issues)
        if not issues:
            assert decode(cls, data) == _object_from_json("CallbackRequest", value)
