"""The wire-version window (spec/wire-window.md) in the readers and the writer: version selection,
the outside-window refusal, each version judged by its own rules, closed windows, writing a version.

Versions come from the generated window (``WIRE_WINDOW``), never literals, so a bump needs no edit
here; the tests that rely on a rule difference between current and the oldest accepted version
find it in the generated plans and skip, saying why, when there is none.
"""

from __future__ import annotations

import json
from typing import Any, Dict

import pytest

from lifeloop_callback import (
    OUTSIDE_WINDOW_MESSAGE,
    OUTSIDE_WINDOW_RULE,
    WIRE_WINDOW,
    AcceptablePlacement,
    CallbackResponse,
    DispatchEnvelope,
    PayloadEnvelope,
    PlacementClass,
    ReceiptStatus,
    RequirementLevel,
    Warning,
    WireValidationError,
    check,
    decode,
    encode,
    from_json_value,
)
from lifeloop_callback._gen_window import WIRE_VERSION_RULES
from lifeloop_callback.codec import _object_from_json
from lifeloop_callback.fast_decode import fast_decode
from lifeloop_callback.validation import check_document, reader_window

from conftest import SAMPLE_PAYLOAD, SAMPLE_REQUEST, WIRE_VERSION

CURRENT = WIRE_WINDOW[0]
#: The oldest version of the default window (current itself when nothing is accepted).
OLDEST = WIRE_WINDOW[-1]
#: A version no reader of this SDK accepts.
OUTSIDE = "lifeloop.v0.2"
assert OUTSIDE not in WIRE_WINDOW
needs_accepted = pytest.mark.skipif(len(WIRE_WINDOW) < 2, reason="the window holds no accepted version")


def _listed(window: Any) -> str:
    return ", ".join(f"`{v}`" for v in window)


def envelope(version: str, payload_version: str = "") -> bytes:
    """A valid DispatchEnvelope of ``version`` (its request and payload in ``payload_version``, default the same)."""
    nested = payload_version or version
    doc = {
        "schema_version": version,
        "request": {**SAMPLE_REQUEST, "schema_version": nested},
        "payloads": [{**SAMPLE_PAYLOAD, "schema_version": nested}],
    }
    return json.dumps(doc).encode()


def response_doc(version: str, warning_message: str = "note") -> Dict[str, Any]:
    return {
        "schema_version": version,
        "status": "delivered",
        "client_payloads": [{**SAMPLE_PAYLOAD, "schema_version": version}],
        "warnings": [{"code": "w1", "message": warning_message}],
    }


def checks_warning_message(version: str) -> bool:
    """Whether ``version``'s rules refuse an empty ``Warning.message`` in a CallbackResponse."""
    return any(
        step.check == "non_empty_string" and step.at == "/warnings/*" and step.field == "message"
        for step in WIRE_VERSION_RULES[version].rule_plans["CallbackResponse"]
    )


def test_current_is_first_and_the_outside_rule_is_the_spec_one() -> None:
    assert CURRENT == WIRE_VERSION
    assert OUTSIDE_WINDOW_RULE == "schema-version-current"
    assert set(WIRE_VERSION_RULES) == set(WIRE_WINDOW)
    for version, rules in WIRE_VERSION_RULES.items():
        assert rules.version == version
        expected = {s.expected for plan in rules.rule_plans.values() for s in plan if s.check == "equals_wire_version"}
        assert expected == {version}, "every version's plans expect that version"


@pytest.mark.parametrize("version", WIRE_WINDOW)
def test_every_version_of_the_window_is_read(version: str) -> None:
    data = envelope(version)
    assert check(DispatchEnvelope, data) == ()
    decoded = decode(DispatchEnvelope, data)
    assert decoded.schema_version == version and decoded.payloads[0].schema_version == version
    # The fast path proves it (not only the exact path), and builds what the exact path builds.
    fast = fast_decode("DispatchEnvelope", data, len(data), 64)
    value, issues = check_document("DispatchEnvelope", data, len(data), 64)
    assert issues == [] and fast == _object_from_json("DispatchEnvelope", value)


@pytest.mark.parametrize("closed", [(v,) for v in WIRE_WINDOW])
def test_a_closed_window_refuses_the_other_versions(closed: Any) -> None:
    for version in WIRE_WINDOW:
        issues = check(DispatchEnvelope, envelope(version), window=closed)
        if version in closed:
            assert issues == ()
            continue
        assert [(i.rule, i.pointer) for i in issues] == [(OUTSIDE_WINDOW_RULE, "/schema_version")]
        assert issues[0].message == OUTSIDE_WINDOW_MESSAGE.format(value=version, window=_listed(closed))
        with pytest.raises(WireValidationError) as raised:
            decode(DispatchEnvelope, envelope(version), window=closed[0])
        assert raised.value.rule == OUTSIDE_WINDOW_RULE


