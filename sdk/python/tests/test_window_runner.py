"""Clients answer in the request's version (spec/wire-window.md, "Who speaks which version"): one
client script, with no configuration, run as a real process in subprocess mode (one event per
process) and in stream mode (one process, many events), gets requests of every version of the
window and one outside it.

The handler builds its response with the dataclasses' defaults (``schema_version`` current) and a
``PayloadEnvelope``; the runner must write both in the request's version and check the response
with the window closed to it. Handler mode ``empty-warning`` adds a ``Warning`` with an empty
message, which is valid exactly in the versions whose rules do not refuse it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

from lifeloop_callback import (
    OUTSIDE_WINDOW_MESSAGE,
    OUTSIDE_WINDOW_RULE,
    WIRE_WINDOW,
    CallbackResponse,
    FailureClass,
    ReceiptStatus,
    decode,
)
from lifeloop_callback._gen_window import WIRE_VERSION_RULES

from conftest import SAMPLE_REQUEST, WIRE_VERSION, sdk_env

#: Bound of every wait on a client (seconds): a watchdog for a loaded machine, never a pacing sleep.
WATCHDOG_S = 30
OUTSIDE = "lifeloop.v0.2"
assert OUTSIDE not in WIRE_WINDOW

CLIENT = textwrap.dedent(
    """
    from lifeloop_callback import (
        AcceptablePlacement, CallbackResponse, PayloadEnvelope, PlacementClass, ReceiptStatus,
        RequirementLevel, Warning, serve,
    )

    def handle(request, payloads):
        payload = PayloadEnvelope(
            payload_id="p-out", client_id="c", payload_kind="k", format="text", content_encoding="utf8",
            body="hi", byte_size=2,
            acceptable_placements=(AcceptablePlacement(
                placement=PlacementClass.DEVELOPER_EQUIVALENT_FRAME, requirement=RequirementLevel.REQUIRED),),
        )
        warnings = (Warning(code="w", message=""),) if request.metadata.get("mode") == "empty-warning" else ()
        return CallbackResponse(
            status=ReceiptStatus.DELIVERED, client_payloads=(payload,), warnings=warnings,
            metadata={"request_version": request.schema_version},
        )

    raise SystemExit(serve(handle))
    """
)


def envelope_doc(version: str, mode: Optional[str] = None, event_id: str = "ev-1") -> Dict[str, Any]:
    request: Dict[str, Any] = {**SAMPLE_REQUEST, "schema_version": version, "event_id": event_id}
    if mode is not None:
        request["metadata"] = {"mode": mode}
    return {"schema_version": version, "request": request}


def refuses_empty_warning(version: str) -> bool:
    return any(
        step.check == "non_empty_string" and step.at == "/warnings/*" and step.field == "message"
        for step in WIRE_VERSION_RULES[version].rule_plans["CallbackResponse"]
    )


@pytest.fixture()
def client(tmp_path: Path) -> List[str]:
    path = tmp_path / "client.py"
    path.write_text(CLIENT, "utf-8")
    return [sys.executable, str(path)]


def assert_delivered_in(raw: bytes, version: str) -> None:
    """``raw`` is a delivered response written in ``version``, root and nested, valid in ``version`` alone."""
    written = json.loads(raw)
    assert written["schema_version"] == version, written
    assert written["client_payloads"][0]["schema_version"] == version
    response = decode(CallbackResponse, raw, window=(version,))
    assert response.status is ReceiptStatus.DELIVERED
    assert response.metadata == {"request_version": version}


def assert_outside_refused(raw: bytes) -> None:
    """``raw`` is the failed answer, in current, to a request outside the window."""
    response = decode(CallbackResponse, raw, window=(WIRE_VERSION,))
    assert response.status is ReceiptStatus.FAILED
    assert response.failure_class is FailureClass.INVALID_REQUEST
    assert response.warnings[0].code == OUTSIDE_WINDOW_RULE
    listed = ", ".join(f"`{v}`" for v in WIRE_WINDOW)
    assert OUTSIDE_WINDOW_MESSAGE.format(value=OUTSIDE, window=listed) in response.warnings[0].message


def run_once(argv: List[str], doc: Dict[str, Any]) -> bytes:
    """One subprocess-mode exchange: the response line (the process is reaped by subprocess.run)."""
    done = subprocess.run(
        argv, input=json.dumps(doc).encode(), capture_output=True, timeout=WATCHDOG_S, env=sdk_env(), check=False
    )
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    assert done.stdout.endswith(b"\n") and done.stdout.count(b"\n") == 1, done.stdout
    return done.stdout[:-1]


@pytest.mark.parametrize("version", WIRE_WINDOW)
def test_subprocess_answers_in_the_request_version(client: List[str], version: str) -> None:
    assert_delivered_in(run_once(client, envelope_doc(version)), version)


def test_subprocess_outside_the_window_is_failed_in_current(client: List[str]) -> None:
    assert_outside_refused(run_once(client, envelope_doc(OUTSIDE)))


@pytest.mark.parametrize("version", WIRE_WINDOW)
def test_subprocess_response_is_judged_by_the_request_version(client: List[str], version: str) -> None:
    raw = run_once(client, envelope_doc(version, mode="empty-warning"))
    response = decode(CallbackResponse, raw, window=(version,))
    if refuses_empty_warning(version):
        assert response.status is ReceiptStatus.FAILED
        assert response.warnings[0].code == "non-empty-identifier"
    else:
        assert response.status is ReceiptStatus.DELIVERED
        assert response.warnings[0].message == ""


def test_subprocess_invalid_request_in_the_window_is_answered_in_its_version(client: List[str]) -> None:
    for version in WIRE_WINDOW:
        doc = envelope_doc(version, event_id="")
        response = decode(CallbackResponse, run_once(client, doc), window=(version,))
        assert (response.status, response.warnings[0].code) == (ReceiptStatus.FAILED, "non-empty-identifier")


def test_stream_answers_each_request_in_its_version(client: List[str]) -> None:
    proc = subprocess.Popen(
        [*client, "--stream"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=sdk_env(),
        start_new_session=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        cases: List[Any] = [(version, None) for version in WIRE_WINDOW]
        cases += [(version, "empty-warning") for version in WIRE_WINDOW]
        cases.append((OUTSIDE, None))
        for index, (version, mode) in enumerate(cases):
            doc = envelope_doc(version, mode=mode, event_id=f"ev-{index}")
            frame = {"jsonrpc": "2.0", "id": index, "method": f"event/{SAMPLE_REQUEST['event']}", "params": doc}
            proc.stdin.write(json.dumps(frame).encode() + b"\n")
        proc.stdin.flush()
        replies: Dict[int, Any] = {}
        for _ in cases:
            line = proc.stdout.readline()  # test side only; the SDK never uses readline
            assert line.endswith(b"\n"), f"no reply frame: {line!r}"
            reply = json.loads(line)
            replies[reply["id"]] = reply
        for index, (version, mode) in enumerate(cases):
            raw = json.dumps(replies[index]["result"]).encode()
            if version == OUTSIDE:
                assert_outside_refused(raw)
            elif mode is None:
                assert_delivered_in(raw, version)
            else:
                response = decode(CallbackResponse, raw, window=(version,))
                expected = ReceiptStatus.FAILED if refuses_empty_warning(version) else ReceiptStatus.DELIVERED
                assert response.status is expected
        proc.stdin.close()
        assert proc.wait(WATCHDOG_S) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(WATCHDOG_S)
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
