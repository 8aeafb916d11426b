#!/usr/bin/env bash
# Checks the plain SDK runtime sources in place, with each language's own tools:
#   gofmt -l and go vet on sdk-runtime/go, ruff check and mypy --strict on sdk-runtime/python.
# go vet and mypy need the whole package, so they see the generated parts from generated/ with the
# sources of sdk-runtime/ laid over them (go vet -overlay; a scratch copy for mypy); findings name the
# files under sdk-runtime/. Needs Go on PATH and the Python tools of
# .cache/venv (made by test/setup/prepare.sh; override with LIFELOOP_PYTHON).
# Usage: bash sdk-runtime/check.sh   (exit 0 clean, 1 findings)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PYTHON=${LIFELOOP_PYTHON:-$ROOT/.cache/venv/bin/python}
status=0
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

echo "== gofmt -l sdk-runtime/go"
unformatted=$(gofmt -l sdk-runtime/go)
if [ -n "$unformatted" ]; then echo "gofmt would change: $unformatted"; status=1; fi

echo "== go vet (generated/go with sdk-runtime/go laid over it)"
{
  printf '{"Replace":{'
  sep=""
  for f in sdk-runtime/go/*.go; do
    printf '%s"%s":"%s"' "$sep" "$ROOT/generated/go/$(basename "$f")" "$ROOT/$f"
    sep=","
  done
  printf '}}\n'
} > "$scratch/overlay.json"
vet=$(cd generated/go && go vet -overlay "$scratch/overlay.json" ./... 2>&1) || status=1
[ -z "$vet" ] || printf '%s\n' "$vet"

echo "== ruff check sdk-runtime/python"
"$PYTHON" -m ruff check --config generated/python/pyproject.toml sdk-runtime/python || status=1

echo "== mypy --strict (generated/python with sdk-runtime/python laid over it)"
cp -r generated/python/lifeloop_callback "$scratch/lifeloop_callback"
cp sdk-runtime/python/lifeloop_callback/*.py "$scratch/lifeloop_callback/"
mypy=$(cd "$scratch" && "$PYTHON" -m mypy --config-file "$ROOT/generated/python/pyproject.toml" --strict lifeloop_callback 2>&1) || status=1
# Findings name the scratch copy's path; each copied source lives under sdk-runtime/python/.
printf '%s\n' "$mypy" | sed "s#^lifeloop_callback/#sdk-runtime/python/lifeloop_callback/#"

exit $status
