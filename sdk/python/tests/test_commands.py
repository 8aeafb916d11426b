"""Client-initiated commands against the real reference CLI (lifeloop-cli 0.5.0).

Each test points LIFELOOP_CONTINUATION_ROOT at its own temporary directory. The reference binary
is .cache/lifeloop-ref-0.5.0/bin/lifeloop, the last reference release with the continuation store
(removed in 0.6.0); when it is missing the tests fail with the install command.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Dict

import pytest

from lifeloop_callback import (
    COMMAND_GROUPS,
    CommandFailedError,
    CommandOutputError,
    CommandReportedError,
    CommandSpawnError,
    CommandTimeoutError,
    CommandUsageError,
    Continuation,
    ContinuationBlobTooLargeError,
    ContinuationClientIdMismatchError,
    ContinuationInvalidIdentifierError,
    ContinuationNotFoundError,
    ContinuationStorageFailureError,
    ListedEntry,
)

from conftest import REPO_ROOT


@pytest.fixture(scope="session")
def reference_cli() -> str:
    """The continuation store's reference peer (lifeloop-cli 0.5.0); fails (never skips) when missing."""
    override = os.environ.get("LIFELOOP_CONTINUATION_REFERENCE_CLI")
    path = Path(override) if override else REPO_ROOT / ".cache" / "lifeloop-ref-0.5.0" / "bin" / "lifeloop"
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.fail(
            f"lifeloop 0.5.0 not found at {path}: run `bash tools/setup/prepare.sh` in {REPO_ROOT}", pytrace=False
        )
    return str(path)


def store_env(tmp_path: Path, **extra: str) -> Dict[str, str]:
    return {"LIFELOOP_CONTINUATION_ROOT": str(tmp_path / "store"), **extra}


@pytest.fixture
def store(reference_cli: str, tmp_path: Path) -> Continuation:
    return Continuation(reference_cli, timeout_s=20, env=store_env(tmp_path))


def test_registry_is_exposed() -> None:
    assert COMMAND_GROUPS["continuation"] is Continuation


def test_put_get_list_drop(store: Continuation, tmp_path: Path) -> None:
    before = int(time.time())
    put = store.put("t1", "k1", b"hello\x00bin", client_id="ccd", ttl_s=600)
    assert put.status == "ok" and put.written_at_epoch_s >= before
    assert store.put("t1", "k2", b"second").status == "ok"
    got = store.get("t1", "k1")
    assert got.blob == b"hello\x00bin"
    assert (got.client_id, got.ttl_s, got.written_at_epoch_s) == ("ccd", 600, put.written_at_epoch_s)
    other = store.get("t1", "k2", require_client_id="unknown")
    assert (other.blob, other.client_id, other.ttl_s) == (b"second", "unknown", None)
    listed = store.list("t1")
    assert listed.thread == "t1"
    assert sorted(listed.keys, key=lambda e: e.key) == [
        ListedEntry(key="k1", client_id="ccd", ttl_s=600, written_at_epoch_s=put.written_at_epoch_s),
        ListedEntry(key="k2", client_id="unknown", ttl_s=None, written_at_epoch_s=other.written_at_epoch_s),
    ]
    assert listed.diagnostics == ()
    assert store.drop("t1", "k2").status == "ok"
    assert store.drop("t1", "k2").status == "ok"  # idempotent
    dropped = store.drop_thread("t1")
    assert (dropped.status, dropped.dropped_count) == ("ok", 1)
    assert store.drop_thread("t1").dropped_count == 0
    assert store.list("nothread").keys == ()
    assert (tmp_path / "store").is_dir()


def test_empty_and_binary_blobs(store: Continuation) -> None:
    store.put("t", "empty", b"")
    assert store.get("t", "empty").blob == b""
    blob = bytes(range(256)) * 64
    store.put("t", "bin", blob)
    assert store.get("t", "bin").blob == blob


