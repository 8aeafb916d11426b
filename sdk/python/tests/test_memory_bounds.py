"""Untrusted documents cost memory proportional to their size, whatever their open maps hold.

Each case runs in a child process under ``RLIMIT_AS`` (a guard for the machine: the old code needed
gigabytes here) and measures the peak of Python allocations with ``tracemalloc`` while decoding,
then the test compares that peak with the input size. The bounds are what the values themselves
need (a ``float`` object is 24 bytes, a list slot 8 bytes, the decoded ``str`` one more copy of
the input) with room to spare; recording a JSON pointer per number, as the parser used to, costs
far more. The number at an integer field is still found (``/request/sequence`` written ``-0``).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, Dict

from lifeloop_callback._gen_spec import LIMIT_MAX_VALUES

from conftest import SAMPLE_REQUEST, WIRE_VERSION, sdk_env

#: As many ``-0`` as limits.max_values allows (a few values are the envelope's own members).
MINUS_ZEROS_BYTES = 3 * (LIMIT_MAX_VALUES - 64)

#: Address-space limit of the child (bytes): far above what the bounded code needs, far below
#: what recording a pointer per number needs for the long-key document.
ADDRESS_SPACE_LIMIT = 1 << 30
TIMEOUT_S = 120

CHILD = textwrap.dedent(
    """
    import json, resource, sys, tracemalloc
    resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
    from lifeloop_callback import CallbackResponse, DispatchEnvelope, ReceiptStatus, WireValidationError, decode, encode

    data = open(sys.argv[1], "rb").read()
    mode = sys.argv[2]
    metadata = json.loads(data)["request"]["metadata"] if mode == "encode" else None
    tracemalloc.start()
    if mode == "decode":
        try:
            decode(DispatchEnvelope, data)
            outcome = "valid"
        except WireValidationError as error:
            outcome = error.rule + " " + error.pointer
    else:
        outcome = str(len(encode(CallbackResponse(status=ReceiptStatus.DELIVERED, metadata=metadata))))
    peak = tracemalloc.get_traced_memory()[1]
    print(json.dumps({{"peak": peak, "outcome": outcome}}))
    """
)


def measure(tmp_path: Path, document: bytes, mode: str) -> Dict[str, Any]:
    """Decode ``document`` (or encode its request metadata as a response's) in a child; peak and outcome."""
    doc = tmp_path / "document.json"
    doc.write_bytes(document)
    script = tmp_path / "child.py"
    script.write_text(CHILD.format(limit=ADDRESS_SPACE_LIMIT), "utf-8")
    done = subprocess.run(
        [sys.executable, str(script), str(doc), mode],
        capture_output=True,
        timeout=TIMEOUT_S,
        env=sdk_env(),
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")[-2000:]
    result: Dict[str, Any] = json.loads(done.stdout)
    return result


def envelope(metadata_json: str, sequence: str = "1") -> bytes:
    """A DispatchEnvelope whose request metadata is the given JSON text."""
    request = json.dumps({**SAMPLE_REQUEST, "sequence": 1, "metadata": {}}, separators=(",", ":"))
    request = request.replace('"sequence":1', f'"sequence":{sequence}').replace(
        '"metadata":{}', f'"metadata":{metadata_json}'
    )
    return ('{"schema_version":"' + WIRE_VERSION + '","request":' + request + "}").encode()


def long_key_document() -> bytes:
    """About 500 KB: one 100,000-character member name holding 100,000 fractional numbers."""
    return envelope('{"' + "k" * 100_000 + '":[' + ",".join(["0.5"] * 100_000) + "]}")


def minus_zero_document(size: int, sequence: str = "1") -> bytes:
    """About ``size`` bytes: an open map holding an array of ``-0`` numbers."""
    count = size // 3
    return envelope('{"z":[' + ",".join(["-0"] * count) + "]}", sequence)


def test_long_member_name_with_many_fractions_decodes_in_bounded_memory(tmp_path: Path) -> None:
    document = long_key_document()
    result = measure(tmp_path, document, "decode")
    assert result["outcome"] == "valid"
    # 100,000 float objects (24 bytes) and list slots (8 bytes) for 4-byte lexemes: ~8x the input.
    assert result["peak"] < 12 * len(document), result


def test_encoding_a_long_member_name_with_many_fractions_stays_bounded(tmp_path: Path) -> None:
    document = long_key_document()
    result = measure(tmp_path, document, "encode")
    assert int(result["outcome"]) > 500_000
    # The encoder's chunks (one str per number) and the output: ~8x the input.
    assert result["peak"] < 12 * len(document), result


def test_a_limit_of_minus_zero_decodes_in_bounded_memory(tmp_path: Path) -> None:
    document = minus_zero_document(MINUS_ZEROS_BYTES)
    result = measure(tmp_path, document, "decode")
    assert result["outcome"] == "valid"
    # One list slot (8 bytes) per 3-byte "-0," plus the decoded text: ~4x the input.
    assert result["peak"] < 6 * len(document), result


def test_minus_zero_in_an_integer_field_is_still_found(tmp_path: Path) -> None:
    document = minus_zero_document(MINUS_ZEROS_BYTES, sequence="-0")
    result = measure(tmp_path, document, "decode")
    assert result["outcome"] == "schema.type /request/sequence"
    assert result["peak"] < 6 * len(document), result
