"""One served stream (v2) session: the event handlers' threads (:class:`_Workers`), the in-flight
events and the client's own requests to the host (:class:`_Stream`, :class:`_Call`),
:func:`run_command`, and the loop over explicit streams (:func:`serve_stream_io`). Framing:
:mod:`.stream_frame`; process entry point: :mod:`.stream`. Go twin: sdk/go/stream_session.go,
stream_read.go and stream_calls.go.
"""

from __future__ import annotations

import base64
import logging
import queue
import threading
import time
from typing import (
    IO,
    Any,
    Callable,
    Dict,
    Mapping,
    Optional,
    Sequence,
    Tuple,
)

from ._gen_runner_outcomes import HANDLER_CLASS, REJECT_CLASS
from ._gen_spec import (
    CLIENT_INITIATED_COMMANDS_TABLE,
    FAILURE_VARIANT_INVALID_REQUEST,
    LIMIT_CLIENT_HANDLER_CONCURRENCY,
    LIMIT_MAX_CLIENT_REQUESTS_IN_FLIGHT,
    LIMIT_MAX_FRAME_BYTES,
    WIRE_VERSION,
)
from ._gen_wire import CallbackRequest
from .answer import (
    LOGGER,
    Handler,
    answer_envelope,
    decode_envelope,
    encode_answer,
    failure_response,
    logging_to,
)
from .stream_frame import (
    _EVENT_KINDS,
    BLOB_MEMBER,
    METHOD_CANCEL,
    METHOD_EVENT_PREFIX,
    RPC_INVALID_REQUEST,
    RPC_METHOD_NOT_FOUND,
    RULE_FRAME_TOO_LARGE,
    Frame,
    FrameReader,
    FramingError,
    RequestFrameTooLargeError,
    RpcId,
    StreamClosedError,
    StreamRPCError,
    _dump,
    _frame_bytes,
    _id_key,
    _valid_id,
    decode_frame,
)

#: Longest wait of the reader for a free handler place before it looks at pending signals (s).
_SIGNAL_POLL_S = 0.05


class _Inflight:
    __slots__ = ("done", "cancelled", "key", "version")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.cancelled = False
        self.key: Optional[Tuple[str, str]] = None
        # The wire version the event's reply is written in: its envelope's once decoded (answer.py);
        # until then, and for a request outside the window, the current version.
        self.version = WIRE_VERSION


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
    def __init__(
        self,
        write: Callable[[bytes], None],
        handler: Handler,
        log: logging.Logger,
        lookahead: Callable[[], bytes] = lambda: b"",
    ) -> None:
        #: The bytes read from stdin and not yet dispatched (FrameReader.buffered), looked at on
        #: the reading thread only.
        self.lookahead = lookahead
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
            if (
                frame.method.startswith(METHOD_EVENT_PREFIX)
                and frame.method[len(METHOD_EVENT_PREFIX) :] in _EVENT_KINDS
            ):
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
            # A cancel the host wrote together with the request is already read: honour it before
            # the handler starts (the client.stream-cancel SHOULD), or a quick handler on its worker
            # thread could reply before this thread reaches the cancel's frame. The cancel frame is
            # still dispatched in its turn (then a no-op).
            if _cancel_buffered(self.lookahead(), frame.id):
                flight.cancelled = True
                flight.done.set()
        with self.lock:
            # Backpressure: the reader (this thread) reads nothing more until a handler returns.
            while (
                not self.closed
                and self.handlers >= LIMIT_CLIENT_HANDLER_CONCURRENCY + len(self.calls) + self.slot_waiters
            ):
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
            out = encode_answer(failure_response(HANDLER_CLASS, code="internal", message=str(error)), flight.version)
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
            out = encode_answer(
                failure_response(HANDLER_CLASS, code=RULE_FRAME_TOO_LARGE, message=text), flight.version
            )
            reply = _frame_bytes({"jsonrpc": "2.0", "id": frame.id}, b',"result":' + out)
        self.write(reply)

    def _answer(self, frame: Frame, event: str, flight: _Inflight) -> bytes:
        """The ``result`` of the reply to an event request: the frame carries no version (framing
        is judged by current); the envelope in its params is judged by its own, and the answer is
        written in it (answer.py)."""
        if frame.params is None:
            return self._refuse("schema.required", "the request has no params (a DispatchEnvelope)", flight.version)
        decoded = decode_envelope(_dump(frame.params), logger=self.log)
        if isinstance(decoded, bytes):
            return decoded
        flight.version = decoded.schema_version
        if decoded.request.event.value != event:
            return self._refuse(
                FAILURE_VARIANT_INVALID_REQUEST,
                f"method event/{event} does not match params.request.event {decoded.request.event.value!r}",
                flight.version,
            )
        flight.key = (decoded.request.event_id, decoded.request.invocation_id)
        with self.lock:
            self.by_request[flight.key] = flight
        return answer_envelope(decoded, self.handler, logger=self.log)

    def _refuse(self, code: str, message: str, version: str) -> bytes:
        self.log.error("rejected DispatchEnvelope: %s: %s", code, message)
        return encode_answer(failure_response(REJECT_CLASS, code=code, message=message), version)

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
                            raise TimeoutError(
                                f"{method}: {LIMIT_MAX_CLIENT_REQUESTS_IN_FLIGHT} requests to the host still unanswered after {timeout_s} s; not sent"
                            )
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


_CANCEL_METHOD_BYTES = METHOD_CANCEL.encode()


def _cancel_buffered(buffered: bytes, rpc_id: RpcId) -> bool:
    """Whether the complete frames in ``buffered`` (bytes read, not yet dispatched) hold a cancel
    notification for ``rpc_id``. Frames that do not decode are skipped here: the reader reports
    them in their turn."""
    if _CANCEL_METHOD_BYTES not in buffered:
        return False
    want = _id_key(rpc_id)
    lines = buffered.split(b"\n")
    for line in lines[:-1]:  # the last piece has no LF yet: not a complete frame
        if _CANCEL_METHOD_BYTES not in line:
            continue
        try:
            frame = decode_frame(line)
        except FramingError:
            continue
        if frame.kind != "notification" or frame.method != METHOD_CANCEL:
            continue
        target = (frame.params or {}).get("id")
        if target is not None and _valid_id(target) and _id_key(target) == want:
            return True
    return False


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
    command = (
        None if entry is None or not args else next((c for c in entry["commands"] if c["command"] == args[0]), None)
    )
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
    """Serve a stream on the given binary streams (see :mod:`lifeloop_callback.stream`); returns the
    exit status: 0 at stdin EOF (at once: in-flight events are cancelled, their handlers are not
    awaited), 1 after a framing violation or a read error. ``stdin`` is read with ``read1`` when it has one (else ``read``)."""
    global _ACTIVE
    log = LOGGER.getChild("stream")
    with logging_to(stderr):

        def write(frame: bytes) -> None:
            view = memoryview(frame)
            while view:
                written = stdout.write(view)
                view = view[written if written is not None else len(view) :]
            stdout.flush()

        reader = FrameReader(getattr(stdin, "read1", stdin.read))
        stream = _Stream(write, handler, log, reader.buffered)
        previous, _ACTIVE = _ACTIVE, stream
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