def test_structured_errors(store: Continuation, reference_cli: str, tmp_path: Path) -> None:
    with pytest.raises(ContinuationNotFoundError) as not_found:
        store.get("t", "missing")
    assert not_found.value.error == "not_found" and not_found.value.exit_code == 3
    store.put("t", "k", b"x", client_id="ccd")
    with pytest.raises(ContinuationClientIdMismatchError) as mismatch:
        store.get("t", "k", require_client_id="other")
    assert (mismatch.value.actual, mismatch.value.required) == ("ccd", "other")
    with pytest.raises(ContinuationClientIdMismatchError):
        store.drop("t", "k", require_client_id="other")
    assert store.get("t", "k").blob == b"x"  # the guarded drop kept it
    with pytest.raises(ContinuationInvalidIdentifierError) as invalid:
        store.put("a/b", "k", b"x")
    assert (invalid.value.field, invalid.value.detail) == (
        "thread",
        "must contain only ASCII alphanumerics, `_`, `-`, or `.`",
    )
    with pytest.raises(ContinuationInvalidIdentifierError) as invalid:
        store.get("t", ".hidden")
    assert invalid.value.field == "key"
    small = Continuation(reference_cli, env=store_env(tmp_path, LIFELOOP_CONTINUATION_MAX_BYTES="4"))
    assert small.put("t", "ok4", b"1234").status == "ok"
    with pytest.raises(ContinuationBlobTooLargeError) as too_large:
        small.put("t", "big", b"12345")
    assert too_large.value.max_bytes == 4
    assert isinstance(too_large.value, CommandReportedError)
    afile = tmp_path / "afile"
    afile.write_text("x")
    broken = Continuation(reference_cli, env={"LIFELOOP_CONTINUATION_ROOT": str(afile)})
    with pytest.raises(ContinuationStorageFailureError) as storage:
        broken.put("t", "k", b"x")
    assert "Not a directory" in (storage.value.reason or "")


def test_expired_entries(store: Continuation) -> None:
    store.put("t", "gone", b"x", ttl_s=0)
    with pytest.raises(ContinuationNotFoundError):
        store.get("t", "gone")
    assert [entry.key for entry in store.list("t").keys] == []


def test_usage_errors_and_argument_checks(reference_cli: str, tmp_path: Path, store: Continuation) -> None:
    bad_env = Continuation(reference_cli, env=store_env(tmp_path, LIFELOOP_CONTINUATION_MAX_BYTES="abc"))
    with pytest.raises(CommandUsageError) as usage:
        bad_env.put("t", "k", b"x")
    assert usage.value.exit_code == 2 and "LIFELOOP_CONTINUATION_MAX_BYTES" in str(usage.value)
    with pytest.raises(ValueError):
        store.put("t", "k", b"x", ttl_s=-1)
    with pytest.raises(ValueError):
        store.put("t", "k", b"x", ttl_s=True)
    with pytest.raises(TypeError):
        store.get("t", 5)  # type: ignore[arg-type]


def fake_cli(tmp_path: Path, body: str) -> list:
    script = tmp_path / "fake_cli.py"
    script.write_text("import sys, time\n" + body + "\n", "utf-8")
    return [sys.executable, str(script)]


def test_timeout_kills_the_child(tmp_path: Path) -> None:
    marker = tmp_path / "still-running"
    cli = fake_cli(tmp_path, f"time.sleep(30)\nopen({str(marker)!r}, 'w').write('x')")
    started = time.monotonic()
    with pytest.raises(CommandTimeoutError):
        Continuation(cli, timeout_s=0.5).list("t")
    assert time.monotonic() - started < 10
    assert not marker.exists()


def test_spawn_output_and_failure_errors(tmp_path: Path) -> None:
    with pytest.raises(CommandSpawnError) as spawn:
        Continuation(str(tmp_path / "no-such-cli")).list("t")
    # The start failure says how to point the helper at the CLI (often only in node_modules/.bin).
    for hint in ("$LIFELOOP_CLI", "cli=", "node_modules/.bin/lifeloop-callback"):
        assert hint in str(spawn.value)
    garbage = fake_cli(tmp_path, "sys.stdout.write('not json')")
    with pytest.raises(CommandOutputError):
        Continuation(garbage).list("t")
    missing_field = fake_cli(tmp_path, 'sys.stdout.write(\'{"status": "ok"}\')')
    with pytest.raises(CommandOutputError):
        Continuation(missing_field).drop_thread("t")
    crash = fake_cli(tmp_path, "sys.stderr.write('segfault-ish'); sys.exit(7)")
    with pytest.raises(CommandFailedError) as failed:
        Continuation(crash).list("t")
    assert failed.value.exit_code == 7 and "segfault-ish" in failed.value.stderr
    unknown = fake_cli(tmp_path, 'sys.stderr.write(\'{"error":"brand_new","x":1}\\n\'); sys.exit(3)')
    with pytest.raises(CommandReportedError) as reported:
        Continuation(unknown).list("t")
    assert type(reported.value) is CommandReportedError and reported.value.fields == {"error": "brand_new", "x": 1}


