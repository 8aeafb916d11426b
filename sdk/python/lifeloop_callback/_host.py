"""Client-initiated commands, the part every group shares: running the host CLI and reading what it
prints (CALLBACK-001, Client-Initiated Commands).

The generated :mod:`lifeloop_callback._gen_commands` holds one class per group of
spec/tables/client-initiated-commands.json (today: :class:`Continuation`, a :class:`_CommandGroup`),
one method per command, its result dataclasses and its error classes. Each call runs the host CLI as a subprocess **without a shell**, passes
blob bytes on stdin where the command takes one, waits at most ``timeout_s`` seconds (on timeout
the child's process group is killed and reaped, then :class:`CommandTimeoutError` is raised) and
parses the result:

- exit 0: the JSON result on stdout (or, for a blob command, the raw bytes on stdout and the JSON
  metadata on stderr) into a frozen result dataclass; unexpected output raises :class:`CommandOutputError`;
- a structured error (``{"error": ...}`` on stderr) into a :class:`CommandReportedError` subclass
  named after the error (e.g. :class:`ContinuationNotFoundError`), with its fields;
- the group's usage-error exit status (plain text on stderr) into :class:`CommandUsageError`;
- any other failure into :class:`CommandFailedError`; a CLI that cannot be started into
  :class:`CommandSpawnError`.

Identifiers are passed through unchanged: the host CLI validates them (and reports
``invalid_identifier``). Every exception here derives from :class:`CommandError`.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from dataclasses import dataclass
from typing import Dict, Final, List, Mapping, Optional, Sequence, Tuple, Type, Union

from . import stream
from ._gen_spec import LIMIT_CLIENT_COMMAND_TIMEOUT_MS
from .json_value import JsonObject

#: Deadline of one command when ``timeout_s`` is not given, in seconds: limits.client_command_timeout_ms.
DEFAULT_TIMEOUT_S: Final[float] = LIMIT_CLIENT_COMMAND_TIMEOUT_MS / 1000

#: Re-exported by the package (``from lifeloop_callback import CommandError``); its __init__ adds these to its own.
__all__ = ["CommandError", "CommandFailedError", "CommandOutputError", "CommandReportedError"]
__all__ += ["CommandSpawnError", "CommandTimeoutError", "CommandUsageError", "ListedEntry"]


class CommandError(Exception):
    """A client-initiated command failed. ``argv`` is what was run; ``exit_code`` is ``None`` when the
    process did not exit normally (spawn failure, timeout); ``stderr`` is its decoded stderr."""

    def __init__(
        self,
        message: str,
        *,
        argv: Sequence[str],
        exit_code: Optional[int] = None,
        stderr: str = "",
    ) -> None:
        super().__init__(message)
        self.argv: Tuple[str, ...] = tuple(argv)
        self.exit_code = exit_code
        self.stderr = stderr


class CommandSpawnError(CommandError):
    """The host CLI could not be started (not found, not executable)."""


class CommandTimeoutError(CommandError):
    """The command did not finish within ``timeout_s``; its process group was killed."""


class CommandUsageError(CommandError):
    """The host CLI rejected the invocation as a usage error (plain-text message, usage exit status)."""


class CommandFailedError(CommandError):
    """The command exited non-zero without a structured error."""


class CommandOutputError(CommandError):
    """The command succeeded but its output is not what the registry promises."""


class CommandReportedError(CommandError):
    """The host CLI reported a structured error ``{"error": <error>, ...}`` on stderr.

    ``error`` is the error name, ``fields`` the whole error object.
    """

    def __init__(
        self, error: str, fields: JsonObject, *, argv: Sequence[str], exit_code: Optional[int], stderr: str
    ) -> None:
        super().__init__(
            f"{error}: {json.dumps(fields, sort_keys=True)}", argv=argv, exit_code=exit_code, stderr=stderr
        )
        self.error = error
        self.fields: JsonObject = fields

    def _str(self, name: str) -> Optional[str]:
        value = self.fields.get(name)
        return value if isinstance(value, str) else None

    def _int(self, name: str) -> Optional[int]:
        value = self.fields.get(name)
        return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class ListedEntry:
    """One live entry as a ``list`` command reports it."""

    key: str
    client_id: str
    ttl_s: Optional[int]
    written_at_epoch_s: int


@dataclass(frozen=True)
class _Completed:
    argv: Tuple[str, ...]
    exit_code: int
    stdout: bytes
    stderr: bytes

    def stderr_text(self) -> str:
        return self.stderr.decode("utf-8", "replace")


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        if hasattr(os, "killpg"):
            os.killpg(proc.pid, signal.SIGKILL)
        else:  # pragma: no cover - not POSIX
            proc.kill()
    except (ProcessLookupError, PermissionError):
        pass


def _spawn_hint(program_env: str) -> str:
    """What to do when the host CLI cannot be started (e.g. it is installed only in node_modules/.bin)."""
    via = f"${program_env} or " if program_env else ""
    return (
        f"point {via}the cli= parameter at the host CLI by absolute path, e.g. $PWD/node_modules/.bin/lifeloop-callback"
    )


def _invoke(
    argv: Sequence[str], stdin: Optional[bytes], timeout_s: float, env: Optional[Dict[str, str]], program_env: str = ""
) -> _Completed:
    try:
        proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            start_new_session=True,
        )
    except OSError as error:
        raise CommandSpawnError(f"cannot start {argv[0]!r}: {error}; {_spawn_hint(program_env)}", argv=argv) from error
    try:
        out, err = proc.communicate(stdin, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        _, err = proc.communicate()
        raise CommandTimeoutError(
            f"{' '.join(argv[:3])} did not finish within {timeout_s} s (killed)",
            argv=argv,
            stderr=err.decode("utf-8", "replace"),
        ) from None
    except BaseException:
        _kill_group(proc)
        proc.wait()
        raise
    return _Completed(tuple(argv), proc.returncode, out, err)


def _flag(name: str, value: object, kind: str) -> List[str]:
    """``[name, value]`` for a flag that is set, ``[]`` for ``None``; checks the value's type."""
    if value is None:
        return []
    if kind == "unsigned_integer":
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
        return [name, str(value)]
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__}")
    return [name, value]


