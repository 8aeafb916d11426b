"""Decode/encode of the generated SDK: typed values, presence on output, and strict errors."""

from __future__ import annotations

import json
import math
import sys

import pytest

from lifeloop_callback import (
    FAILURE_RETRY_DEFAULTS,
    FAILURE_VARIANTS,
    LIMITS,
    SPEC_TABLES,
    WIRE_VERSION,
    AcceptablePlacement,
    CallbackRequest,
    CallbackResponse,
    DispatchEnvelope,
    FailureClass,
    FrameClass,
    FrameContext,
    IntegrationMode,
    LifecycleEventKind,
    LifecycleReceipt,
    PayloadEnvelope,
    PlacementClass,
    ReceiptStatus,
    RequirementLevel,
    RetryClass,
    Warning,
    WireValidationError,
    check,
    decode,
    encode,
    from_json_value,
    to_json_value,
)

from conftest import SAMPLE_PAYLOAD, SAMPLE_REQUEST

REQUEST = {
    **SAMPLE_REQUEST,
    "harness_session_id": "s1",
    "payload_refs": [{"payload_id": "p1", "payload_kind": "k", "byte_size": 5}],
    "sequence": 3,
    "metadata": {"trace": {"id": [1, 2.5, None, True, "é"]}},
}
PAYLOAD = {
    **SAMPLE_PAYLOAD,
    "body": "héllo",
    "byte_size": 6,
    "acceptable_placements": [{"placement": "pre_prompt_frame", "requirement": "required"}],
}


def envelope_bytes(**request_changes: object) -> bytes:
    request = {**REQUEST, **request_changes}
    doc = {"schema_version": WIRE_VERSION, "request": request, "payloads": [PAYLOAD]}
    return json.dumps(doc, ensure_ascii=False).encode("utf-8")


def issue_of(error: pytest.ExceptionInfo[WireValidationError]) -> tuple:
    return error.value.rule, error.value.pointer


def test_decode_gives_typed_values() -> None:
    env = decode(DispatchEnvelope, envelope_bytes())
    assert env.schema_version == WIRE_VERSION
    request = env.request
    assert request.event is LifecycleEventKind.FRAME_OPENING
    assert request.event == "frame.opening"
    assert request.integration_mode is IntegrationMode.NATIVE_HOOK
    assert request.frame_context == FrameContext(frame_id="f1", frame_class=FrameClass.TOP_LEVEL)
    assert request.frame_context is not None and request.frame_context.parent_frame_id is None
    assert request.payload_refs[0].byte_size == 5 and request.payload_refs[0].content_digest is None
    assert request.sequence == 3 and isinstance(request.sequence, int)
    assert request.harness_run_id is None and request.idempotency_key is None
    assert request.metadata == {"trace": {"id": [1, 2.5, None, True, "é"]}}
    payload = env.payloads[0]
    assert payload.body == "héllo" and payload.body_ref is None
    assert payload.acceptable_placements == (
        AcceptablePlacement(placement=PlacementClass.PRE_PROMPT_FRAME, requirement=RequirementLevel.REQUIRED),
    )


def test_round_trip_is_stable() -> None:
    env = decode(DispatchEnvelope, envelope_bytes())
    data = encode(env)
    assert decode(DispatchEnvelope, data) == env
    assert encode(decode(DispatchEnvelope, data)) == data
    assert "héllo" in data.decode("utf-8")  # not ASCII-escaped
    assert b'", "' not in data and b'": ' not in data  # compact separators


def test_response_presence_matches_the_reference() -> None:
    assert encode(CallbackResponse(status=ReceiptStatus.DELIVERED)) == (
        b'{"schema_version":"'
        + WIRE_VERSION.encode()
        + b'","status":"delivered","failure_class":null,"retry_class":null}'
    )
    failed = CallbackResponse(
        status=ReceiptStatus.FAILED,
        failure_class=FailureClass.TIMEOUT,
        retry_class=FAILURE_RETRY_DEFAULTS[FailureClass.TIMEOUT],
        receipt_refs=("r1",),
        warnings=(Warning(code="slow", message="took long"),),
        metadata={"k": 1},
    )
    assert json.loads(encode(failed)) == {
        "schema_version": WIRE_VERSION,
        "status": "failed",
        "receipt_refs": ["r1"],
        "warnings": [{"code": "slow", "message": "took long"}],
        "failure_class": "timeout",
        "retry_class": "safe_retry",
        "metadata": {"k": 1},
    }
    # Key order is schema order.
    assert list(json.loads(encode(failed))) == [
        "schema_version",
        "status",
        "receipt_refs",
        "warnings",
        "failure_class",
        "retry_class",
        "metadata",
    ]


