#!/usr/bin/env bash
# Prepares everything the test suites need, from nothing, idempotently (fast when already done).
# Run by `npm test` (its pretest step); CI runs it through `npm test`.
#   - dist/                              compiled host runtime and CLI (tsc)
#   - tools/reference/target/release/...  the Rust differential harness (reference crate 0.9.0)
#   - .cache/lifeloop-ref/bin/lifeloop   the reference CLI 0.9.0 (spec/wire-version.json `reference`),
#                                        a real peer for the matrix, the SDK and hook tests
#   - .cache/lifeloop-ref-0.5.0/bin/lifeloop  lifeloop-cli 0.5.0, the last release with the
#                                        continuation store: the continuation differential's peer only
#   - .cache/venv                        Python tools for the generated SDK (mypy, ruff, pytest)
# Every tool comes from its normal registry (npm, crates.io, PyPI). Nothing is installed globally.
set -euo pipefail
cd "$(dirname "$0")/../.."

# Each step prints its name and, when it ends, how long it took; cargo and pip print their own
# progress (one line per crate compiled, per package installed) so a slow first run shows it moves.
START=$SECONDS
STEP_START=$SECONDS
STEP_NAME=""
step() {
  if [ -n "$STEP_NAME" ]; then printf '== prepare: done in %ds: %s\n' "$((SECONDS - STEP_START))" "$STEP_NAME" >&2; fi
  STEP_NAME="$*"
  STEP_START=$SECONDS
  [ -n "$STEP_NAME" ] && printf '== prepare: %s\n' "$STEP_NAME" >&2
  return 0
}

step "build the host runtime (tsc)"
npm run build --silent

step "build the reference harness (cargo)"
cargo build --release --locked --manifest-path tools/reference/Cargo.toml

# install_ref VERSION DIR: lifeloop-cli VERSION into DIR, unless DIR/bin/lifeloop already reports that
# version (an older .cache holding another version is replaced: --force).
install_ref() {
  local version="$1" dir="$2" found=""
  if [ -x "$dir/bin/lifeloop" ]; then found="$("$dir/bin/lifeloop" --version 2>/dev/null || true)"; fi
  if [ "$found" != "$version" ]; then
    step "install the reference CLI lifeloop-cli $version into $dir${found:+ (it held $found)}"
    cargo install lifeloop-cli --version "$version" --locked --force --root "$dir"
  fi
}
# The reference's version is spec/wire-version.json `reference.version` (one source of truth).
REFERENCE_VERSION="$(node -e 'process.stdout.write(require("./spec/wire-version.json").reference.version)')"
install_ref "$REFERENCE_VERSION" .cache/lifeloop-ref
install_ref 0.5.0 .cache/lifeloop-ref-0.5.0

if [ ! -x .cache/venv/bin/python ] || ! cmp -s .ci/python-requirements.txt .cache/venv/requirements.txt; then
  step "create the Python tool venv in .cache/venv"
  python3 -m venv .cache/venv
  .cache/venv/bin/python -m pip install --progress-bar off --disable-pip-version-check -r .ci/python-requirements.txt
  cp .ci/python-requirements.txt .cache/venv/requirements.txt
fi
step ""
printf '== prepare: ready in %ds\n' "$((SECONDS - START))" >&2
