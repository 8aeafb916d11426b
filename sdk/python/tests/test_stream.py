"""The stream-mode runner (lifeloop_callback.stream): the frame reader, strict frame decoding, and
real client processes driven over their pipes the way the host drives them."""

from __future__ import annotations

import ctypes
import json
import os
import platform
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

import pytest

from lifeloop_callback._gen_spec import LIMIT_MAX_FRAME_BYTES
from lifeloop_callback.stream import FrameReader, FramingError, decode_frame

from conftest import SAMPLE_REQUEST, WIRE_VERSION, sdk_env

ENVELOPE: Dict[str, Any] = {"schema_version": WIRE_VERSION, "request": SAMPLE_REQUEST}
#: Bound of every wait on a client (seconds): a watchdog, never a pacing sleep.
WATCHDOG_S = 10


def chunks_of(data: bytes, size: int) -> Iterator[bytes]:
    for i in range(0, len(data), size):
        yield data[i : i + size]


def reader_over(data: bytes, size: int, limit: int = LIMIT_MAX_FRAME_BYTES) -> FrameReader:
    parts = chunks_of(data, size)
    return FrameReader(lambda _n: next(parts, b""), limit)


def frames(data: bytes, size: int, limit: int = LIMIT_MAX_FRAME_BYTES) -> List[bytes]:
    reader = reader_over(data, size, limit)
    out: List[bytes] = []
    while True:
        frame = reader.next()
        if frame is None:
            return out
        out.append(frame)


@pytest.mark.parametrize("size", [1, 2, 7, 65536])
def test_reader_splits_on_lf_only_whatever_the_chunking(size: int) -> None:
    data = 'a\u2028b\u2029c\u0085d\r\n{"x":1}\n\n'.encode()
    assert frames(data, size) == ["a\u2028b\u2029c\u0085d\r".encode(), b'{"x":1}', b""]


@pytest.mark.parametrize("size", [1, 3, 4096])
def test_reader_limit_is_exact(size: int) -> None:
    limit = 64
    assert frames(b"x" * limit + b"\n", size, limit) == [b"x" * limit]
    reader = reader_over(b"x" * (limit + 1) + b"\n", size, limit)
    with pytest.raises(FramingError) as raised:
        reader.next()
    assert raised.value.rule == "stream.frame-too-large"


def test_reader_fails_at_the_first_byte_over_without_reading_on() -> None:
    limit = 16
    served: List[int] = []

    def read(_n: int) -> bytes:
        served.append(1)
        return b"y"

    reader = FrameReader(read, limit)
    with pytest.raises(FramingError):
        reader.next()
    assert len(served) == limit + 1


def test_reader_eof_inside_a_frame_is_truncated() -> None:
    with pytest.raises(FramingError) as raised:
        frames(b'{"a":1}\n{"b"', 3)
    assert raised.value.rule == "stream.unterminated-frame"


@pytest.mark.parametrize(
    ("line", "rule"),
    [
        (b"", "stream.empty-frame"),
        (b"\r", "stream.empty-frame"),
        (b"\xef\xbb\xbf{}", "json.bom"),
        (b'{"jsonrpc":"2.0","method":"\xff"}', "json.utf8"),
        (b"[]", "stream.batch"),
        (b"7", "stream.not-object"),
        (b"hello from a banner", "json.syntax"),
        (b'{"jsonrpc":"2.0","method":"x","extra":1}', "stream.frame-kind"),
        (b'{"jsonrpc":"1.0","method":"x"}', "stream.jsonrpc"),
        (b'{"jsonrpc":"2.0","id":"","method":"x"}', "stream.id"),
        (b'{"jsonrpc":"2.0","id":1,"method":"rpc.x"}', "stream.method"),
        (b'{"jsonrpc":"2.0","method":"x","params":[1]}', "stream.params"),
        (b'{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":""}}', "stream.error-object"),
        (b'{"jsonrpc":"2.0","id":1.5,"method":"x"}', "stream.id"),
        (b'{"jsonrpc":"2.0","id":null,"method":"x"}', "stream.id"),
        (b'{"jsonrpc":"2.0","id":"a","result":{},"error":{"code":1,"message":""}}', "stream.frame-kind"),
        (b'{"jsonrpc":"2.0","id":"a","method":"x","method":"y"}', "json.duplicate-key"),
    ],
)
def test_decode_frame_names_the_rule(line: bytes, rule: str) -> None:
    with pytest.raises(FramingError) as raised:
        decode_frame(line)
    assert raised.value.rule == rule