def test_optional_fields_are_omitted_and_required_nullable_written_as_null() -> None:
    receipt = LifecycleReceipt(
        receipt_id="r1",
        client_id="c",
        adapter_id="a",
        invocation_id="i",
        event=LifecycleEventKind.SESSION_STARTED,
        event_id="e",
        integration_mode=IntegrationMode.MANUAL_SKILL,
        status=ReceiptStatus.OBSERVED,
        at_epoch_s=1700000000,
    )
    written = json.loads(encode(receipt))
    for key in ("idempotency_key", "sequence", "parent_receipt_id", "failure_class", "retry_class"):
        assert key in written and written[key] is None
    for key in (
        "harness_session_id",
        "harness_run_id",
        "harness_task_id",
        "payload_receipts",
        "telemetry_summary",
        "warnings",
    ):
        assert key not in written
    request = CallbackRequest(
        event=LifecycleEventKind.SESSION_STARTING,
        event_id="e",
        adapter_id="a",
        adapter_version="1",
        integration_mode=IntegrationMode.MANUAL_SKILL,
        invocation_id="i",
    )
    assert json.loads(encode(request)) == {
        "schema_version": WIRE_VERSION,
        "event": "session.starting",
        "event_id": "e",
        "adapter_id": "a",
        "adapter_version": "1",
        "integration_mode": "manual_skill",
        "invocation_id": "i",
    }


def test_null_and_absent_both_mean_none_on_input() -> None:
    doc = json.loads(envelope_bytes())
    doc["request"]["harness_run_id"] = None
    doc["request"]["frame_context"]["parent_frame_id"] = None
    env = decode(DispatchEnvelope, json.dumps(doc).encode())
    assert env.request.harness_run_id is None
    response = decode(CallbackResponse, b'{"schema_version":"' + WIRE_VERSION.encode() + b'","status":"observed"}')
    assert response.failure_class is None and response.warnings == () and response.metadata == {}


def test_collections_reject_null() -> None:
    with pytest.raises(WireValidationError) as error:
        decode(DispatchEnvelope, envelope_bytes(payload_refs=None))
    assert issue_of(error) == ("schema.type", "/request/payload_refs")


def test_encode_validates() -> None:
    with pytest.raises(WireValidationError) as error:
        encode(CallbackResponse(status=ReceiptStatus.FAILED))
    assert issue_of(error) == ("failed-requires-failure-class", "/failure_class")
    assert isinstance(error.value, ValueError)
    assert error.value.type_name == "CallbackResponse"
    with pytest.raises(WireValidationError) as error:
        encode(CallbackResponse(status=ReceiptStatus.DELIVERED, failure_class=FailureClass.TIMEOUT))
    assert issue_of(error) == ("failure-class-only-on-failed", "/failure_class")
    with pytest.raises(WireValidationError) as error:
        encode(CallbackResponse(status=ReceiptStatus.DELIVERED, schema_version="lifeloop.v0.2"))
    assert issue_of(error) == ("schema-version-current", "/schema_version")
    with pytest.raises(WireValidationError) as error:
        encode(CallbackResponse(status=ReceiptStatus.DELIVERED, receipt_refs=("ok", "")))
    assert issue_of(error) == ("non-empty-identifier", "/receipt_refs/1")


def test_encode_rejects_what_bytes_could_not_carry() -> None:
    cases = [
        ({"x": math.nan}, "json.number-range", "/metadata/x"),
        ({"x": [math.inf]}, "json.number-range", "/metadata/x/0"),
        ({"x": "\ud800"}, "json.lone-surrogate", "/metadata/x"),
        ({"x": {1, 2}}, "schema.type", "/metadata/x"),
        ({"a/b": {3: 1}}, "schema.type", "/metadata/a~1b"),
        # No reader can take an integer beyond the finite doubles (the TypeScript host: json.number-range).
        ({"x": 10**400}, "json.number-range", "/metadata/x"),
        ({"x": [1, {"y": -(2**1024)}]}, "json.number-range", "/metadata/x/1/y"),
        ({"x": 10**5000}, "json.number-range", "/metadata/x"),
    ]
    for metadata, rule, pointer in cases:
        with pytest.raises(WireValidationError) as error:
            encode(CallbackResponse(status=ReceiptStatus.OBSERVED, metadata=metadata))  # type: ignore[arg-type]
        assert issue_of(error) == (rule, pointer), metadata
    # The largest integers that still round to a finite double are fine.
    for edge in (int(sys.float_info.max), -int(sys.float_info.max), int(sys.float_info.max) + 2**969 - 1):
        written = encode(CallbackResponse(status=ReceiptStatus.OBSERVED, metadata={"x": edge}))
        assert decode(CallbackResponse, written).metadata["x"] == edge
    deep: object = 1
    for _ in range(LIMITS["max_depth"]):
        deep = [deep]
    with pytest.raises(WireValidationError) as error:
        encode(CallbackResponse(status=ReceiptStatus.OBSERVED, metadata={"deep": deep}))  # type: ignore[dict-item]
    assert error.value.rule == "json.max-depth"


