"""Shared fixtures of the Python SDK tests (run with `python3 -m pytest -q sdk/python/tests`).

The package is imported from sdk/python (put on sys.path here, no install needed).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[3]
SDK_DIR = REPO_ROOT / "sdk" / "python"
VECTORS_DIR = REPO_ROOT / "generated" / "vectors"
ECHO_CLIENT = REPO_ROOT / "test" / "fixtures" / "client-lang-neutral" / "python-echo" / "echo.py"
REFERENCE_CLI = REPO_ROOT / ".cache" / "lifeloop-ref" / "bin" / "lifeloop"
INSTALL_HINT = "bash tools/setup/prepare.sh (installs lifeloop-cli 0.9.0 into .cache/lifeloop-ref)"

if str(SDK_DIR) not in sys.path:
    sys.path.insert(0, str(SDK_DIR))

# The current wire version comes from the generated SDK, never a literal: a bump needs no edit here.
from lifeloop_callback._gen_spec import WIRE_VERSION  # noqa: E402

#: A valid CallbackRequest (frame.opening, so it carries a frame_context) as a JSON object.
SAMPLE_REQUEST = {
    "schema_version": WIRE_VERSION,
    "event": "frame.opening",
    "event_id": "ev-1",
    "adapter_id": "codex",
    "adapter_version": "0.1.0",
    "integration_mode": "native_hook",
    "invocation_id": "inv-1",
    "frame_context": {"frame_id": "f1", "frame_class": "top_level"},
}

#: A valid PayloadEnvelope with an inline body as a JSON object.
SAMPLE_PAYLOAD = {
    "schema_version": WIRE_VERSION,
    "payload_id": "p1",
    "client_id": "ccd",
    "payload_kind": "k",
    "format": "text",
    "content_encoding": "utf8",
    "body": "hello",
    "byte_size": 5,
    "acceptable_placements": [{"placement": "developer_equivalent_frame", "requirement": "required"}],
}


@pytest.fixture(scope="session")
def reference_cli() -> str:
    """Path of the reference `lifeloop` binary; fails (never skips) when it is missing."""
    override = os.environ.get("LIFELOOP_REFERENCE_CLI")
    path = Path(override) if override else REFERENCE_CLI
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.fail(
            f"reference CLI not found at {path}: run `{INSTALL_HINT}` in {REPO_ROOT} "
            "(or set LIFELOOP_REFERENCE_CLI to a lifeloop 0.9.0 binary)",
            pytrace=False,
        )
    return str(path)


def sdk_env() -> dict:
    """Environment for a child Python process that must import the generated SDK."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SDK_DIR) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env
