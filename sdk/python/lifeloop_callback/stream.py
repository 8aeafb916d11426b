"""The stream-mode client runner (transport ``stream_v2``, CALLBACK-001 §C): one long-lived process,
JSON-RPC 2.0 frames over stdio, the same handler as :func:`lifeloop_callback.serve`.

A host spawns the client once with its configured arguments followed by ``--stream``;
:func:`lifeloop_callback.serve` sees the flag and calls :func:`serve_stream`. Then:

- Frames are read with :class:`FrameReader` (split on LF only, at most the maximum frame size,
  never ``readline``/``splitlines``) and decoded strictly (:func:`decode_frame`). A framing violation
  is logged with its rule id; nothing more is read and the exit status is 1.
- A request ``event/<kind>`` gets exactly one reply whose ``result`` is the ``CallbackResponse`` the
  v1 runner would write for the same ``DispatchEnvelope`` (``params``), refusals included.
  Handlers run concurrently on a pool of threads: at most ``limits.client_handler_concurrency`` at
  once, plus one per request of the client's own that waits for the host (unanswered, or for a
  slot to be sent), and while that many run no further frame is read (backpressure: the host's
  writes wait in the pipe).
- A notification never gets a reply. The cancel notification marks its event cancelled: the
  :func:`event_done` event of that request is set and its reply is never written.
- A request for any other method gets error -32601. Replies to the client's own requests (the
  command helpers, e.g. :class:`lifeloop_callback.Continuation`, route over the pipe while a stream
  is served) are matched by id, type and value exactly; other replies are logged and discarded.
- At stdin EOF, in-flight handlers get the shutdown grace, then the status is 0; SIGTERM, SIGINT
  and SIGHUP end the process at once with status 0.
- stdout is reserved for frames: fd 1 points at stderr and fd 0 at ``/dev/null`` while serving (the
  wire uses private descriptors), so a stray ``print``, a C extension or a child process cannot
  corrupt the stream or steal its input.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import queue
import select
import signal
import sys
import threading
import time
import types
from typing import (
    IO,
    Any,
    Callable,
    Dict,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    Union,
)

from ._gen_runner_outcomes import HANDLER_CLASS, REJECT_CLASS
from ._gen_spec import (
    CLIENT_INITIATED_COMMANDS_TABLE,
    EVENT_VOCABULARY,
    FAILURE_VARIANT_INVALID_REQUEST,
    LIMIT_CLIENT_HANDLER_CONCURRENCY,
    LIMIT_MAX_CLIENT_REQUESTS_IN_FLIGHT,
    LIMIT_MAX_DEPTH,
    LIMIT_MAX_FRAME_BYTES,
    LIMIT_MAX_FRAME_VALUES,
    STREAM_V2_TABLE,
)
from ._gen_wire import CallbackRequest
from .answer import (
    LOGGER,
    Handler,
    answer_envelope,
    decode_envelope,
    failure_response,
    logging_to,
)
from .codec import encode
from .json_value import JsonValue
from .strict_json import parse_strict_json

_TABLE: Any = STREAM_V2_TABLE


def _rule(rule_id: str) -> str:
    """``rule_id`` when it is a framing rule of spec/tables/stream-v2.json (else an import error)."""
    if not any(rule["id"] == rule_id for rule in _TABLE["framing_rules"]):
        raise LookupError(f"{rule_id!r} is not a framing rule of spec/tables/stream-v2.json")
    return rule_id


def _code(name: str) -> int:
    """The JSON-RPC code of an error name of spec/tables/stream-v2.json."""
    for row in _TABLE["error_codes"]:
        if row["name"] == name:
            return int(row["code"])
    raise LookupError(f"{name!r} is not an error name of spec/tables/stream-v2.json")


#: The argument that starts a client in stream mode (launch.flag).
STREAM_FLAG: str = _TABLE["launch"]["flag"]
METHOD_EVENT_PREFIX: str = _TABLE["host_to_client"]["event_method_prefix"]
METHOD_CANCEL: str = _TABLE["cancel"]["method"]
RPC_METHOD_NOT_FOUND = _code("method_not_found")
_EVENT_KINDS = frozenset(row.event for row in EVENT_VOCABULARY)
RPC_INVALID_REQUEST = _code("invalid_request")
RULE_EMPTY_FRAME = _rule("stream.empty-frame")
RULE_FRAME_TOO_LARGE = _rule("stream.frame-too-large")
RULE_UNTERMINATED_FRAME = _rule("stream.unterminated-frame")
RULE_BATCH = _rule("stream.batch")
RULE_NOT_OBJECT = _rule("stream.not-object")
RULE_JSONRPC = _rule("stream.jsonrpc")
RULE_FRAME_KIND = _rule("stream.frame-kind")
RULE_ID = _rule("stream.id")
RULE_METHOD = _rule("stream.method")
RULE_PARAMS = _rule("stream.params")
RULE_ERROR_OBJECT = _rule("stream.error-object")
#: The params/result member of a blob (client_to_host params_rule).
BLOB_MEMBER = "blob_base64"
#: Bounds of a frame's members (schemas/stream/jsonrpc-request.schema.json, jsonrpc-error-reply).
METHOD_MAX_LENGTH = 256
MESSAGE_MAX_LENGTH = 65536
RESERVED_METHOD_PREFIX = "rpc."

_CHUNK = 65536
#: Longest wait of the reader for a free handler place before it looks at pending signals (s).
_SIGNAL_POLL_S = 0.05
_MAX_SAFE_INTEGER = 2**53 - 1
_REQUEST_MEMBERS = frozenset(["jsonrpc", "id", "method", "params"])
_SUCCESS_MEMBERS = frozenset(["jsonrpc", "id", "result"])
_ERROR_MEMBERS = frozenset(["jsonrpc", "id", "error"])

#: A JSON-RPC id: a string or an integer in [0, 2^53-1].
RpcId = Union[str, int]


class FramingError(ValueError):
    """A line that is not exactly one JSON-RPC 2.0 frame: ``rule`` is the stable rule id (a
    ``stream.*`` framing rule or the ``json.*`` parse rule), the message says why."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule


class FrameReader:
    """Split a byte stream into frames: the bytes up to, not including, each LF (0x0A).

    Nothing else ends a frame (CR, U+2028, U+2029 and U+0085 are ordinary bytes) and nothing is
    decoded. The current frame never grows past ``max_bytes``: it fails as soon as byte
    ``max_bytes + 1`` arrives, whatever the chunking, without reading the rest. Each byte is
    scanned once. ``read(n)`` returns at most ``n`` bytes and ``b""`` at EOF.
    """

    def __init__(self, read: Callable[[int], bytes], max_bytes: int = LIMIT_MAX_FRAME_BYTES) -> None:
        self._read = read
        self._max = max_bytes
        self._chunk = b""
        self._pos = 0
        self._frame = bytearray()
        self._error: Optional[FramingError] = None

    def next(self) -> Optional[bytes]:
        """The next frame without its LF, or ``None`` at a clean end of the stream.

        Raises :class:`FramingError` (``stream.frame-too-large``, or ``stream.unterminated-frame``:
        EOF inside a frame); every error is final. ``OSError`` from ``read`` propagates.
        """
        if self._error is not None:
            raise self._error
        frame = self._frame
        frame.clear()
        while True:
            chunk, pos = self._chunk, self._pos
            if pos < len(chunk):
                end = chunk.find(b"\n", pos)
                if end >= 0:
                    if len(frame) + end - pos > self._max:
                        self._fail(RULE_FRAME_TOO_LARGE, f"a frame exceeds the limit of {self._max} bytes")
                    self._pos = end + 1
                    if not frame:
                        return chunk[pos:end]
                    frame += chunk[pos:end]
                    return bytes(frame)
                if len(frame) + len(chunk) - pos > self._max:
                    self._fail(RULE_FRAME_TOO_LARGE, f"a frame exceeds the limit of {self._max} bytes (no LF within it)")
                frame += chunk[pos:] if pos else chunk
            self._chunk, self._pos = self._read(_CHUNK), 0
            if not self._chunk:
                if frame:
                    self._fail(RULE_UNTERMINATED_FRAME, "the stream ended inside a frame (no LF after its last bytes)")
                return None

    def _fail(self, rule: str, message: str) -> None:
        self._error = FramingError(rule, message)
        raise self._error


class Frame:
    """One decoded frame: ``kind`` is ``request``, ``notification``, ``success`` or ``error``."""

    __slots__ = ("kind", "id", "method", "params", "result", "error")

    def __init__(self, kind: str, rpc_id: Optional[RpcId], method: str = "", params: Optional[Dict[str, Any]] = None) -> None:
        self.kind = kind
        self.id = rpc_id
        self.method = method
        self.params = params
        self.result: Any = None
        self.error: Optional[StreamRPCError] = None


