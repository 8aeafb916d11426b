"""The client runner: real subprocesses (the python-echo fixture, small handler scripts) and serve_io."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest

from lifeloop_callback import (
    CallbackRequest,
    CallbackResponse,
    FailureClass,
    PayloadEnvelope,
    ReceiptStatus,
    RetryClass,
    decode,
    respond,
    serve_io,
)

from conftest import ECHO_CLIENT, SAMPLE_PAYLOAD, SAMPLE_REQUEST, WIRE_VERSION, sdk_env

REQUEST: Dict[str, Any] = {k: v for k, v in SAMPLE_REQUEST.items() if k != "frame_context"}
REQUEST["event"] = "session.started"
PAYLOAD: Dict[str, Any] = SAMPLE_PAYLOAD
TIMEOUT_S = 30


def envelope(payloads: Tuple[Dict[str, Any], ...] = (), **changes: Any) -> bytes:
    doc: Dict[str, Any] = {"schema_version": WIRE_VERSION, "request": {**REQUEST, **changes}}
    if payloads:
        doc["payloads"] = list(payloads)
    return json.dumps(doc).encode()


def run_client(argv: List[str], stdin: bytes) -> Tuple[int, CallbackResponse, bytes, str]:
    """Run a client to completion; the stdout must be exactly one valid CallbackResponse line."""
    done = subprocess.run(argv, input=stdin, capture_output=True, timeout=TIMEOUT_S, env=sdk_env(), check=False)
    assert done.stdout.endswith(b"\n") and done.stdout.count(b"\n") == 1, done.stdout
    response = decode(CallbackResponse, done.stdout)
    return done.returncode, response, done.stdout, done.stderr.decode("utf-8", "replace")


def echo(stdin: bytes) -> Tuple[int, CallbackResponse, bytes, str]:
    return run_client([sys.executable, str(ECHO_CLIENT)], stdin)


def test_echo_answers_every_dispatchable_event() -> None:
    from lifeloop_callback import DISPATCHABLE_EVENTS

    for event in DISPATCHABLE_EVENTS:
        extra: Dict[str, Any] = {}
        if event.startswith("frame."):
            extra["frame_context"] = {"frame_id": "f1", "frame_class": "top_level"}
        code, response, _, _ = echo(envelope((PAYLOAD,), event=event, **extra))
        assert code == 0
        assert response.status is ReceiptStatus.DELIVERED
        assert response.failure_class is None and response.retry_class is None
        assert response.metadata == {
            "echo": "python-sdk",
            "event": event,
            "event_id": "ev-1",
            "invocation_id": "inv-1",
            "adapter_id": "codex",
            "payload_count": 1,
            "payload_ids": ["p1"],
        }


@pytest.mark.parametrize(
    "stdin, rule",
    [
        (b"", "json.syntax"),
        (b"not json", "json.syntax"),
        (b'{"schema_version":"' + WIRE_VERSION.encode() + b'"}', "schema.required"),
        (envelope(event="bogus.event"), "schema.enum"),
        (envelope(event_id=""), "non-empty-identifier"),
        (envelope(schema_version="lifeloop.v0.2"), "schema-version-current"),
        (envelope(event="frame.opening"), "frame-event-requires-frame-context"),
        (envelope() + b"\n{}", "json.trailing-data"),
    ],
)
def test_invalid_requests_become_invalid_request(stdin: bytes, rule: str) -> None:
    code, response, _, stderr = echo(stdin)
    assert code == 0
    assert response.status is ReceiptStatus.FAILED
    assert response.failure_class is FailureClass.INVALID_REQUEST
    assert response.retry_class is RetryClass.DO_NOT_RETRY
    assert response.warnings[0].code == rule
    assert "rejected DispatchEnvelope" in stderr and rule in stderr


def test_receipt_emitted_is_rejected() -> None:
    code, response, _, stderr = echo(envelope(event="receipt.emitted"))
    assert code == 0
    assert (response.status, response.failure_class) == (ReceiptStatus.FAILED, FailureClass.INVALID_REQUEST)
    assert response.warnings[0].code == "receipt_emitted_rejected"
    assert "receipt.emitted" in stderr


def test_oversized_request_is_rejected() -> None:
    from lifeloop_callback import LIMITS

    big = envelope() + b" " * (LIMITS["max_request_bytes"] - len(envelope()) + 1)
    code, response, _, _ = echo(big)
    assert code == 0
    assert response.failure_class is FailureClass.INVALID_REQUEST
    assert response.retry_class is RetryClass.DO_NOT_RETRY
    assert response.warnings[0].code == "json.max-bytes"


HANDLER_SCRIPT = """
import sys
from lifeloop_callback import CallbackResponse, ReceiptStatus, serve

