#!/usr/bin/env bash
# Checks the SDKs in place, hand-written and generated files alike, with each language's own tools:
#   gofmt -l and go vet ./... in sdk/go (the Go module), ruff check and mypy --strict on the
#   package of sdk/python (settings: sdk/python/pyproject.toml; the tests: sdk/python/tests/ruff.toml).
# Needs Go on PATH and the Python tools of .cache/venv (made by tools/setup/prepare.sh; override
# with LIFELOOP_PYTHON).
# Usage: bash sdk/check.sh   (exit 0 clean, 1 findings)
set -euo pipefail
cd "$(dirname "$0")"
PYTHON=${LIFELOOP_PYTHON:-$PWD/../.cache/venv/bin/python}
status=0

echo "== gofmt -l sdk/go"
unformatted=$(gofmt -l go)
if [ -n "$unformatted" ]; then echo "gofmt would change: $unformatted"; status=1; fi

echo "== go vet ./... (sdk/go)"
(cd go && go vet ./...) || status=1

echo "== ruff check sdk/python (the package; its tests and the python-echo fixture with tests/ruff.toml)"
(cd python && "$PYTHON" -m ruff check .) || status=1
(cd python && "$PYTHON" -m ruff check --config tests/ruff.toml tests ../../test/fixtures/client-lang-neutral/python-echo) || status=1

echo "== mypy --strict sdk/python/lifeloop_callback (and the python-echo fixture, an SDK user)"
(cd python && "$PYTHON" -m mypy --strict lifeloop_callback ../../test/fixtures/client-lang-neutral/python-echo/echo.py) || status=1

exit $status
