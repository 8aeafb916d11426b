"""What the v1 runner (runner.py) and the stream runner (stream.py) share: the handler type, the
SDK's logger and its stderr sink, and turning one ``DispatchEnvelope`` into the bytes of one
``CallbackResponse`` (strict decoding, the refusals, the handler call, response validation and the
failure answers of :mod:`lifeloop_callback._gen_runner_outcomes`).

Both runners import this module and neither imports the other's internals (runner.py imports
stream.py only to serve ``--stream``).
"""

from __future__ import annotations

import contextlib
import logging
import sys
import traceback
from typing import IO, Callable, Iterator, Mapping, Optional, Tuple, Union

from ._gen_enums import FailureClass, ReceiptStatus
from ._gen_runner_outcomes import (
    GUARD_CLASS,
    GUARD_VARIANT,
    HANDLER_CLASS,
    HANDLER_THREW_CODE,
    INVALID_RESPONSE_CODE,
    REJECT_CLASS,
)
from ._gen_spec import (
    DISPATCHABLE_EVENTS,
    FAILURE_RETRY_DEFAULTS,
    LIMIT_MAX_REQUEST_BYTES,
    LIMIT_MAX_RESPONSE_BYTES,
    LIMIT_RUNNER_WARNING_MESSAGE_CODE_POINTS,
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

#: Longest warning message the runners write (code points).
_MAX_WARNING_MESSAGE = LIMIT_RUNNER_WARNING_MESSAGE_CODE_POINTS

#: The SDK's logger; its records (and its children's) go to stderr while a runner serves.
LOGGER = logging.getLogger("lifeloop_callback")


def failure_response(
    failure_class: FailureClass,
    *,
    code: Optional[str] = None,
    message: str = "",
    metadata: Optional[Mapping[str, JsonValue]] = None,
) -> CallbackResponse:
    """A ``status: failed`` response with ``failure_class`` and its default retry class.

    ``code``/``message`` add one ``Warning`` (message cut to limits.runner_warning_message_code_points,
    4096 code points); ``metadata`` becomes the response's open map. Handy for handlers that want to
    fail on purpose.
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


def _issue_text(issue: ValidationIssue) -> str:
    return f'{issue.rule} at "{issue.pointer}": {issue.message}'


def decode_envelope(
    data: bytes,
    *,
    max_request_bytes: int = LIMIT_MAX_REQUEST_BYTES,
    logger: Optional[logging.Logger] = None,
) -> Union[DispatchEnvelope, bytes]:
    """Strictly decode one ``DispatchEnvelope`` and refuse an event the host never dispatches.

    Returns the envelope, or the bytes of the failed ``CallbackResponse`` that answers it (the
    refusals of the runner module). Shared by the v1 runner (:func:`lifeloop_callback.runner.respond`)
    and the stream runner.
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
    send: the handler's, validated, or the failed one the runner module documents. Never raises an
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


@contextlib.contextmanager
def logging_to(stderr: IO[str]) -> Iterator[None]:
    """While the block runs, :data:`LOGGER` and its children log at INFO and above to ``stderr``
    only (one line per record, :class:`StreamLogHandler`); the logger's level, propagation and
    handlers are restored afterwards."""
    saved = (LOGGER.level, LOGGER.propagate)
    LOGGER.setLevel(logging.INFO)
    LOGGER.propagate = False
    sink = StreamLogHandler(stderr)
    LOGGER.addHandler(sink)
    try:
        yield
    finally:
        LOGGER.removeHandler(sink)
        LOGGER.setLevel(saved[0])
        LOGGER.propagate = saved[1]
