"""The reference host (lifeloop event invoke, lifeloop-cli 0.9.0) drives the python-echo fixture."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import ECHO_CLIENT, SAMPLE_REQUEST, WIRE_VERSION, sdk_env

ENVELOPE = {"schema_version": WIRE_VERSION, "request": SAMPLE_REQUEST}


def test_reference_host_accepts_the_echo_response(reference_cli: str) -> None:
    done = subprocess.run(
        [reference_cli, "event", "invoke", "--client-cmd", sys.executable, "--client-arg", str(ECHO_CLIENT)],
        input=json.dumps(ENVELOPE).encode(),
        capture_output=True,
        timeout=60,
        env=sdk_env(),
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    receipt = json.loads(done.stdout)
    assert receipt["status"] == "delivered"
    assert (receipt["event"], receipt["event_id"], receipt["invocation_id"]) == ("frame.opening", "ev-1", "inv-1")
    assert receipt["failure_class"] is None