def handle(request, payloads):
{body}

raise SystemExit(serve(handle))
"""


def script_client(tmp_path: Path, body: str) -> List[str]:
    path = tmp_path / "client.py"
    path.write_text(HANDLER_SCRIPT.format(body=textwrap.indent(textwrap.dedent(body), "    ")), "utf-8")
    return [sys.executable, str(path)]


def test_handler_exception_becomes_internal_error(tmp_path: Path) -> None:
    argv = script_client(tmp_path, 'raise RuntimeError("boom in handler")')
    code, response, _, stderr = run_client(argv, envelope())
    assert code == 0
    assert response.failure_class is FailureClass.INTERNAL_ERROR
    assert response.retry_class is RetryClass.RETRY_AFTER_REREAD
    assert response.warnings[0].code == "handler_threw"
    assert "RuntimeError: boom in handler" in response.warnings[0].message
    assert "Traceback" in stderr and "boom in handler" in stderr


def test_print_in_a_handler_goes_to_stderr(tmp_path: Path) -> None:
    argv = script_client(
        tmp_path,
        """
        print("chatty handler")
        sys.stdout.write("more chatter\\n")
        return CallbackResponse(status=ReceiptStatus.OBSERVED)
        """,
    )
    code, response, stdout, stderr = run_client(argv, envelope())
    assert code == 0 and response.status is ReceiptStatus.OBSERVED
    assert b"chatty" not in stdout and "chatty handler" in stderr and "more chatter" in stderr


def test_invalid_or_wrong_handler_results_become_internal_error(tmp_path: Path) -> None:
    argv = script_client(tmp_path, "return CallbackResponse(status=ReceiptStatus.FAILED)")
    code, response, _, stderr = run_client(argv, envelope())
    assert code == 0 and response.failure_class is FailureClass.INTERNAL_ERROR
    assert response.warnings[0].code == "failed-requires-failure-class"
    assert "invalid CallbackResponse" in stderr
    argv = script_client(tmp_path, 'return {"status": "delivered"}')
    code, response, _, _ = run_client(argv, envelope())
    assert response.failure_class is FailureClass.INTERNAL_ERROR
    assert response.warnings[0].code == "invalid_response"


def test_a_number_no_reader_could_take_becomes_internal_error(tmp_path: Path) -> None:
    argv = script_client(tmp_path, 'return CallbackResponse(status=ReceiptStatus.DELIVERED, metadata={"x": 10**400})')
    code, response, _, stderr = run_client(argv, envelope())
    assert code == 0 and response.failure_class is FailureClass.INTERNAL_ERROR
    assert response.retry_class is RetryClass.RETRY_AFTER_REREAD
    assert response.warnings[0].code == "json.number-range"
    assert response.warnings[0].message.startswith('json.number-range at "/metadata/x": ')
    assert "overflows an IEEE-754 double" in stderr


def _ok(request: CallbackRequest, payloads: Tuple[PayloadEnvelope, ...]) -> CallbackResponse:
    return CallbackResponse(status=ReceiptStatus.DELIVERED, metadata={"n": len(payloads)})


def test_serve_io_reads_to_eof_and_keeps_the_limit() -> None:
    stdin = io.BytesIO(envelope() + b" " * 100)
    stdout = io.BytesIO()
    stderr = io.StringIO()
    assert serve_io(stdin, stdout, stderr, _ok, max_request_bytes=64) == 0
    assert stdin.read() == b""  # drained
    response = decode(CallbackResponse, stdout.getvalue())
    assert response.failure_class is FailureClass.INVALID_REQUEST
    assert response.warnings[0].code == "json.max-bytes"
    assert "over the limit of 64" in stderr.getvalue()


def test_serve_io_response_limit() -> None:
    def huge(request: CallbackRequest, payloads: Tuple[PayloadEnvelope, ...]) -> CallbackResponse:
        return CallbackResponse(status=ReceiptStatus.DELIVERED, metadata={"x": "y" * 1000})

    stdout = io.BytesIO()
    assert serve_io(io.BytesIO(envelope()), stdout, io.StringIO(), huge, max_response_bytes=500) == 0
    response = decode(CallbackResponse, stdout.getvalue())
    assert response.failure_class is FailureClass.INTERNAL_ERROR
    assert response.warnings[0].code == "json.max-bytes"


def test_serve_io_answers_an_unreadable_stdin() -> None:
    class Unreadable(io.RawIOBase):
        def readable(self) -> bool:
            return True

        def read(self, size: int = -1) -> bytes:
            raise OSError(5, "stdin is gone")

    stdout = io.BytesIO()
    stderr = io.StringIO()
    calls: List[CallbackRequest] = []

    def handler(request: CallbackRequest, payloads: Tuple[PayloadEnvelope, ...]) -> CallbackResponse:
        calls.append(request)
        return _ok(request, payloads)

    assert serve_io(Unreadable(), stdout, stderr, handler) == 0
    response = decode(CallbackResponse, stdout.getvalue())
    assert not calls
    assert response.failure_class is FailureClass.TRANSPORT_ERROR
    assert response.retry_class is RetryClass.SAFE_RETRY
    assert response.warnings[0].code == "write_request"
    assert "stdin is gone" in stderr.getvalue()


def test_serve_io_reports_an_unwritable_stdout() -> None:
    class Closed(io.BytesIO):
        def write(self, data: Any) -> int:
            raise BrokenPipeError(32, "Broken pipe")

    stderr = io.StringIO()
    assert serve_io(io.BytesIO(envelope()), Closed(), stderr, _ok) == 1
    assert "cannot write the response" in stderr.getvalue()


def test_respond_is_pure() -> None:
    out = respond(envelope((PAYLOAD, PAYLOAD)), _ok)
    assert json.loads(out)["metadata"] == {"n": 2}


def test_warning_cut_is_the_limits_table_value() -> None:
    """failure_response cuts a warning message to limits.runner_warning_message_code_points, read
    from spec/tables/limits.json independently of the generated constant."""
    from lifeloop_callback import FailureClass, failure_response

    from conftest import REPO_ROOT

    table = json.loads((REPO_ROOT / "spec" / "tables" / "limits.json").read_text(encoding="utf-8"))
    value = next(row["value"] for row in table["limits"] if row["name"] == "runner_warning_message_code_points")
    response = failure_response(FailureClass.ADAPTER_UNAVAILABLE, code="c", message="é" * (value + 10))
    assert response.warnings[0].message == "é" * value


def test_failure_response_without_message_is_a_valid_answer() -> None:
    """A Warning's message is never empty in the current version: failure_response with a code and no
    message uses the code, so the answer it builds passes the runner's own check."""
    from lifeloop_callback import FailureClass, encode, failure_response

    response = failure_response(FailureClass.ADAPTER_UNAVAILABLE, code="not-configured")
    assert response.warnings[0].message == "not-configured"
    assert json.loads(encode(response))["warnings"] == [{"code": "not-configured", "message": "not-configured"}]
