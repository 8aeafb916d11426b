"""Every cross-version vector (generated/vectors/window/, spec/wire-window.md) gives the same verdict,
rule id, pointer and (for the outside-window refusals) exact message in Python, judged as its
``type`` with its ``window`` (``null``: the SDK's default window, which must be the index's
``default_window``); the fast path never accepts what the exact path refuses."""

from __future__ import annotations

import base64
import json
from typing import Any, Dict, List

import pytest

from lifeloop_callback import (
    WIRE_CLASSES,
    WIRE_WINDOW,
    WireValidationError,
    check,
    decode,
)
from lifeloop_callback._gen_spec import LIMIT_MAX_DEPTH, LIMIT_MAX_REQUEST_BYTES
from lifeloop_callback.codec import _object_from_json
from lifeloop_callback.fast_decode import fast_decode
from lifeloop_callback.validation import check_document, reader_window

from conftest import VECTORS_DIR, WIRE_VERSION

WINDOW_DIR = VECTORS_DIR / "window"


def _index() -> Dict[str, Any]:
    path = WINDOW_DIR / "index.json"
    if not path.is_file():
        raise RuntimeError(f"{path} is missing: run `npm run generate` in the repository root")
    index: Dict[str, Any] = json.loads(path.read_text("utf-8"))
    return index


INDEX = _index()
VECTORS: List[Dict[str, Any]] = [
    json.loads((WINDOW_DIR / entry["path"]).read_text("utf-8")) for entry in INDEX["vectors"]
]


def test_the_index_is_this_sdks_window() -> None:
    assert INDEX["current"] == WIRE_VERSION
    assert tuple(INDEX["default_window"]) == WIRE_WINDOW
    assert {case["expect"] for case in VECTORS} == {"valid", "invalid"}
    assert any(case["window"] is not None for case in VECTORS), "closed windows are exercised too"


@pytest.mark.parametrize("case", VECTORS, ids=[case["id"] for case in VECTORS])
def test_window_vector(case: Dict[str, Any]) -> None:
    data = base64.b64decode(case["document_base64"])
    window = None if case["window"] is None else tuple(case["window"])
    issues = check(case["type"], data, window=window)
    if case["expect"] == "valid":
        assert issues == (), f"{case['description']}: {issues}"
        decoded = decode(WIRE_CLASSES[case["type"]], data, window=window)
        assert decoded is not None
    else:
        assert issues, case["description"]
        assert (issues[0].rule, issues[0].pointer) == (case["rule"], case["pointer"]), case["description"]
        if case["message"] is not None:
            assert issues[0].message == case["message"]
        with pytest.raises(WireValidationError):
            decode(WIRE_CLASSES[case["type"]], data, window=window)
    # The fast path accepts exactly the valid ones here, building what the exact path builds.
    versions = reader_window(window)
    fast = fast_decode(case["type"], data, LIMIT_MAX_REQUEST_BYTES, LIMIT_MAX_DEPTH, versions)
    value, exact = check_document(case["type"], data, LIMIT_MAX_REQUEST_BYTES, LIMIT_MAX_DEPTH, versions)
    if exact:
        assert fast is None
    else:
        assert fast is None or fast == _object_from_json(case["type"], value)