class StreamRPCError(Exception):
    """A JSON-RPC error reply from the host to a client request: ``code`` (an integer of the stream
    error-code table), ``message`` and ``data`` (``None`` when absent)."""

    def __init__(self, code: int, message: str, data: JsonValue = None) -> None:
        super().__init__(f"JSON-RPC error {code}: {message}")
        self.code = code
        self.message = message
        self.data = data


class StreamClosedError(ConnectionError):
    """The stream ended before the host answered a client request (or before it was sent)."""


class RequestFrameTooLargeError(ValueError):
    """A client request whose frame would be ``frame_bytes`` long (LF not counted), over
    ``max_bytes`` (limits.max_frame_bytes): it is not sent, since the host would end the stream for
    it (stream.frame-too-large) and fail every pending event. A blob of more than about three
    quarters of max_frame_bytes goes through the CLI instead (spec/stream-protocol.md §Limits)."""

    def __init__(self, frame_bytes: int, max_bytes: int) -> None:
        super().__init__(
            f"the request frame would be {frame_bytes} bytes, over the maximum frame size ({max_bytes} bytes); send a blob this large through the CLI"
        )
        self.frame_bytes = frame_bytes
        self.max_bytes = max_bytes


def _valid_id(value: Any) -> bool:
    """A string of 1..128 characters or an integer 0..2^53-1 (spec/tables/stream-v2.json ids)."""
    ids = _TABLE["ids"]
    if isinstance(value, str):
        return 1 <= len(value) <= int(ids["string_max_length"])
    return isinstance(value, int) and not isinstance(value, bool) and int(ids["integer_minimum"]) <= value <= int(ids["integer_maximum"])


def _id_key(value: RpcId) -> Tuple[type, RpcId]:
    """Correlation key: type and value compared exactly (``"7"`` is not ``7``)."""
    return (type(value), value)


def decode_frame(line: bytes) -> Frame:
    """Strictly decode one frame (a line without its LF); raises :class:`FramingError`.

    The checks run in the order of spec/stream-protocol.md: one trailing CR stripped
    (``stream.frame-cr``), ``stream.empty-frame``, the ``json.*`` rules, ``stream.batch``,
    ``stream.not-object``, ``stream.jsonrpc``, ``stream.frame-kind``, ``stream.id``,
    ``stream.method``, ``stream.params``, ``stream.error-object``; the first failing one is raised.
    """
    if line.endswith(b"\r"):
        line = line[:-1]
    if not line:
        raise FramingError(RULE_EMPTY_FRAME, "empty line (a frame is one JSON object)")
    parsed = parse_strict_json(line, len(line), LIMIT_MAX_DEPTH + 1, (), max_values=LIMIT_MAX_FRAME_VALUES)
    if parsed.issue is not None:
        issue = parsed.issue
        raise FramingError(issue.rule, f'{issue.message} at "{issue.pointer}"')
    root = parsed.value
    if isinstance(root, list):
        raise FramingError(RULE_BATCH, "a JSON array (a batch); this binding has no batches")
    if not isinstance(root, dict):
        raise FramingError(RULE_NOT_OBJECT, f"a JSON {type(root).__name__}, not an object")
    if root.get("jsonrpc") != "2.0":
        raise FramingError(RULE_JSONRPC, 'member "jsonrpc" must be the string "2.0"')
    has_id = "id" in root
    if "method" in root:
        kind, members = ("request" if has_id else "notification"), _REQUEST_MEMBERS
    elif "result" in root and "error" not in root and has_id:
        kind, members = "success", _SUCCESS_MEMBERS
    elif "error" in root and "result" not in root and has_id:
        kind, members = "error", _ERROR_MEMBERS
    else:
        raise FramingError(
            RULE_FRAME_KIND,
            "the members fit no frame kind (a reply needs an id and exactly one of result and error; "
            "a request or notification needs method)",
        )
    for key in root:
        if key not in members:
            raise FramingError(RULE_FRAME_KIND, f"member {key!r} does not belong in a {kind} frame")
    rpc_id = root.get("id")
    if has_id and not _valid_id(rpc_id):
        raise FramingError(RULE_ID, f"id {rpc_id!r} is not a string of 1..128 characters or an integer 0..2^53-1")
    if kind in ("request", "notification"):
        method = root["method"]
        if not isinstance(method, str) or not 1 <= len(method) <= METHOD_MAX_LENGTH or method.startswith(RESERVED_METHOD_PREFIX):
            raise FramingError(RULE_METHOD, f"method must be a string of 1..{METHOD_MAX_LENGTH} characters not starting with {RESERVED_METHOD_PREFIX!r}")
        params = root.get("params")
        if "params" in root and not isinstance(params, dict):
            raise FramingError(RULE_PARAMS, 'member "params" must be an object')
        return Frame(kind, rpc_id, method, params)
    if kind == "success":
        frame = Frame("success", rpc_id)
        frame.result = root["result"]
        return frame
    frame = Frame("error", rpc_id)
    frame.error = _error_object(root["error"])
    return frame


