"""The client runner: the few lines that make a Python program a subprocess callback client.

A host spawns the client once per event, writes one ``DispatchEnvelope`` to its stdin and closes
it, then reads exactly one ``CallbackResponse`` from its stdout (spec/tables/subprocess-wire-framing.json).
:func:`serve` does all of that around the author's handler::

    from lifeloop_callback import CallbackResponse, ReceiptStatus, serve

    def handle(request, payloads):
        return CallbackResponse(status=ReceiptStatus.DELIVERED, metadata={"seen": request.event.value})

    raise SystemExit(serve(handle))

Behaviour (every outcome is one valid ``CallbackResponse`` on stdout and exit status 0):

- stdin is read to EOF, at most limits.max_request_bytes bytes are kept (the rest is drained so
  the host never sees a broken pipe). The envelope is decoded strictly (:func:`decode`).
- Every refusal and failure becomes ``status: failed`` with a failure class and its default retry
  class (spec/tables/failure-retry-defaults.json), plus one warning whose code names the failure
  variant of spec/tables/subprocess-failure-mapping.json (the ``FAILURE_VARIANT_*`` constants of
  :mod:`lifeloop_callback._gen_spec`) and whose message says why. A handler's traceback goes to stderr.
  :mod:`lifeloop_callback._gen_runner_outcomes` lists every outcome, in the order the runner checks,
  with the constants it uses. The Go SDK's runner answers the same (it adds a ``timeout`` outcome
  for a context that ends).
- While the handler runs, ``sys.stdout`` is redirected to stderr, so a stray ``print`` cannot
  corrupt the response. Log lines go to stderr: records of the ``lifeloop_callback`` logger and
  its children (use ``logging.getLogger("lifeloop_callback.client")`` in a handler).
- stdout is flushed before returning. Only a failure to write stdout itself returns exit status 1.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import traceback
from typing import IO, Callable, List, Mapping, Optional, Sequence, Tuple, Union

from ._gen_enums import FailureClass, ReceiptStatus
from ._gen_runner_outcomes import (
    GUARD_CLASS,
    GUARD_VARIANT,
    HANDLER_CLASS,
    HANDLER_THREW_CODE,
    INVALID_RESPONSE_CODE,
    READ_CLASS,
    READ_CODE,
    REJECT_CLASS,
)
from ._gen_spec import (
    DISPATCHABLE_EVENTS,
    FAILURE_RETRY_DEFAULTS,
    LIMIT_MAX_REQUEST_BYTES,
    LIMIT_MAX_RESPONSE_BYTES,
)
from ._gen_wire import (
    CallbackRequest,
    CallbackResponse,
    DispatchEnvelope,
    PayloadEnvelope,
    Warning,
)
from .codec import decode, encode
from .issues import ValidationIssue, WireValidationError
from .json_value import JsonValue

#: The author's handler: ``(request, payloads) -> CallbackResponse``.
Handler = Callable[[CallbackRequest, Tuple[PayloadEnvelope, ...]], CallbackResponse]

#: Longest warning message the runner writes (code points).
_MAX_WARNING_MESSAGE = 4096
_CHUNK = 65536

LOGGER = logging.getLogger("lifeloop_callback")


def failure_response(
    failure_class: FailureClass,
    *,
    code: Optional[str] = None,
    message: str = "",
    metadata: Optional[Mapping[str, JsonValue]] = None,
) -> CallbackResponse:
    """A ``status: failed`` response with ``failure_class`` and its default retry class.

    ``code``/``message`` add one ``Warning`` (message truncated to 4096 code points); ``metadata``
    becomes the response's open map. Handy for handlers that want to fail on purpose.
    """
    warnings: Tuple[Warning, ...] = ()
    if code:
        warnings = (Warning(code=code, message=message[:_MAX_WARNING_MESSAGE]),)
    return CallbackResponse(
        status=ReceiptStatus.FAILED,
        failure_class=failure_class,
        retry_class=FAILURE_RETRY_DEFAULTS[failure_class],
        warnings=warnings,
        metadata=dict(metadata or {}),
    )


def read_bounded(stream: IO[bytes], limit: int) -> Tuple[bytes, int]:
    """Read ``stream`` to EOF keeping at most ``limit + 1`` bytes; returns ``(kept, total_length)``."""
    kept: List[bytes] = []
    size = 0
    total = 0
    while True:
        chunk = stream.read(_CHUNK)
        if not chunk:
            break
        total += len(chunk)
        if size <= limit:
            take = chunk[: limit + 1 - size]
            kept.append(take)
            size += len(take)
    return b"".join(kept), total


def _issue_text(issue: ValidationIssue) -> str:
    return f'{issue.rule} at "{issue.pointer}": {issue.message}'


def respond(
    data: bytes,
    handler: Handler,
    *,
    max_request_bytes: int = LIMIT_MAX_REQUEST_BYTES,
    max_response_bytes: int = LIMIT_MAX_RESPONSE_BYTES,
    logger: Optional[logging.Logger] = None,
) -> bytes:
    """Turn the bytes of one ``DispatchEnvelope`` into the bytes of one ``CallbackResponse``.

    The pure core of :func:`serve_io` (no stdin/stdout): decoding, rejection, the handler call and
    response validation, as documented in this module. Never raises except for ``BaseException``s
    that are not ``Exception`` (e.g. ``KeyboardInterrupt``).
    """
    log = logger or LOGGER.getChild("runner")
    decoded = decode_envelope(data, max_request_bytes=max_request_bytes, logger=log)
    if isinstance(decoded, bytes):
        return decoded
    return answer_envelope(decoded, handler, max_response_bytes=max_response_bytes, logger=log)


def decode_envelope(
    data: bytes,
    *,
    max_request_bytes: int = LIMIT_MAX_REQUEST_BYTES,
    logger: Optional[logging.Logger] = None,
) -> Union[DispatchEnvelope, bytes]:
    """Strictly decode one ``DispatchEnvelope`` and refuse an event the host never dispatches.

    Returns the envelope, or the bytes of the failed ``CallbackResponse`` that answers it (the
    refusals of this module). Shared by :func:`respond` and the stream runner.
    """
    log = logger or LOGGER.getChild("runner")
    try:
        envelope = decode(DispatchEnvelope, data, max_bytes=max_request_bytes)
    except WireValidationError as error:
        issue = error.issues[0]
        log.error("rejected DispatchEnvelope: %s", _issue_text(issue))
        return encode(failure_response(REJECT_CLASS, code=issue.rule, message=_issue_text(issue)))
    request = envelope.request
    if request.event.value not in DISPATCHABLE_EVENTS:
        text = f"{request.event.value} is never dispatched to a client (notification-only event)"
        log.error("rejected DispatchEnvelope: %s", text)
        return encode(failure_response(GUARD_CLASS, code=GUARD_VARIANT, message=text))
    return envelope


def answer_envelope(
    envelope: DispatchEnvelope,
    handler: Handler,
    *,
    max_response_bytes: int = LIMIT_MAX_RESPONSE_BYTES,
    logger: Optional[logging.Logger] = None,
) -> bytes:
    """Call ``handler`` with a decoded envelope and return the bytes of the ``CallbackResponse`` to
    send: the handler's, validated, or the failed one this module documents. Never raises an
    ``Exception``."""
    log = logger or LOGGER.getChild("runner")
    request = envelope.request
    try:
        with contextlib.redirect_stdout(sys.stderr):
            response: object = handler(request, envelope.payloads)
    except Exception as error:  # noqa: BLE001 - any handler failure becomes internal_error
        log.error("handler raised %s:\n%s", type(error).__name__, traceback.format_exc().rstrip())
        return encode(
            failure_response(HANDLER_CLASS, code=HANDLER_THREW_CODE, message=f"{type(error).__name__}: {error}")
        )
    if not isinstance(response, CallbackResponse):
        text = f"handler returned {type(response).__name__}, not CallbackResponse"
        log.error("%s", text)
        return encode(failure_response(HANDLER_CLASS, code=INVALID_RESPONSE_CODE, message=text))
    try:
        return encode(response, max_bytes=max_response_bytes)
    except WireValidationError as error:
        text = "; ".join(_issue_text(issue) for issue in error.issues[:8])
        log.error("handler returned an invalid CallbackResponse: %s", text)
        return encode(failure_response(HANDLER_CLASS, code=error.rule, message=text))


class StreamLogHandler(logging.Handler):
    """Writes the SDK's log records to a text stream, one line each (never raises)."""

    def __init__(self, stream: IO[str]) -> None:
        super().__init__()
        self.stream = stream
        self.setFormatter(logging.Formatter("lifeloop_callback: %(levelname)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.stream.write(self.format(record) + "\n")
            self.stream.flush()
        except Exception:  # noqa: BLE001 - logging must never break the response
            pass


def serve_io(
    stdin: IO[bytes],
    stdout: IO[bytes],
    stderr: IO[str],
    handler: Handler,
    *,
    max_request_bytes: int = LIMIT_MAX_REQUEST_BYTES,
    max_response_bytes: int = LIMIT_MAX_RESPONSE_BYTES,
) -> int:
    """Run one callback exchange on the given streams; returns the process exit status.

    Reads ``stdin`` (binary) to EOF, writes exactly one ``CallbackResponse`` followed by ``\\n`` to
    ``stdout`` (binary) and flushes it, logs to ``stderr`` (text). Returns 0 whenever a response
    was written (including rejections and handler failures), 1 when stdout could not be written.
    """
    log = LOGGER.getChild("runner")
    saved = (LOGGER.level, LOGGER.propagate)
    LOGGER.setLevel(logging.INFO)
    LOGGER.propagate = False
    sink = StreamLogHandler(stderr)
    LOGGER.addHandler(sink)
    try:
        try:
            data, total = read_bounded(stdin, max_request_bytes)
        except (OSError, ValueError) as error:
            log.error("cannot read the request from stdin: %s", error)
            out = encode(failure_response(READ_CLASS, code=READ_CODE, message=str(error)))
        else:
            if total > len(data):
                log.error("request is %d bytes, over the limit of %d", total, max_request_bytes)
            with contextlib.redirect_stdout(stderr):
                out = respond(
                    data,
                    handler,
                    max_request_bytes=max_request_bytes,
                    max_response_bytes=max_response_bytes,
                    logger=log,
                )
        try:
            stdout.write(out + b"\n")
            stdout.flush()
        except (OSError, ValueError) as error:
            log.error("cannot write the response to stdout: %s", error)
            return 1
        return 0
    finally:
        LOGGER.removeHandler(sink)
        LOGGER.setLevel(saved[0])
        LOGGER.propagate = saved[1]


def serve(handler: Handler, argv: Optional[Sequence[str]] = None) -> int:
    """Serve one event on the process's real stdin/stdout/stderr; returns the exit status (0).

    Use as ``raise SystemExit(serve(handler))``. When ``argv`` (default ``sys.argv[1:]``) holds
    ``--stream``, serve a stream instead, with the same handler (:func:`lifeloop_callback.stream.serve_stream`).
    """
    from .stream import STREAM_FLAG, serve_stream  # noqa: PLC0415 - stream imports this module

    if STREAM_FLAG in (sys.argv[1:] if argv is None else argv):
        return serve_stream(handler)
    return serve_io(sys.stdin.buffer, sys.stdout.buffer, sys.stderr, handler)
