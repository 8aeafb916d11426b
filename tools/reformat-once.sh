#!/usr/bin/env bash
# The one reformat of the whole tree (issue 26, habits), run once on the final merged tree:
#   1. biome.jsonc: "formatter" "enabled": false -> true (the switch codegen/emit/format.ts and
#      tools/format.ts read)
#   2. npm run format      Biome and ruff format rewrite the hand-written files; README.md's copies
#                          of examples/ files follow them
#   3. npm run generate    the generated TypeScript, now through Biome; generated copies of
#                          hand-written sources follow them
#   4. npm run docs        the reference pages (unchanged unless a docstring moved)
#   5. npm run check       everything agrees
# With --commit it then commits the result ("Reformat the tree with Biome and ruff format") and,
# in a second commit, lists that commit's hash in .git-blame-ignore-revs and deletes this script.
# Needs ruff (PATH, .cache/venv/bin/ruff or LIFELOOP_RUFF): npm test's pretest (the setup script) installs it
# into .cache/venv. Refuses to run on a dirty tree. Usage: bash tools/reformat-once.sh [--commit]
set -euo pipefail
cd "$(dirname "$0")/.."
commit=false
case "${1:-}" in
  "") ;;
  --commit) commit=true ;;
  *) echo "usage: bash tools/reformat-once.sh [--commit]" >&2; exit 2 ;;
esac
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  echo "reformat: the work tree has uncommitted changes; commit or drop them first" >&2
  exit 1
fi
if [ -z "${LIFELOOP_RUFF:-}" ] && ! command -v ruff >/dev/null && [ ! -x .cache/venv/bin/ruff ]; then
  echo "reformat: ruff not found (PATH, .cache/venv/bin/ruff or LIFELOOP_RUFF): npm test's pretest installs it" >&2
  exit 1
fi
timed() {
  local start=$SECONDS
  echo "== $*"
  "$@"
  echo "== done in $((SECONDS - start)) s: $*"
}

# The switch: the first "enabled": false after "formatter": { (the top-level formatter block).
node -e '
  const fs = require("node:fs");
  const text = fs.readFileSync("biome.jsonc", "utf8");
  const at = text.indexOf("\"formatter\": {");
  const flag = text.indexOf("\"enabled\": false", at);
  if (at < 0 || flag < 0 || flag > text.indexOf("}", at)) { console.error("reformat: no \"enabled\": false in the formatter block of biome.jsonc"); process.exit(1); }
  fs.writeFileSync("biome.jsonc", text.slice(0, flag) + "\"enabled\": true" + text.slice(flag + "\"enabled\": false".length));
'
timed npm run --silent format
# README.md holds examples/ files byte for byte (test/package/readme-blocks.test.ts): each block
# marked <!-- example: <lang> examples/... --> takes its file's formatted text.
node -e '
  const fs = require("node:fs");
  const readme = fs.readFileSync("README.md", "utf8");
  const synced = readme.replace(/(<!-- example: \S+ (examples\/\S+) -->\n```\S*\n)([\s\S]*?\n)(```)/g,
    (all, head, name, body, fence) => head + fs.readFileSync(name, "utf8") + fence);
  if (synced !== readme) { fs.writeFileSync("README.md", synced); console.log("== README.md: example blocks follow their formatted files"); }
'
timed npm run --silent generate
timed npm run --silent docs
timed npm run --silent check
echo "== reformat: $(git diff --shortstat)"

if $commit; then
  git add -u
  git commit -q -m "Reformat the tree with Biome and ruff format" -m "Formatting only (issue 26): biome.jsonc turns the formatter on; npm run format,
npm run generate and npm run docs rewrote the files; no behaviour change.
Listed in .git-blame-ignore-revs."
  hash=$(git rev-parse HEAD)
  printf '# Reformat the tree with Biome and ruff format (issue 26)\n%s\n' "$hash" >> .git-blame-ignore-revs
  git rm -q tools/reformat-once.sh
  git add .git-blame-ignore-revs
  git commit -q -m "Blame: skip the reformat commit" -m "git config blame.ignoreRevsFile .git-blame-ignore-revs (CONTRIBUTING.md)."
  git log --oneline -2
fi