def _last_json_object(text: str) -> Optional[JsonObject]:
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return None
    try:
        value = json.loads(lines[-1])
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _stdout_json(done: _Completed) -> JsonObject:
    try:
        value = json.loads(done.stdout.decode("utf-8"))
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise CommandOutputError(
            f"expected one JSON object on stdout, got {done.stdout[:200]!r}",
            argv=done.argv,
            exit_code=done.exit_code,
            stderr=done.stderr_text(),
        )
    return value


def _stderr_json(done: _Completed) -> JsonObject:
    value = _last_json_object(done.stderr_text())
    if value is None:
        raise CommandOutputError(
            f"expected JSON metadata on stderr, got {done.stderr[:200]!r}",
            argv=done.argv,
            exit_code=done.exit_code,
            stderr=done.stderr_text(),
        )
    return value


def _diagnostics(done: _Completed) -> Tuple[JsonObject, ...]:
    out: List[JsonObject] = []
    for line in done.stderr_text().splitlines():
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError:
            value = None
        out.append(value if isinstance(value, dict) else {"text": line})
    return tuple(out)


def _bad(done: _Completed, fields: JsonObject, name: str, want: str) -> CommandOutputError:
    return CommandOutputError(
        f"result field {name!r} is not {want}: {json.dumps(fields.get(name))}",
        argv=done.argv,
        exit_code=done.exit_code,
        stderr=done.stderr_text(),
    )


def _want_str(fields: JsonObject, name: str, done: _Completed) -> str:
    value = fields.get(name)
    if not isinstance(value, str):
        raise _bad(done, fields, name, "a string")
    return value


