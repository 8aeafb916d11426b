"""The shared stream vectors (generated/vectors/stream/, spec/stream-protocol.md) through the Python
reader: FrameReader bounded by the vector's max_frame_bytes, fed whole, one byte per read and 7 bytes
per read, every frame judged by decode_frame, must yield exactly the vector's frames (kind, id with
its JSON type, method) and then its violation rule, as the TypeScript and Go readers do."""

from __future__ import annotations

import base64
import json
from typing import Any, Dict, Iterator, List, Optional, Tuple

import pytest

from lifeloop_callback.stream import FrameReader, FramingError, decode_frame

from conftest import VECTORS_DIR

STREAM_DIR = VECTORS_DIR / "stream"
#: The kinds as the vectors (and spec/tables/stream-v2.json frames) name them.
KINDS = {"request": "request", "notification": "notification", "success": "success_reply", "error": "error_reply"}


def _vectors() -> List[Dict[str, Any]]:
    index = json.loads((STREAM_DIR / "index.json").read_text(encoding="utf-8"))
    return [json.loads((VECTORS_DIR / entry["path"]).read_text(encoding="utf-8")) for entry in index["vectors"]]


VECTORS = _vectors()


def read_stream(data: bytes, max_frame_bytes: int, chunk: int) -> Tuple[List[Dict[str, Any]], Optional[str]]:
    parts: Iterator[bytes] = (data[i : i + chunk] for i in range(0, len(data), chunk))
    reader = FrameReader(lambda _n: next(parts, b""), max_frame_bytes)
    frames: List[Dict[str, Any]] = []
    try:
        while True:
            line = reader.next()
            if line is None:
                return frames, None
            frame = decode_frame(line)
            got: Dict[str, Any] = {"kind": KINDS[frame.kind]}
            if frame.id is not None:
                got["id"] = frame.id
            if frame.method:
                got["method"] = frame.method
            frames.append(got)
    except FramingError as error:
        return frames, error.rule


def test_the_corpus_has_valid_and_invalid_cases() -> None:
    assert sum(v["verdict"] == "valid" for v in VECTORS) > 5
    assert sum(v["verdict"] == "invalid" for v in VECTORS) > 20


@pytest.mark.parametrize("vector", VECTORS, ids=[v["id"] for v in VECTORS])
def test_stream_vector(vector: Dict[str, Any]) -> None:
    data = base64.b64decode(vector["input_base64"])
    for chunk in (max(1, len(data)), 1, 7):
        frames, rule = read_stream(data, vector["max_frame_bytes"], chunk)
        assert (chunk, frames, rule) == (chunk, vector["frames"], vector["rule"])


def test_frame_bounds_match_the_schemas() -> None:
    from lifeloop_callback import stream

    from conftest import REPO_ROOT

    schemas = REPO_ROOT / "schemas" / "stream"
    request = json.loads((schemas / "jsonrpc-request.schema.json").read_text(encoding="utf-8"))
    method = request["properties"]["method"]
    assert method["maxLength"] == stream.METHOD_MAX_LENGTH
    assert method["not"]["pattern"] == "^" + stream.RESERVED_METHOD_PREFIX.replace(".", "\\.")
    reply = json.loads((schemas / "jsonrpc-error-reply.schema.json").read_text(encoding="utf-8"))
    assert reply["properties"]["error"]["properties"]["message"]["maxLength"] == stream.MESSAGE_MAX_LENGTH


def test_exit_signals_follow_the_table() -> None:
    from lifeloop_callback import stream

    from conftest import REPO_ROOT

    table = json.loads((REPO_ROOT / "spec" / "tables" / "stream-v2.json").read_text(encoding="utf-8"))
    assert [sig.name for sig in stream._ENDING_SIGNALS] == table["shutdown"]["client_exit_signals"]