def test_integers_are_integers() -> None:
    env = decode(DispatchEnvelope, envelope_bytes())
    payload = env.payloads[0]
    for bad in (6.0, True, -1, 2**53):
        with pytest.raises(WireValidationError) as error:
            encode(PayloadEnvelope(**{**vars(payload), "byte_size": bad}))
        expected = {6.0: "schema.type", True: "schema.type", -1: "schema.minimum", 2**53: "schema.maximum"}[bad]
        assert issue_of(error) == (expected, "/byte_size"), bad
    # Written as 1.0, 1e2 or -0 on the wire: schema.type; inside an open map: fine.
    for lexeme in ("3.0", "3e0", "-0", "0.0"):
        text = envelope_bytes().decode().replace('"sequence": 3', f'"sequence": {lexeme}')
        with pytest.raises(WireValidationError) as error:
            decode(DispatchEnvelope, text.encode())
        assert issue_of(error) == ("schema.type", "/request/sequence"), lexeme
    text = envelope_bytes().decode().replace('"trace"', '"n": -0, "f": 1e2, "trace"')
    assert decode(DispatchEnvelope, text.encode()).request.metadata["f"] == 100.0


def test_schema_errors_come_before_integer_lexemes_and_rules() -> None:
    text = envelope_bytes().decode().replace('"sequence": 3', '"sequence": 3.0').replace('"event_id": "ev-1",', "")
    with pytest.raises(WireValidationError) as error:
        decode(DispatchEnvelope, text.encode())
    assert issue_of(error) == ("schema.required", "/request/event_id")


def test_unknown_members_are_reported_in_javascript_key_order() -> None:
    base = '{"schema_version":"' + WIRE_VERSION + '","status":"observed",'
    cases = [
        ('"zz":1,"9":1,"10":1}', "/9"),
        ('"zz":1,"yy":1}', "/zz"),
        ('"01":1,"4294967295":1,"4294967294":1}', "/4294967294"),
        ('"a/b":1}', "/a~1b"),
        ('"__proto__":{}}', "/__proto__"),
    ]
    for tail, pointer in cases:
        issues = check(CallbackResponse, (base + tail).encode())
        assert (issues[0].rule, issues[0].pointer) == ("schema.additional-properties", pointer), tail


def test_string_length_counts_code_points() -> None:
    emoji = "😀" * 512
    ok = json.dumps({**REQUEST, "event_id": emoji}, ensure_ascii=False).encode()
    assert check(CallbackRequest, ok) == ()
    too_long = json.dumps({**REQUEST, "event_id": emoji + "a"}, ensure_ascii=False).encode()
    assert check(CallbackRequest, too_long)[0].rule == "schema.max-length"


def test_payload_rules() -> None:
    cases = [
        ({"body": None}, "payload-body-exactly-one", ""),
        ({"body_ref": "ref"}, "payload-body-exactly-one", "/body_ref"),
        ({"byte_size": 5}, "payload-body-byte-size", "/body"),
        ({"acceptable_placements": []}, "payload-placements-non-empty", "/acceptable_placements"),
        ({"client_id": ""}, "non-empty-identifier", "/client_id"),
    ]
    for change, rule, pointer in cases:
        issues = check(PayloadEnvelope, json.dumps({**PAYLOAD, **change}).encode())
        assert (issues[0].rule, issues[0].pointer) == (rule, pointer), change


def test_request_rules() -> None:
    doc = {k: v for k, v in REQUEST.items() if k != "frame_context"}
    issues = check(CallbackRequest, json.dumps(doc).encode())
    assert (issues[0].rule, issues[0].pointer) == ("frame-event-requires-frame-context", "/frame_context")
    doc = {**REQUEST, "event": "receipt.emitted", "idempotency_key": "k"}
    issues = check(CallbackRequest, json.dumps(doc).encode())
    assert (issues[0].rule, issues[0].pointer) == ("receipt-emitted-no-idempotency-key", "/idempotency_key")
    doc = {**REQUEST, "frame_context": {"frame_id": "f", "frame_class": "subcall"}}
    issues = check(CallbackRequest, json.dumps(doc).encode())
    assert (issues[0].rule, issues[0].pointer) == (
        "frame-context-subcall-requires-parent",
        "/frame_context/parent_frame_id",
    )