def test_decode_frame_strips_one_cr() -> None:
    assert decode_frame(b'{"jsonrpc":"2.0","method":"x"}\r').method == "x"


def test_decode_frame_keeps_id_type() -> None:
    assert decode_frame(b'{"jsonrpc":"2.0","id":"7","result":{}}').id == "7"
    assert decode_frame(b'{"jsonrpc":"2.0","id":7,"result":{}}').id == 7


HANDLER_SCRIPT = textwrap.dedent(
    """
    import os, subprocess, sys, time
    from lifeloop_callback import CallbackResponse, CommandError, Continuation, ReceiptStatus, event_done, serve

    def handle(request, payloads):
        mode = request.metadata.get("mode") if request.metadata else None
        print("a stray print that must not reach the wire")
        os.write(1, b"a stray write to fd 1\\n")
        subprocess.run(["echo", "a child writing to its stdout"], check=True)
        meta = {"event_id": request.event_id}
        if mode == "wait-cancel":
            meta["cancelled"] = event_done(request).wait(30)
        elif mode == "put":
            try:
                Continuation().put("t1", "k1", b"blob")
            except Exception as error:
                meta["put_error"] = type(error).__name__ + ": " + str(error)
        elif mode == "get":
            try:
                Continuation().get("t1", "k1")
            except Exception as error:
                meta["get_error"] = type(error).__name__
                meta["is_command_error"] = isinstance(error, CommandError)
        elif mode == "hang":
            time.sleep(30)
        return CallbackResponse(status=ReceiptStatus.DELIVERED, metadata=meta)

    raise SystemExit(serve(handle))
    """
)


