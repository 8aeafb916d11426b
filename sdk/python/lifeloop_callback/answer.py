"""What the v1 runner (runner.py) and the stream runner (stream.py) share: the handler type, the
SDK's logger and its stderr sink, and turning one ``DispatchEnvelope`` into the bytes of one
``CallbackResponse`` (strict decoding, the refusals, the handler call, response validation and the
failure answers of :mod:`lifeloop_callback._gen_runner_outcomes`).

Both runners import this module and neither imports the other's internals (runner.py imports
stream.py only to serve ``--stream``).

Wire versions (spec/wire-window.md, "Who speaks which version"): a request is read with the whole
window (``WIRE_WINDOW``); its answer, the handler's response or a failure, is written in the
request's version (:func:`request_version`): every ``schema_version`` the SDK's dataclasses default
to the current version, the response's and its ``client_payloads``', is written as the request's,
and the response is judged with the window closed to that version before it is written. A request
outside the window (or without a readable ``schema_version``) is answered in the current version.
A handler needs no configuration for any of this.
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
    LIMIT_MAX_DEPTH,
    LIMIT_MAX_REQUEST_BYTES,
    LIMIT_MAX_RESPONSE_BYTES,
    LIMIT_RUNNER_WARNING_MESSAGE_CODE_POINTS,
    WIRE_VERSION,
)
from ._gen_window import WIRE_WINDOW
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
from .strict_json import parse_strict_json

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
    4096 code points; an empty message becomes the code, because a Warning's message is never empty
    in the current version); ``metadata`` becomes the response's open map. Handy for handlers that want to
    fail on purpose.
    """
    warnings: Tuple[Warning, ...] = ()
    if code:
        warnings = (Warning(code=code, message=(message or code)[:_MAX_WARNING_MESSAGE]),)
    return CallbackResponse(
        status=ReceiptStatus.FAILED,
        failure_class=failure_class,
        retry_class=FAILURE_RETRY_DEFAULTS[failure_class],
        warnings=warnings,
        metadata=dict(metadata or {}),
    )


def _issue_text(issue: ValidationIssue) -> str:
    return f'{issue.rule} at "{issue.pointer}": {issue.message}'


def request_version(data: bytes) -> str:
    """The wire version a runner answers the request ``data`` in: the root ``schema_version`` of
    the bytes when they parse (strictly) to an object whose ``schema_version`` is a version of
    ``WIRE_WINDOW``, else the current version (a request outside the window is answered in current).
    Never raises for any bytes."""
    parsed = parse_strict_json(data, len(data), LIMIT_MAX_DEPTH, ())
    root = parsed.value if parsed.issue is None else None
    found = root.get("schema_version") if isinstance(root, dict) else None
    return found if isinstance(found, str) and found in WIRE_WINDOW else WIRE_VERSION


def encode_answer(response: CallbackResponse, version: str, max_response_bytes: Optional[int] = None) -> bytes:
    """The bytes of ``response`` written in wire ``version`` (a version of ``WIRE_WINDOW``; see the
    module) and judged with the window closed to it; raises :class:`WireValidationError` as
    :func:`lifeloop_callback.encode` does."""
    return encode(response, max_bytes=max_response_bytes, wire_version=version)


def decode_envelope(
    data: bytes,
    *,
    max_request_bytes: int = LIMIT_MAX_REQUEST_BYTES,
    logger: Optional[logging.Logger] = None,
) -> Union[DispatchEnvelope, bytes]:
    """Strictly decode one ``DispatchEnvelope`` (with the whole wire-version window) and refuse an
    event the host never dispatches.

    Returns the envelope, or the bytes of the failed ``CallbackResponse`` that answers it (the
    refusals of the runner module), written in the request's version (:func:`request_version`).
    Shared by the v1 runner (:func:`lifeloop_callback.runner.respond`) and the stream runner.
    """
    log = logger or LOGGER.getChild("runner")
    try:
        envelope = decode(DispatchEnvelope, data, max_bytes=max_request_bytes)
    except WireValidationError as error:
        issue = error.issues[0]
        log.error("rejected DispatchEnvelope: %s", _issue_text(issue))
        return encode_answer(
            failure_response(REJECT_CLASS, code=issue.rule, message=_issue_text(issue)), request_version(data)
        )
    request = envelope.request
    if request.event.value not in DISPATCHABLE_EVENTS:
        text = f"{request.event.value} is never dispatched to a client (notification-only event)"
        log.error("rejected DispatchEnvelope: %s", text)
        return encode_answer(failure_response(GUARD_CLASS, code=GUARD_VARIANT, message=text), envelope.schema_version)
    return envelope


def answer_envelope(
    envelope: DispatchEnvelope,
    handler: Handler,
    *,
    max_response_bytes: int = LIMIT_MAX_RESPONSE_BYTES,
    logger: Optional[logging.Logger] = None,
) -> bytes:
    """Call ``handler`` with a decoded envelope and return the bytes of the ``CallbackResponse`` to
    send, in the envelope's wire version (see the module): the handler's, validated with the window
    closed to that version, or the failed one the runner module documents. Never raises an
    ``Exception``."""
    log = logger or LOGGER.getChild("runner")
    request = envelope.request
    version = envelope.schema_version
    try:
        with contextlib.redirect_stdout(sys.stderr):
            response: object = handler(request, envelope.payloads)
    except Exception as error:  # noqa: BLE001 - any handler failure becomes internal_error
        log.error("handler raised %s:\n%s", type(error).__name__, traceback.format_exc().rstrip())
        return encode_answer(
            failure_response(HANDLER_CLASS, code=HANDLER_THREW_CODE, message=f"{type(error).__name__}: {error}"),
            version,
        )
    if not isinstance(response, CallbackResponse):
        text = f"handler returned {type(response).__name__}, not CallbackResponse"
        log.error("%s", text)
        return encode_answer(failure_response(HANDLER_CLASS, code=INVALID_RESPONSE_CODE, message=text), version)
    try:
        return encode_answer(response, version, max_response_bytes)
    except WireValidationError as error:
        text = "; ".join(_issue_text(issue) for issue in error.issues[:8])
        log.error("handler returned an invalid CallbackResponse: %s", text)
        return encode_answer(failure_response(HANDLER_CLASS, code=error.rule, message=text), version)


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