def _want_int(fields: JsonObject, name: str, done: _Completed) -> int:
    value = fields.get(name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise _bad(done, fields, name, "an integer")
    return value


def _want_optional_int(fields: JsonObject, name: str, done: _Completed) -> Optional[int]:
    if fields.get(name) is None:
        if name not in fields:
            raise _bad(done, fields, name, "present")
        return None
    return _want_int(fields, name, done)


def _want_entries(fields: JsonObject, name: str, done: _Completed) -> Tuple[ListedEntry, ...]:
    value = fields.get(name)
    if not isinstance(value, list):
        raise _bad(done, fields, name, "an array")
    out: List[ListedEntry] = []
    for item in value:
        if not isinstance(item, dict):
            raise _bad(done, fields, name, "an array of objects")
        out.append(
            ListedEntry(
                key=_want_str(item, "key", done),
                client_id=_want_str(item, "client_id", done),
                ttl_s=_want_optional_int(item, "ttl_s", done),
                written_at_epoch_s=_want_int(item, "written_at_epoch_s", done),
            )
        )
    return tuple(out)


class _CommandGroup:
    """Shared machinery of the generated command groups."""

    _PROGRAM: str = ""
    _PROGRAM_ENV: str = ""
    _GROUP_ARGS: Tuple[str, ...] = ()
    _USAGE_EXIT: int = 2
    _ERRORS: Mapping[str, Type[CommandReportedError]] = {}

    def __init__(
        self,
        cli: Union[str, Sequence[str], None] = None,
        *,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        env: Optional[Mapping[str, str]] = None,
    ) -> None:
        """``cli``: the host CLI executable, or an argv prefix such as ``["node", "cli.js"]``; by
        default the group's override variable when set and non-empty (``$LIFELOOP_CLI``; read from
        ``env``, then the process environment), else the registry's program (``lifeloop-callback``),
        found on ``PATH``. ``timeout_s``: deadline per call, in seconds (default
        :data:`DEFAULT_TIMEOUT_S`, limits.client_command_timeout_ms).
        ``env``: variables added to (and overriding) the inherited environment, e.g.
        ``{"LIFELOOP_CONTINUATION_ROOT": "/tmp/store"}``."""
        # With the default cli, a process serving a stream sends the command over the pipe instead.
        self._route_over_stream = cli is None
        if cli is None:
            chosen = (env or {}).get(self._PROGRAM_ENV) or os.environ.get(self._PROGRAM_ENV) or self._PROGRAM
            self.cli: Tuple[str, ...] = (chosen,)
        elif isinstance(cli, str):
            self.cli = (cli,)
        else:
            self.cli = tuple(cli)
        if not self.cli:
            raise ValueError("cli must name an executable")
        if timeout_s <= 0:
            raise ValueError("timeout_s must be positive")
        self.timeout_s = timeout_s
        self.env: Optional[Dict[str, str]] = None if env is None else {**os.environ, **env}

    def _run(self, args: List[str], stdin: Optional[bytes]) -> _Completed:
        argv = [*self.cli, *self._GROUP_ARGS, *args]
        if self._route_over_stream and stream.active_stream() is not None:
            return self._run_over_stream(argv, args, stdin)
        done = _invoke(argv, None if stdin is None else bytes(stdin), self.timeout_s, self.env, self._PROGRAM_ENV)
        if done.exit_code != 0:
            raise self._error(done)
        return done

    def _run_over_stream(self, argv: List[str], args: List[str], stdin: Optional[bytes]) -> _Completed:
        """The command as a JSON-RPC request to the host (stream mode), answered like the CLI."""
        try:
            out, err = stream.run_command(self._GROUP_ARGS[-1], args, stdin, self.timeout_s)
        except stream.StreamRPCError as error:
            data = error.data
            if isinstance(data, dict) and isinstance(data.get("error"), str):
                name = str(data["error"])
                cls = self._ERRORS.get(name, CommandReportedError)
                raise cls(name, data, argv=argv, exit_code=None, stderr=error.message) from error
            raise CommandFailedError(
                f"{' '.join(argv[:3])}: {error}", argv=argv, exit_code=None, stderr=error.message
            ) from error
        except TimeoutError as error:
            raise CommandTimeoutError(str(error), argv=argv) from error
        except (ConnectionError, LookupError) as error:
            raise CommandFailedError(f"{' '.join(argv[:3])}: {error}", argv=argv) from error
        return _Completed(tuple(argv), 0, out, err)

    def _error(self, done: _Completed) -> CommandError:
        text = done.stderr_text()
        if done.exit_code == self._USAGE_EXIT:
            return CommandUsageError(
                text.strip() or "usage error", argv=done.argv, exit_code=done.exit_code, stderr=text
            )
        reported = _last_json_object(text)
        if reported is not None and isinstance(reported.get("error"), str):
            name = str(reported["error"])
            cls = self._ERRORS.get(name, CommandReportedError)
            return cls(name, reported, argv=done.argv, exit_code=done.exit_code, stderr=text)
        return CommandFailedError(
            f"{' '.join(done.argv[:3])} exited with status {done.exit_code}: {text.strip()[:500]}",
            argv=done.argv,
            exit_code=done.exit_code,
            stderr=text,
        )
