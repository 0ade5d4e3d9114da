#!/usr/bin/env bash
# Lints the server's OpenAPI document with Redocly's linter (npm's @redocly/openapi-core, the
# library under `redocly lint`), strict (redocly.yaml): a check independent of the server's
# code and of tests/server/openapi_check.py. Then shows that the lint is strict: a document with
# a stray key in a schema (issue 29's `description: true pauses, false resumes`) must fail.
# usage: lint_test.sh WORK_DIR DOCUMENT
# WORK_DIR (in the build tree) holds node_modules and npm's cache (tests/support/npm_install.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$1
doc=$2
source "$here/../support/npm_install.sh"
npm_install "$here" "$work" "the OpenAPI lint"
# Node finds the package from the script's own directory.
cp "$here/lint.mjs" "$work/lint.mjs"

node "$work/lint.mjs" "$here/redocly.yaml" "$doc"

bad="$work/stray-key.yaml"
sed 's/^  schemas:$/  schemas:\n    Stray: { type: boolean, description: true pauses, false resumes }/' \
    "$doc" >"$bad"
grep -q '^    Stray: ' "$bad" || { echo "FAIL: could not make the stray-key document"; exit 1; }
if node "$work/lint.mjs" "$here/redocly.yaml" "$bad" >"$work/stray-key.out" 2>&1; then
    cat "$work/stray-key.out"
    echo "FAIL: the lint passed a document with a stray key in a schema"
    exit 1
fi
grep -q 'false resumes' "$work/stray-key.out" || {
    cat "$work/stray-key.out"
    echo "FAIL: the lint failed the stray-key document, but not for the stray key"
    exit 1
}
echo "the lint refuses a stray key in a schema, as it should"
