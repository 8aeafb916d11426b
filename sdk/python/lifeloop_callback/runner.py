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
- Wire versions (spec/wire-window.md): the envelope is read with the whole window (``WIRE_WINDOW``)
  and the response is written in the envelope's version, checked with the window closed to it;
  an envelope outside the window is refused (rule ``schema-version-current``) in the current
  version. The handler needs no configuration (:mod:`lifeloop_callback.answer`).
"""

from __future__ import annotations

import contextlib
import logging
import sys
from typing import IO, List, Optional, Sequence, Tuple

from ._gen_runner_outcomes import READ_CLASS, READ_CODE
from ._gen_spec import LIMIT_MAX_REQUEST_BYTES, LIMIT_MAX_RESPONSE_BYTES
from .answer import (
    LOGGER,
    Handler,
    answer_envelope,
    decode_envelope,
    failure_response,
    logging_to,
)
from .codec import encode
from .stream import STREAM_FLAG, serve_stream

__all__ = ["Handler", "failure_response", "read_bounded", "respond", "serve", "serve_io"]

_CHUNK = 65536


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
    with logging_to(stderr):
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


def serve(handler: Handler, argv: Optional[Sequence[str]] = None) -> int:
    """Serve one event on the process's real stdin/stdout/stderr; returns the exit status (0).

    Use as ``raise SystemExit(serve(handler))``. When ``argv`` (default ``sys.argv[1:]``) holds
    ``--stream``, serve a stream instead, with the same handler (:func:`lifeloop_callback.stream.serve_stream`).
    """
    if STREAM_FLAG in (sys.argv[1:] if argv is None else argv):
        return serve_stream(handler)
    return serve_io(sys.stdin.buffer, sys.stdout.buffer, sys.stderr, handler)