def test_outside_the_window_is_one_issue_with_the_window_in_the_message() -> None:
    issues = check(DispatchEnvelope, envelope(OUTSIDE))
    assert len(issues) == 1
    assert (issues[0].rule, issues[0].pointer) == (OUTSIDE_WINDOW_RULE, "/schema_version")
    # `{window}`: the default window newest first, each version in backticks, joined by ", ".
    assert issues[0].message == OUTSIDE_WINDOW_MESSAGE.replace("{value}", OUTSIDE).replace(
        "{window}", _listed(WIRE_WINDOW)
    )
    assert OUTSIDE in issues[0].message and _listed(WIRE_WINDOW) in issues[0].message


def test_the_schema_layer_comes_before_the_outside_window_refusal() -> None:
    doc = json.loads(envelope(OUTSIDE))
    del doc["request"]
    issues = check(DispatchEnvelope, json.dumps(doc).encode())
    assert [(i.rule, i.pointer) for i in issues] == [("schema.required", "/request")]
    # A non-string schema_version is the schema layer's, as before the window.
    doc = json.loads(envelope(CURRENT))
    doc["schema_version"] = 4
    assert [(i.rule, i.pointer) for i in check(DispatchEnvelope, json.dumps(doc).encode())] == [
        ("schema.type", "/schema_version")
    ]


@needs_accepted
def test_nested_schema_version_must_equal_the_root() -> None:
    for root, nested in ((OLDEST, CURRENT), (CURRENT, OLDEST)):
        issues = check(DispatchEnvelope, envelope(root, nested))
        assert issues, f"{root} root with {nested} inside"
        assert (issues[0].rule, issues[0].pointer) == ("schema-version-current", "/request/schema_version")
        assert issues[0].message == f"schema_version mismatch: expected `{root}`, found `{nested}`"


@needs_accepted
def test_each_version_is_judged_by_its_own_rules() -> None:
    if checks_warning_message(OLDEST) or not checks_warning_message(CURRENT):
        pytest.skip(f"no Warning.message difference between {OLDEST} and {CURRENT}")
    older = json.dumps(response_doc(OLDEST, warning_message="")).encode()
    newer = json.dumps(response_doc(CURRENT, warning_message="")).encode()
    assert check(CallbackResponse, older) == ()
    assert decode(CallbackResponse, older).warnings[0].message == ""
    issues = check(CallbackResponse, newer)
    assert (issues[0].rule, issues[0].pointer) == ("non-empty-identifier", "/warnings/0/message")
    assert from_json_value(CallbackResponse, response_doc(OLDEST, warning_message="")).schema_version == OLDEST
    with pytest.raises(WireValidationError):
        from_json_value(CallbackResponse, response_doc(OLDEST, warning_message=""), window=CURRENT)


def test_reader_window_checks_and_orders() -> None:
    assert reader_window(None) == WIRE_WINDOW
    assert reader_window(CURRENT) == (CURRENT,)
    assert reader_window(list(reversed(WIRE_WINDOW)) + [CURRENT]) == WIRE_WINDOW
    with pytest.raises(ValueError, match="not a version"):
        reader_window((OUTSIDE,))
    with pytest.raises(ValueError, match="empty"):
        reader_window(())
    with pytest.raises(TypeError):
        reader_window((1,))  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        check(DispatchEnvelope, envelope(CURRENT), window=(OUTSIDE,))


def sample_payload() -> PayloadEnvelope:
    return PayloadEnvelope(
        payload_id="p1",
        client_id="ccd",
        payload_kind="k",
        format="text",
        content_encoding="utf8",
        body="hello",
        byte_size=5,
        acceptable_placements=(
            AcceptablePlacement(
                placement=PlacementClass.DEVELOPER_EQUIVALENT_FRAME, requirement=RequirementLevel.REQUIRED
            ),
        ),
    )


@pytest.mark.parametrize("version", WIRE_WINDOW)
def test_encode_writes_a_version_root_and_nested(version: str) -> None:
    response = CallbackResponse(status=ReceiptStatus.DELIVERED, client_payloads=(sample_payload(),))
    data = encode(response, wire_version=version)
    written = json.loads(data)
    assert written["schema_version"] == version and written["client_payloads"][0]["schema_version"] == version
    assert response.schema_version == CURRENT, "the value itself is not changed"
    assert decode(CallbackResponse, data, window=(version,)).schema_version == version


@needs_accepted
def test_encode_refuses_a_nested_document_of_another_version() -> None:
    nested = PayloadEnvelope(**{**sample_payload().__dict__, "schema_version": OLDEST})
    response = CallbackResponse(status=ReceiptStatus.DELIVERED, client_payloads=(nested,))
    with pytest.raises(WireValidationError) as raised:
        encode(response, wire_version=CURRENT)
    assert (raised.value.rule, raised.value.issues[0].pointer) == (
        "schema-version-current",
        "/client_payloads/0/schema_version",
    )
    # Without wire_version the document is judged by the version it carries (the root's: current).
    with pytest.raises(WireValidationError):
        encode(response)
    # A value written in an explicit other version is judged, never rewritten.
    older = CallbackResponse(status=ReceiptStatus.DELIVERED, schema_version=OLDEST, warnings=(Warning("w", "x"),))
    with pytest.raises(WireValidationError) as raised:
        encode(older, wire_version=CURRENT)
    assert raised.value.rule == OUTSIDE_WINDOW_RULE
    assert json.loads(encode(older))["schema_version"] == OLDEST