def test_argv_is_passed_without_a_shell(tmp_path: Path) -> None:
    cli = fake_cli(tmp_path, "import json; sys.stdout.write(json.dumps({'status': 'ok', 'argv': sys.argv[1:]}))")
    result = Continuation(cli).drop("t; rm -rf /", "$(echo k)", require_client_id="c d")
    assert result.raw["argv"] == [
        "continuation",
        "drop",
        "--thread",
        "t; rm -rf /",
        "--key",
        "$(echo k)",
        "--require-client-id",
        "c d",
    ]


def test_env_overrides_are_added_to_the_environment(tmp_path: Path) -> None:
    cli = fake_cli(
        tmp_path,
        "import json, os; sys.stdout.write(json.dumps({'status': os.environ['X_TEST'], 'p': 'PATH' in os.environ}))",
    )
    result = Continuation(cli, env={"X_TEST": "ok"}).drop("t", "k")
    assert result.status == "ok" and result.raw["p"] is True
    assert os.environ.get("X_TEST") is None


def _our_cli(tmp_path: Path) -> str:
    """A one-line wrapper that runs this repository's lifeloop-callback CLI (dist/, npm run build)."""
    main = Path(__file__).resolve().parents[3] / "dist" / "runtime" / "cli" / "main.js"
    assert main.exists(), f"{main} is missing: run npm run build"
    wrapper = tmp_path / "lifeloop-callback"
    wrapper.write_text(f'#!/bin/sh\nexec node "{main}" "$@"\n')
    wrapper.chmod(0o755)
    return str(wrapper)


def test_program_override_variable(reference_cli: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The program defaults to ``lifeloop-callback`` (the group is this toolkit's extension: the
    reference's ``lifeloop`` no longer ships it); the group's variable (from ``env`` or the process) overrides
    it; an explicit ``cli`` wins over both. The same calls work against the reference CLI and ours."""
    variable = Continuation._PROGRAM_ENV
    assert (Continuation._PROGRAM, variable) == ("lifeloop-callback", "LIFELOOP_CLI")
    for i, program in enumerate([reference_cli, _our_cli(tmp_path)]):
        monkeypatch.setenv(variable, program)
        store = Continuation(timeout_s=20, env=store_env(tmp_path / str(i)))
        assert store.cli == (program,)
        store.put("t", "k", b"v\x00", client_id="me")
        got = store.get("t", "k")
        assert (got.blob, got.client_id) == (b"v\x00", "me")
        with pytest.raises(ContinuationNotFoundError):
            store.get("t", "missing")
    monkeypatch.delenv(variable)
    assert Continuation().cli == ("lifeloop-callback",)
    assert Continuation(env={variable: reference_cli}).cli == (reference_cli,)
    monkeypatch.setenv(variable, "/no/such/program")
    assert Continuation(reference_cli).cli == (reference_cli,)


def test_default_timeout_is_the_limits_table_value() -> None:
    """Without ``timeout_s`` a command's deadline is limits.client_command_timeout_ms, read from
    spec/tables/limits.json independently of the generated constant (the Go and TypeScript clients
    use the same value)."""
    table = json.loads((REPO_ROOT / "spec" / "tables" / "limits.json").read_text(encoding="utf-8"))
    value = next(row["value"] for row in table["limits"] if row["name"] == "client_command_timeout_ms")
    assert value == 30000
    assert Continuation().timeout_s * 1000 == value
    assert Continuation("lifeloop", timeout_s=2.5).timeout_s == 2.5