def _error_object(error: Any) -> StreamRPCError:
    if not isinstance(error, dict):
        raise FramingError(RULE_ERROR_OBJECT, "error object: not an object")
    for key in error:
        if key not in ("code", "message", "data"):
            raise FramingError(RULE_ERROR_OBJECT, f"error object: unknown member {key!r}")
    code, message = error.get("code"), error.get("message")
    if isinstance(code, bool) or not isinstance(code, int) or not -_MAX_SAFE_INTEGER <= code <= _MAX_SAFE_INTEGER:
        raise FramingError(RULE_ERROR_OBJECT, 'error object: member "code" must be an integer in -(2^53-1)..2^53-1')
    if not isinstance(message, str) or len(message) > MESSAGE_MAX_LENGTH:
        raise FramingError(RULE_ERROR_OBJECT, f'error object: member "message" must be a string of at most {MESSAGE_MAX_LENGTH} characters')
    return StreamRPCError(code, message, error.get("data"))


def _dump(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")


def _frame_bytes(head: Dict[str, Any], tail: bytes = b"") -> bytes:
    """``head`` as a JSON object with ``tail`` (pre-encoded ``,"member":value``) appended, plus LF."""
    return _dump(head)[:-1] + tail + b"}\n"


class _Inflight:
    __slots__ = ("done", "cancelled", "key")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.cancelled = False
        self.key: Optional[Tuple[str, str]] = None


_ACTIVE: Optional[_Stream] = None


def event_done(request: CallbackRequest) -> threading.Event:
    """An event that is set when the host cancels the event of ``request`` or the stream ends.

    Outside stream mode, or for a request that is not being handled, a fresh event that is never
    set. A handler may wait on it to stop early; either way a cancelled event gets no reply.
    """
    stream = _ACTIVE
    if stream is not None:
        with stream.lock:
            flight = stream.by_request.get((request.event_id, request.invocation_id))
        if flight is not None:
            return flight.done
    return threading.Event()


def active_stream() -> Optional[_Stream]:
    """The stream this process serves, or ``None`` (the command helpers route over it)."""
    return _ACTIVE


class _Workers:
    """The threads that run event handlers. An idle one takes the next event; a new one starts
    only when every one is busy, so handlers still run concurrently. Starting a thread per event
    made the reader wait for each new thread to get the GIL (most of an event's time).
    ``on_idle`` runs after a job, once its thread counts as idle: a job submitted after it reuses
    that thread, so there are never more threads than jobs that ran at once."""

    def __init__(self, on_idle: Callable[[], None]) -> None:
        self._jobs: queue.SimpleQueue[Tuple[Callable[..., None], Tuple[Any, ...]]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0
        self._on_idle = on_idle

    def submit(self, fn: Callable[..., None], *args: Any) -> None:
        with self._lock:
            reuse = self._idle > 0
            if reuse:
                self._idle -= 1
        # Every queued job has a taker: an idle thread (counted down above) or the one started here.
        self._jobs.put((fn, args))
        if not reuse:
            threading.Thread(target=self._work, daemon=True).start()

    def _work(self) -> None:
        while True:
            fn, args = self._jobs.get()
            try:
                fn(*args)
            finally:
                with self._lock:
                    self._idle += 1
                self._on_idle()


class _Stream:
    def __init__(self, write: Callable[[bytes], None], handler: Handler, log: logging.Logger) -> None:
        self._write_raw = write
        self.handler = handler
        self.log = log
        self.lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._broken = False
        self.events: Dict[Tuple[type, RpcId], _Inflight] = {}
        self.by_request: Dict[Tuple[str, str], _Inflight] = {}
        # The client's own requests the host has not answered, a caller that gave up on one
        # included (the host counts it until it answers): at most LIMIT_MAX_CLIENT_REQUESTS_IN_FLIGHT,
        # since one more ends the stream (stream.request-flood); one more waits for a slot.
        self.calls: Dict[Tuple[type, RpcId], _Call] = {}
        self.slot_free = threading.Condition(self.lock)
        # Handlers running (limits.client_handler_concurrency): the reader waits on handler_free
        # before it starts one more. Each request of the client's own that is unanswered, or waits
        # for a slot to be sent, adds a place, so that handlers waiting for the host never keep the
        # reader from reading the replies they wait for.
        self.handlers = 0
        self.slot_waiters = 0
        self.handler_free = threading.Condition(self.lock)
        self.next_id = 0
        self.closed = False
        self.workers = _Workers(self._handler_done)

    # -- writing
    def write(self, frame: bytes) -> None:
        with self._write_lock:
            if self._broken:
                return
            try:
                self._write_raw(frame)
            except (OSError, ValueError) as error:
                self._broken = True
                self.log.error("cannot write to stdout, dropping further frames: %s", error)

    # -- dispatch
    def dispatch(self, frame: Frame) -> None:
        if frame.kind in ("request", "notification"):
            # An unknown event kind is an unknown method (-32601), whatever its params carry.
            if frame.method.startswith(METHOD_EVENT_PREFIX) and frame.method[len(METHOD_EVENT_PREFIX) :] in _EVENT_KINDS:
                self._start_event(frame, frame.method[len(METHOD_EVENT_PREFIX) :])
            elif frame.kind == "notification":
                if frame.method == METHOD_CANCEL:
                    self._cancel(frame)
                else:
                    self.log.info("ignoring notification %r (unknown method)", frame.method)
            else:
                self.log.error("answering request %r with %d (unknown method)", frame.method, RPC_METHOD_NOT_FOUND)
                self._error_reply(frame.id, RPC_METHOD_NOT_FOUND, f"method not found: {frame.method}")
            return
        if frame.id is None:  # decode_frame guarantees an id on replies
            return
        with self.lock:
            call = self.calls.pop(_id_key(frame.id), None)
            if call is not None:
                self.slot_free.notify()
        if call is None:
            self.log.error("discarding a reply to id %r, which no pending request has", frame.id)
            return
        call.settle(frame)

    def _error_reply(self, rpc_id: Optional[RpcId], code: int, message: str) -> None:
        self.write(_frame_bytes({"jsonrpc": "2.0", "id": rpc_id, "error": {"code": code, "message": message}}))

    def _cancel(self, frame: Frame) -> None:
        target = (frame.params or {}).get("id")
        if target is None or not _valid_id(target):
            self.log.error("ignoring a cancel notification without a valid params.id")
            return
        with self.lock:
            flight = self.events.get(_id_key(target))
            if flight is not None and not flight.cancelled:
                flight.cancelled = True
                flight.done.set()

    def _start_event(self, frame: Frame, event: str) -> None:
        flight = _Inflight()
        if frame.id is not None:
            key = _id_key(frame.id)
            with self.lock:
                if key in self.events:
                    busy = True
                else:
                    busy = False
                    self.events[key] = flight
            if busy:
                self._error_reply(frame.id, RPC_INVALID_REQUEST, "id is already in use by a request being handled")
                return
        with self.lock:
            # Backpressure: the reader (this thread) reads nothing more until a handler returns.
            while not self.closed and self.handlers >= LIMIT_CLIENT_HANDLER_CONCURRENCY + len(self.calls) + self.slot_waiters:
                # Bounded waits: a signal the kernel handed to a handler thread runs its Python
                # handler (the exit) only once this, the main thread, is back in Python code.
                self.handler_free.wait(_SIGNAL_POLL_S)
            self.handlers += 1
        self.workers.submit(self._run_event, frame, event, flight)

    def _handler_done(self) -> None:
        with self.lock:
            self.handlers -= 1
            self.handler_free.notify()

    def _run_event(self, frame: Frame, event: str, flight: _Inflight) -> None:
        try:
            out = self._answer(frame, event, flight)
        except Exception as error:  # noqa: BLE001 - a runner bug must still answer
            self.log.error("internal: %s", error)
            out = encode(failure_response(HANDLER_CLASS, code="internal", message=str(error)))
        with self.lock:
            if frame.id is not None:
                self.events.pop(_id_key(frame.id), None)
            if flight.key is not None and self.by_request.get(flight.key) is flight:
                del self.by_request[flight.key]
            cancelled = flight.cancelled
        if frame.id is None:
            return
        if cancelled:
            self.log.info("event %s was cancelled; its reply is not sent", event)
            return
        reply = _frame_bytes({"jsonrpc": "2.0", "id": frame.id}, b',"result":' + out)
        if len(reply) - 1 > LIMIT_MAX_FRAME_BYTES:
            text = f"the reply frame is {len(reply) - 1} bytes, over limits.max_frame_bytes ({LIMIT_MAX_FRAME_BYTES} bytes)"
            self.log.error("the handler's response is invalid: %s", text)
            out = encode(failure_response(HANDLER_CLASS, code=RULE_FRAME_TOO_LARGE, message=text))
            reply = _frame_bytes({"jsonrpc": "2.0", "id": frame.id}, b',"result":' + out)
        self.write(reply)

    def _answer(self, frame: Frame, event: str, flight: _Inflight) -> bytes:
        if frame.params is None:
            return self._refuse("schema.required", "the request has no params (a DispatchEnvelope)")
        decoded = decode_envelope(_dump(frame.params), logger=self.log)
        if isinstance(decoded, bytes):
            return decoded
        if decoded.request.event.value != event:
            return self._refuse(FAILURE_VARIANT_INVALID_REQUEST, f"method event/{event} does not match params.request.event {decoded.request.event.value!r}")
        flight.key = (decoded.request.event_id, decoded.request.invocation_id)
        with self.lock:
            self.by_request[flight.key] = flight
        return answer_envelope(decoded, self.handler, logger=self.log)

    def _refuse(self, code: str, message: str) -> bytes:
        self.log.error("rejected DispatchEnvelope: %s: %s", code, message)
        return encode(failure_response(REJECT_CLASS, code=code, message=message))

    # -- client requests
    def call(self, method: str, params: Mapping[str, Any], timeout_s: Optional[float]) -> Any:
        """Send a request to the host and wait for its result; raises :class:`StreamRPCError`,
        :class:`StreamClosedError`, :class:`RequestFrameTooLargeError` (nothing sent) or
        ``TimeoutError`` (``timeout_s`` covers the wait for a slot too: at most
        limits.max_client_requests_in_flight requests are unanswered at a time)."""
        # Encoded and sized first, outside the lock: a request that cannot go fails before it takes
        # a slot (nothing to give back), and the encoding of a large blob holds no other thread up.
        with self.lock:
            self.next_id += 1
            rpc_id = f"c{self.next_id}"
        frame = _frame_bytes({"jsonrpc": "2.0", "id": rpc_id, "method": method, "params": dict(params)})
        if len(frame) - 1 > LIMIT_MAX_FRAME_BYTES:
            raise RequestFrameTooLargeError(len(frame) - 1, LIMIT_MAX_FRAME_BYTES)
        call = _Call()
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        with self.lock:
            if not self.closed and len(self.calls) >= LIMIT_MAX_CLIENT_REQUESTS_IN_FLIGHT:
                # Waiting for the host too: a handler place is lent meanwhile (see _start_event).
                self.slot_waiters += 1
                self.handler_free.notify()
                try:
                    while not self.closed and len(self.calls) >= LIMIT_MAX_CLIENT_REQUESTS_IN_FLIGHT:
                        left = None if deadline is None else deadline - time.monotonic()
                        if left is not None and left <= 0:
                            raise TimeoutError(f"{method}: {LIMIT_MAX_CLIENT_REQUESTS_IN_FLIGHT} requests to the host still unanswered after {timeout_s} s; not sent")
                        self.slot_free.wait(left)
                finally:
                    self.slot_waiters -= 1
            if self.closed:
                raise StreamClosedError("the stream has ended; the request was not sent")
            self.calls[_id_key(rpc_id)] = call
            self.handler_free.notify()  # one more place for a handler while it is in flight
        self.write(frame)
        if not call.done.wait(None if deadline is None else max(0.0, deadline - time.monotonic())):
            # The entry stays until the host answers: the host counts the request until then.
            raise TimeoutError(f"{method}: no reply from the host within {timeout_s} s")
        if call.frame is None:
            raise StreamClosedError("the stream ended before the host answered")
        if call.frame.error is not None:
            raise call.frame.error
        return call.frame.result

    def close(self) -> None:
        with self.lock:
            self.closed = True
            calls, self.calls = list(self.calls.values()), {}
            self.slot_free.notify_all()
            self.handler_free.notify_all()
            for flight in self.events.values():
                flight.cancelled = True
                flight.done.set()
        for call in calls:
            call.done.set()


class _Call:
    __slots__ = ("done", "frame")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.frame: Optional[Frame] = None

    def settle(self, frame: Frame) -> None:
        self.frame = frame
        self.done.set()


def run_command(group: str, args: Sequence[str], stdin: Optional[bytes], timeout_s: float) -> Tuple[bytes, bytes]:
    """Run one client-initiated command over the active stream, as the CLI would: returns the
    ``(stdout, stderr)`` the CLI would have printed on success (the JSON result, or for a blob-out
    command the blob and the JSON metadata). ``args`` are the CLI arguments after the group
    (``["put", "--thread", "t", ...]``). Raises :class:`StreamRPCError` for an error reply,
    :class:`StreamClosedError` or ``TimeoutError``; ``LookupError`` when no stream is active or the
    command is not in the table."""
    stream = _ACTIVE
    if stream is None:
        raise LookupError("no stream is being served")
    table: Any = CLIENT_INITIATED_COMMANDS_TABLE
    entry = next((g for g in table["groups"] if g["group"] == group), None)
    command = None if entry is None or not args else next((c for c in entry["commands"] if c["command"] == args[0]), None)
    if entry is None or command is None:
        raise LookupError(f"{group} {' '.join(args[:1])} is not in client-initiated-commands.json")
    kinds = {flag["flag"]: flag["value"] for flag in command["flags"]}
    params: Dict[str, Any] = {}
    for name, value in zip(args[1::2], args[2::2]):
        params[name[2:].replace("-", "_")] = int(value) if kinds.get(name) == "unsigned_integer" else value
    if command["stdin"] == "blob":
        params[BLOB_MEMBER] = base64.b64encode(stdin or b"").decode("ascii")
    result = stream.call(f"{entry['stream_v2_method_prefix']}{command['command']}", params, timeout_s)
    if not isinstance(result, dict):
        raise StreamRPCError(RPC_INVALID_REQUEST, "the result is not a JSON object")
    if command["stdout"] != "blob":
        return _dump(result), b""
    meta = {k: v for k, v in result.items() if k != BLOB_MEMBER}
    blob = result.get(BLOB_MEMBER)
    if not isinstance(blob, str):
        raise StreamRPCError(RPC_INVALID_REQUEST, f"the result has no base64 member {BLOB_MEMBER!r}")
    try:
        decoded = base64.b64decode(blob, validate=True)
    except ValueError as error:  # binascii.Error: the host broke the result's shape
        raise StreamRPCError(RPC_INVALID_REQUEST, f"the result member {BLOB_MEMBER!r} is not base64: {error}") from None
    return decoded, _dump(meta)


def serve_stream_io(
    stdin: IO[bytes],
    stdout: IO[bytes],
    stderr: IO[str],
    handler: Handler,
) -> int:
    """Serve a stream on the given binary streams (see the module); returns the exit status:
    0 at stdin EOF (after at most the shutdown grace for in-flight handlers), 1 after a framing
    violation or a read error. ``stdin`` is read with ``read1`` when it has one (else ``read``)."""
    global _ACTIVE
    log = LOGGER.getChild("stream")
    with logging_to(stderr):

        def write(frame: bytes) -> None:
            view = memoryview(frame)
            while view:
                written = stdout.write(view)
                view = view[written if written is not None else len(view) :]
            stdout.flush()

        stream = _Stream(write, handler, log)
        previous, _ACTIVE = _ACTIVE, stream
        reader = FrameReader(getattr(stdin, "read1", stdin.read))
        try:
            while True:
                try:
                    line = reader.next()
                    if line is None:
                        break
                    frame = decode_frame(line)
                except FramingError as error:
                    log.error("framing violation: %s", error)
                    return 1
                except OSError as error:
                    log.error("cannot read stdin: %s", error)
                    return 1
                stream.dispatch(frame)
            # Running handlers are not awaited (spec/stream-protocol.md §Shutdown): the host has ended
            # the stream, and the process exits within limits.stream_client_exit_ms.
            return 0
        finally:
            stream.close()
            _ACTIVE = previous


#: The signals that end a served stream at once (spec/stream-protocol.md §Shutdown).
_ENDING_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


class _SignalWakeReader:
    """The wire's input, whose blocking read also returns when a signal arrives (used by :func:`serve_stream`).

    Python runs signal handlers in the main thread only, between bytecodes; the kernel may deliver a
    process signal to any thread, and then the main thread's blocking ``read`` is not interrupted and
    the exit waits for the next frame. So each read first polls the wire together with the signal
    wakeup descriptor (``signal.set_wakeup_fd``), drains the wakeup bytes and returns to Python code,
    where the pending handler runs. ``read(n)`` returns what one ``read`` of the wire returns
    (``b""`` at EOF).
    """

    def __init__(self, wire: IO[bytes], wakeup_fd: int) -> None:
        self._wire = wire
        self._wakeup_fd = wakeup_fd
        self._poll = select.poll()
        self._poll.register(wire.fileno(), select.POLLIN | select.POLLHUP | select.POLLERR)
        self._poll.register(wakeup_fd, select.POLLIN)

    def read(self, n: int = -1) -> bytes:
        while True:
            ready = {fd for fd, _ in self._poll.poll()}
            if self._wakeup_fd in ready:
                _drain(self._wakeup_fd)
                continue  # the pending handler runs before the next poll (it exits for ours)
            return self._wire.read(n) or b""

    read1 = read

    def close(self) -> None:
        self._wire.close()


def _drain(fd: int) -> None:
    """Read a non-blocking descriptor until it is empty."""
    try:
        while os.read(fd, 512):
            pass
    except BlockingIOError:
        pass


def _terminate(signum: int, frame: Optional[types.FrameType]) -> None:
    """End the process with status 0 at once (installed by :func:`serve_stream` only).

    Unwinding with an exception instead raced the handler threads and the runner's own cleanup
    (status 1 now and then); the wire is unbuffered, so nothing written is lost by not unwinding.
    """
    del frame, signum
    try:
        sys.stderr.flush()
    finally:
        os._exit(0)


def _divert_stdio() -> Tuple[IO[bytes], IO[bytes]]:
    """Move the wire to private descriptors; fd 1 -> stderr, fd 0 -> /dev/null (see the module)."""
    wire_in, wire_out = os.dup(0), os.dup(1)
    os.dup2(2, 1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdout = sys.stderr
    return os.fdopen(wire_in, "rb", buffering=0), os.fdopen(wire_out, "wb", buffering=0)


#: A tap on the wire: given the private wire streams (binary, unbuffered), returns what the runner
#: reads frames from and writes frames to (each frame is one ``write`` call).
WireWrapper = Callable[[IO[bytes], IO[bytes]], Tuple[IO[bytes], IO[bytes]]]


def serve_stream(handler: Handler, *, wrap_wire: Optional[WireWrapper] = None) -> int:
    """Serve a stream on the process's stdio (see the module); returns the exit status.

    Use as ``raise SystemExit(serve(handler))``: :func:`lifeloop_callback.serve` calls this when
    ``--stream`` is among the arguments. A signal ends it with status 0 at once; in-flight
    handler threads are daemons and do not delay the exit, and a signal the kernel hands to a
    handler thread ends it too (see :class:`_SignalWakeReader`). One exception: a handler inside
    one long C call holds the GIL, and the exit waits for that call (spec/stream-protocol.md
    §Shutdown). ``wrap_wire`` taps the wire (tracing, or a test double that misbehaves on purpose).
    """
    raw_in, wire_out = _divert_stdio()
    wakeup_r, wakeup_w = os.pipe()
    os.set_blocking(wakeup_r, False)
    os.set_blocking(wakeup_w, False)
    wire_in: IO[bytes] = _SignalWakeReader(raw_in, wakeup_r)  # type: ignore[assignment]
    if wrap_wire is not None:
        wire_in, wire_out = wrap_wire(wire_in, wire_out)
    previous = {sig: signal.signal(sig, _terminate) for sig in _ENDING_SIGNALS}
    previous_wakeup = signal.set_wakeup_fd(wakeup_w, warn_on_full_buffer=False)
    try:
        return serve_stream_io(wire_in, wire_out, sys.stderr, handler)
    finally:
        signal.set_wakeup_fd(previous_wakeup)
        for sig, old in previous.items():
            signal.signal(sig, old)
        os.close(wakeup_r)
        os.close(wakeup_w)


__all__ = [
    "FrameReader",
    "FramingError",
    "StreamClosedError",
    "StreamRPCError",
    "WireWrapper",
    "decode_frame",
    "event_done",
    "run_command",
    "serve_stream",
    "serve_stream_io",
]