class Client:
    """A stream client process in its own process group; always reaped."""

    def __init__(self, tmp_path: Path, source: str = "") -> None:
        script = tmp_path / "client.py"
        script.write_text(source or HANDLER_SCRIPT)
        self.proc = subprocess.Popen(
            [sys.executable, str(script), "--stream"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=sdk_env(),
            start_new_session=True,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin = self.proc.stdin
        self.stdout = self.proc.stdout

    def send(self, frame: Dict[str, Any]) -> None:
        self.stdin.write(json.dumps(frame).encode() + b"\n")
        self.stdin.flush()

    def event(self, rpc_id: Any, mode: Optional[str] = None, event_id: str = "ev-1") -> None:
        request = {**SAMPLE_REQUEST, "event_id": event_id}
        if mode is not None:
            request["metadata"] = {"mode": mode}
        self.send(
            {
                "jsonrpc": "2.0",
                "id": rpc_id,
                "method": f"event/{request['event']}",
                "params": {**ENVELOPE, "request": request},
            }
        )

    def recv(self) -> Dict[str, Any]:
        line = self.stdout.readline()  # test side only; the SDK never uses readline
        assert line.endswith(b"\n"), f"no frame: {line!r}; stderr: {self.stderr()}"
        value: Dict[str, Any] = json.loads(line)
        return value

    def wait(self) -> float:
        started = time.monotonic()
        self.proc.wait(WATCHDOG_S)
        return time.monotonic() - started

    def stderr(self) -> str:
        if self.proc.poll() is None:
            return "(running)"
        assert self.proc.stderr is not None
        return self.proc.stderr.read().decode("utf-8", "replace")

    def close(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(WATCHDOG_S)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


@pytest.fixture
def client(tmp_path: Path) -> Iterator[Client]:
    c = Client(tmp_path)
    try:
        yield c
    finally:
        c.close()


def test_answers_requests_and_keeps_stdout_for_frames(client: Client) -> None:
    client.event("h1")
    reply = client.recv()
    assert reply["id"] == "h1" and reply["result"]["status"] == "delivered"
    client.event(7, event_id="ev-2")
    reply = client.recv()
    assert reply["id"] == 7 and reply["result"]["metadata"] == {"event_id": "ev-2"}
    client.stdin.close()
    assert client.wait() < 1.0
    assert client.proc.returncode == 0
    err = client.stderr()
    assert "a stray print" in err and "a stray write to fd 1" in err and "a child writing" in err


def test_unknown_method_and_cancel(client: Client) -> None:
    client.event("h1", mode="wait-cancel")
    client.send({"jsonrpc": "2.0", "id": "h2", "method": "nope/nothing"})
    assert client.recv() == {
        "jsonrpc": "2.0",
        "id": "h2",
        "error": {"code": -32601, "message": "method not found: nope/nothing"},
    }
    client.send({"jsonrpc": "2.0", "method": "lifeloop/cancel", "params": {"id": "h1", "reason": "timeout"}})
    client.event("h3", event_id="ev-3")
    # h1 was cancelled: its reply is never written; the next frame is h3's.
    reply = client.recv()
    assert reply["id"] == "h3", reply


QUICK_SCRIPT = textwrap.dedent(
    """
    import sys
    from lifeloop_callback import CallbackResponse, ReceiptStatus, serve

    # A thread switch as often as the interpreter allows: a worker thread that was handed an event
    # runs its handler at once, as under a loaded machine, where the reading thread loses the CPU
    # (and then the GIL) between starting the event and reading the next frame.
    sys.setswitchinterval(1e-6)
    raise SystemExit(serve(lambda request, payloads: CallbackResponse(status=ReceiptStatus.DELIVERED)))
    """
)


def test_a_cancel_written_with_its_request_is_honoured_however_quick_the_handler(tmp_path: Path) -> None:
    # conform's stream-cancel: the request and lifeloop/cancel for it in one write. Without looking
    # ahead at the frames already read, the quick handler's reply could beat the reader to the
    # cancel (seen once in CI under load). Any reply to a cancelled id shows up as the frame read
    # where the next request's reply was expected.
    client = Client(tmp_path, QUICK_SCRIPT)
    try:
        for i in range(300):
            request = {**SAMPLE_REQUEST, "event_id": f"ev-{i}"}
            params = {**ENVELOPE, "request": request}
            frame = {"jsonrpc": "2.0", "id": f"c{i}", "method": f"event/{request['event']}", "params": params}
            cancel = {"jsonrpc": "2.0", "method": "lifeloop/cancel", "params": {"id": f"c{i}", "reason": "timeout"}}
            client.stdin.write(json.dumps(frame).encode() + b"\n" + json.dumps(cancel).encode() + b"\n")
            client.stdin.flush()
            client.event(f"after{i}", event_id=f"after-{i}")
            reply = client.recv()
            assert reply["id"] == f"after{i}", reply
    finally:
        client.close()


def test_reverse_request_while_the_event_is_pending(client: Client) -> None:
    client.event("h1", mode="put")
    request = client.recv()
    assert request == {
        "jsonrpc": "2.0",
        "id": "c1",
        "method": "continuation/put",
        "params": {"thread": "t1", "key": "k1", "blob_base64": "YmxvYg=="},
    }
    client.send(
        {
            "jsonrpc": "2.0",
            "id": "c1",
            "error": {
                "code": -32001,
                "message": "not available",
                "data": {"error": "storage_failure", "reason": "no store"},
            },
        }
    )
    reply = client.recv()
    assert reply["id"] == "h1"
    assert reply["result"]["metadata"]["put_error"].startswith("ContinuationStorageFailureError")


@pytest.mark.parametrize("blob", ["not base64!", "YmxvYg", "YmxvYg==="])
def test_bad_base64_in_a_host_reply_is_a_command_error(client: Client, blob: str) -> None:
    # A host reply whose blob_base64 is not RFC 4648 base64 with padding: the helper's CommandError,
    # never binascii.Error escaping into the handler (issue 25).
    client.event("h1", mode="get")
    request = client.recv()
    assert request["method"] == "continuation/get"
    result = {"blob_base64": blob, "client_id": None, "ttl_s": None, "written_at_epoch_s": 1}
    client.send({"jsonrpc": "2.0", "id": request["id"], "result": result})
    reply = client.recv()
    assert reply["id"] == "h1"
    assert reply["result"]["metadata"]["is_command_error"] is True, reply["result"]["metadata"]


def test_framing_violation_ends_the_client(client: Client) -> None:
    client.stdin.write(b"this is a banner, not a frame\n")
    client.stdin.flush()
    client.wait()
    assert client.proc.returncode == 1
    assert "framing violation: json.syntax" in client.stderr()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_exits_within_a_second_of_a_signal_even_with_a_busy_handler(client: Client, signum: int) -> None:
    client.event("h1", mode="hang")
    client.event("h2", event_id="ev-2")
    assert client.recv()["id"] == "h2"  # barrier: both events are being handled
    client.proc.send_signal(signum)
    assert client.wait() < 1.0
    assert client.proc.returncode == 0


def _tgkill(pid: int, tid: int, signum: int) -> None:
    """Send ``signum`` to one thread of another process (Linux ``tgkill``)."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.syscall(_SYS_TGKILL[platform.machine()], pid, tid, signum) != 0:
        raise OSError(ctypes.get_errno(), "tgkill failed")


#: The tgkill syscall number by architecture (asm/unistd.h).
_SYS_TGKILL = {"x86_64": 234, "aarch64": 131}


@pytest.mark.skipif(
    not os.path.isdir("/proc/self/task") or platform.machine() not in _SYS_TGKILL, reason="needs Linux tgkill"
)
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_signal_delivered_to_a_handler_thread_still_ends_the_process(client: Client, signum: int) -> None:
    # The kernel may deliver a process signal to any thread that does not block it; aimed at a
    # handler thread here, it must still end the process (the main thread is blocked reading).
    client.event("h1", mode="hang")
    client.event("h2", event_id="ev-2")
    assert client.recv()["id"] == "h2"  # barrier: h1's thread is running its handler
    tids = [int(t) for t in os.listdir(f"/proc/{client.proc.pid}/task") if int(t) != client.proc.pid]
    assert tids, "no handler thread"
    for tid in tids:
        try:
            _tgkill(client.proc.pid, tid, signum)
        except OSError:
            continue  # that thread already ended (h2's)
    assert client.wait() < 1.0
    assert client.proc.returncode == 0


def test_exits_within_a_second_of_eof_even_with_a_busy_handler(client: Client) -> None:
    client.event("h1", mode="hang")
    client.event("h2", event_id="ev-2")
    assert client.recv()["id"] == "h2"
    client.stdin.close()
    assert client.wait() < 1.0
    assert client.proc.returncode == 0


def test_never_replies_to_notifications(client: Client) -> None:
    request = dict(SAMPLE_REQUEST)
    client.send({"jsonrpc": "2.0", "method": f"event/{request['event']}", "params": {**ENVELOPE, "request": request}})
    client.send({"jsonrpc": "2.0", "method": "lifeloop/cancel", "params": {"id": "nobody", "reason": "timeout"}})
    client.send({"jsonrpc": "2.0", "method": "unknown/notification"})
    client.event("h9", event_id="ev-9")
    # The first frame out is the request's reply: nothing answered the three notifications.
    assert client.recv()["id"] == "h9"
