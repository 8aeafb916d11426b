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
- At stdin EOF the status is 0 at once: running handlers are not awaited; each in-flight event is
  cancelled (its :func:`event_done` event is set and its reply is never written). SIGTERM, SIGINT
  and SIGHUP end the process at once with status 0 (spec/stream-protocol.md §Shutdown).
- stdout is reserved for frames: fd 1 points at stderr and fd 0 at ``/dev/null`` while serving (the
  wire uses private descriptors), so a stray ``print``, a C extension or a child process cannot
  corrupt the stream or steal its input.

Modules: this one is the process entry point (:func:`serve_stream`: signals, stdio diversion);
:mod:`.stream_session` runs one session (:func:`serve_stream_io`, handlers, the client's requests);
:mod:`.stream_frame` reads, decodes and writes frames. Go twin: sdk/go/stream_runner.go.
"""

from __future__ import annotations

import os
import select
import signal
import sys
import types
from typing import IO, Any, Callable, Optional, Tuple, cast

from ._gen_spec import STREAM_V2_TABLE
from .answer import Handler
from .stream_frame import (
    MESSAGE_MAX_LENGTH,
    METHOD_MAX_LENGTH,
    RESERVED_METHOD_PREFIX,
    STREAM_FLAG,
    FrameReader,
    FramingError,
    RequestFrameTooLargeError,
    StreamClosedError,
    StreamRPCError,
    decode_frame,
)
from .stream_session import active_stream, event_done, run_command, serve_stream_io

#: The signals that end a served stream at once (spec/stream-protocol.md §Shutdown): the names of
#: spec/tables/stream-v2.json ``shutdown.client_exit_signals`` (a name this platform lacks is an
#: import error).
_ENDING_SIGNALS: Tuple[signal.Signals, ...] = tuple(
    signal.Signals[name] for name in cast(Any, STREAM_V2_TABLE)["shutdown"]["client_exit_signals"]
)


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
    "MESSAGE_MAX_LENGTH",
    "METHOD_MAX_LENGTH",
    "RESERVED_METHOD_PREFIX",
    "STREAM_FLAG",
    "FrameReader",
    "FramingError",
    "RequestFrameTooLargeError",
    "StreamClosedError",
    "StreamRPCError",
    "WireWrapper",
    "active_stream",
    "decode_frame",
    "event_done",
    "run_command",
    "serve_stream",
    "serve_stream_io",
]
