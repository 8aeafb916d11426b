"""Every shared vector (generated/vectors/) gives the same verdict, rule id and pointer in Python."""

from __future__ import annotations

import base64
import json
from typing import Any, Dict, List

import pytest

from lifeloop_callback import WIRE_CLASSES, check, decode, encode

from conftest import VECTORS_DIR


def _load_vectors() -> List[Dict[str, Any]]:
    index = VECTORS_DIR / "index.json"
    if not index.is_file():
        raise RuntimeError(f"{index} is missing: run `npm run generate` in the repository root")
    listed = json.loads(index.read_text("utf-8"))["vectors"]
    vectors = []
    for entry in listed:
        case = json.loads((VECTORS_DIR / entry["path"]).read_text("utf-8"))
        vectors.append(case)
    return vectors


VECTORS = _load_vectors()


def test_there_are_vectors_for_every_document_type() -> None:
    types = {case["type"] for case in VECTORS}
    assert {"DispatchEnvelope", "CallbackResponse", "CallbackRequest", "PayloadEnvelope", "LifecycleReceipt"} <= types
    assert len(VECTORS) > 100
    assert {case["expect"] for case in VECTORS} == {"valid", "invalid"}


@pytest.mark.parametrize("case", VECTORS, ids=[case["id"] for case in VECTORS])
def test_vector(case: Dict[str, Any]) -> None:
    data = base64.b64decode(case["document_base64"])
    issues = check(case["type"], data)
    if case["expect"] == "valid":
        assert issues == (), f"{case['description']}: unexpected {issues[0] if issues else ''}"
        # A valid document decodes to its dataclass, encodes, and decodes back to the same value.
        cls = WIRE_CLASSES[case["type"]]
        value = decode(cls, data)
        assert decode(cls, encode(value)) == value
        return
    assert issues, f"{case['description']}: expected {case['rule']} but the document was accepted"
    assert issues[0].rule == case["rule"], f"{case['description']}: {issues[0]}"
    if case["pointer"] is not None:
        assert issues[0].pointer == case["pointer"], f"{case['description']}: {issues[0]}"