def test_from_json_value_and_to_json_value() -> None:
    value = from_json_value(CallbackRequest, dict(REQUEST))
    assert to_json_value(value)["event"] == "frame.opening"
    assert to_json_value(value) == {k: v for k, v in REQUEST.items()}
    with pytest.raises(WireValidationError) as error:
        from_json_value(CallbackRequest, {**REQUEST, "sequence": 2.0})
    assert issue_of(error) == ("schema.type", "/sequence")
    with pytest.raises(TypeError):
        decode(dict, b"{}")


def test_enums_and_tables() -> None:
    assert FailureClass("invalid_request") is FailureClass.INVALID_REQUEST
    assert FAILURE_RETRY_DEFAULTS[FailureClass.INVALID_REQUEST] is RetryClass.DO_NOT_RETRY
    assert FAILURE_RETRY_DEFAULTS["internal_error"] == "retry_after_reread"  # type: ignore[index]
    assert set(FAILURE_RETRY_DEFAULTS) == set(FailureClass)
    assert LIMITS["max_request_bytes"] == 16777216
    assert {v.variant: v.failure_class for v in FAILURE_VARIANTS}["handler_threw"] is FailureClass.INTERNAL_ERROR
    assert {
        "event-vocabulary",
        "failure-retry-defaults",
        "subprocess-failure-mapping",
        "limits",
        "client-initiated-commands",
        "harness-hook-mapping",
        "wire-version",
    } <= set(SPEC_TABLES)
    assert SPEC_TABLES["wire-version"]["current"] == WIRE_VERSION  # type: ignore[index, call-overload]


def test_decode_honours_limits() -> None:
    data = envelope_bytes()
    with pytest.raises(WireValidationError) as error:
        decode(DispatchEnvelope, data, max_bytes=len(data) - 1)
    assert issue_of(error) == ("json.max-bytes", "")
    with pytest.raises(WireValidationError) as error:
        decode(DispatchEnvelope, data, max_depth=3)
    assert issue_of(error) == ("json.max-depth", "/request/payload_refs/0")


def test_encode_refuses_a_document_over_max_values() -> None:
    # What encode writes, every reader decodes: exactly limits.max_values values are written, one
    # more is refused with the rule and pointer decoding its bytes would give (json.max-values).
    limit = LIMITS["max_values"]

    def response(n: int) -> CallbackResponse:
        return CallbackResponse(schema_version=WIRE_VERSION, status=ReceiptStatus.OBSERVED, metadata={"a": [None] * n})

    # The document's own values besides the array's elements: the root, its members (the map among
    # them) and the array.
    own = 1 + len(json.loads(encode(response(0)))) + 1
    assert decode(CallbackResponse, encode(response(limit - own))) == response(limit - own)
    with pytest.raises(WireValidationError) as error:
        encode(response(limit - own + 1))
    text = json.dumps(to_json_value(response(limit - own + 1)), separators=(",", ":")).encode()
    with pytest.raises(WireValidationError) as decoded:
        decode(CallbackResponse, text)
    assert issue_of(error) == issue_of(decoded)
    assert issue_of(error)[0] == "json.max-values"


def test_encode_refuses_an_open_map_over_max_object_members() -> None:
    # What encode writes, every reader decodes: a map over limits.max_object_members is refused
    # here with the rule and pointer decoding its bytes would give (json.max-members).
    limit = LIMITS["max_object_members"]
    at_limit = CallbackResponse(
        schema_version=WIRE_VERSION, status=ReceiptStatus.OBSERVED, metadata={f"k{i}": 0 for i in range(limit)}
    )
    assert decode(CallbackResponse, encode(at_limit)) == at_limit
    over = CallbackResponse(
        schema_version=WIRE_VERSION, status=ReceiptStatus.OBSERVED, metadata={f"k{i}": 0 for i in range(limit + 1)}
    )
    with pytest.raises(WireValidationError) as error:
        encode(over)
    assert issue_of(error) == ("json.max-members", f"/metadata/k{limit}")
    text = json.dumps(to_json_value(over), separators=(",", ":")).encode()
    with pytest.raises(WireValidationError) as decoded:
        decode(CallbackResponse, text)
    assert issue_of(decoded) == issue_of(error)
    # Nested deeper in the map, and through from_json_value, the same.
    with pytest.raises(WireValidationError) as nested:
        from_json_value(
            CallbackResponse,
            {
                "schema_version": WIRE_VERSION,
                "status": "observed",
                "metadata": {"a": [{f"k{i}": 0 for i in range(limit + 1)}]},
            },
        )
    assert issue_of(nested) == ("json.max-members", f"/metadata/a/0/k{limit}")
