"""Stream (v2) framing of the client runner: reading LF-terminated frames (:class:`FrameReader`),
decoding them strictly (:func:`decode_frame`, the ``stream.*`` rules of spec/tables/stream-v2.json),
writing them, and the errors of both. Session: :mod:`.stream_session`; entry point: :mod:`.stream`.
Go twin: sdk/go/stream_reader.go and stream_frame.go.
"""

from __future__ import annotations

import json
from typing import (
    Any,
    Callable,
    Dict,
    Optional,
    Tuple,
    Union,
)

from ._gen_spec import (
    EVENT_VOCABULARY,
    LIMIT_MAX_DEPTH,
    LIMIT_MAX_FRAME_BYTES,
    LIMIT_MAX_FRAME_VALUES,
    STREAM_V2_TABLE,
)
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
                    self._fail(
                        RULE_FRAME_TOO_LARGE, f"a frame exceeds the limit of {self._max} bytes (no LF within it)"
                    )
                frame += chunk[pos:] if pos else chunk
            self._chunk, self._pos = self._read(_CHUNK), 0
            if not self._chunk:
                if frame:
                    self._fail(RULE_UNTERMINATED_FRAME, "the stream ended inside a frame (no LF after its last bytes)")
                return None

    def buffered(self) -> bytes:
        """The bytes already read and not yet returned as frames (empty once a read failed).

        Only a look: :meth:`next` still returns each frame in them. Complete frames in it are those
        followed by an LF; the bytes after the last LF are the start of a frame still being read.
        """
        return b"" if self._error is not None else self._chunk[self._pos :]

    def _fail(self, rule: str, message: str) -> None:
        self._error = FramingError(rule, message)
        raise self._error


class Frame:
    """One decoded frame: ``kind`` is ``request``, ``notification``, ``success`` or ``error``."""

    __slots__ = ("kind", "id", "method", "params", "result", "error")

    def __init__(
        self, kind: str, rpc_id: Optional[RpcId], method: str = "", params: Optional[Dict[str, Any]] = None
    ) -> None:
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
    return (
        isinstance(value, int)
        and not isinstance(value, bool)
        and int(ids["integer_minimum"]) <= value <= int(ids["integer_maximum"])
    )


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
        if (
            not isinstance(method, str)
            or not 1 <= len(method) <= METHOD_MAX_LENGTH
            or method.startswith(RESERVED_METHOD_PREFIX)
        ):
            raise FramingError(
                RULE_METHOD,
                f"method must be a string of 1..{METHOD_MAX_LENGTH} characters not starting with {RESERVED_METHOD_PREFIX!r}",
            )
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
        raise FramingError(
            RULE_ERROR_OBJECT,
            f'error object: member "message" must be a string of at most {MESSAGE_MAX_LENGTH} characters',
        )
    return StreamRPCError(code, message, error.get("data"))


def _dump(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")


def _frame_bytes(head: Dict[str, Any], tail: bytes = b"") -> bytes:
    """``head`` as a JSON object with ``tail`` (pre-encoded ``,"member":value``) appended, plus LF."""
    return _dump(head)[:-1] + tail + b"}\n"
