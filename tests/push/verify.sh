#!/usr/bin/env bash
# Checks the Standard Webhooks signatures of push requests with the specification's reference
# library (npm's standardwebhooks, pinned in package-lock.json): verify.mjs says what is checked.
# usage: verify.sh WORK_DIR FILE
# WORK_DIR (in the build tree) holds node_modules and npm's cache: `npm ci` runs only when the
# lock file changed since the last install there, so a warm run costs the check alone.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$1
file=$2
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    echo "FAIL: the signature check needs node and npm (bash scripts/deps.sh test installs them)"
    exit 1
fi
mkdir -p "$work"
if [[ ! -d $work/node_modules ]] || ! cmp -s "$here/package-lock.json" "$work/installed.lock"; then
    rm -f "$work/installed.lock"
    cp "$here/package.json" "$here/package-lock.json" "$work/"
    (cd "$work" && npm ci --cache "$work/npm-cache" --prefer-offline --ignore-scripts \
        --no-audit --no-fund --loglevel=error)
    cp "$here/package-lock.json" "$work/installed.lock"
fi
# Node finds the package from the script's own directory.
cp "$here/verify.mjs" "$work/verify.mjs"

node "$work/verify.mjs" "$file"
