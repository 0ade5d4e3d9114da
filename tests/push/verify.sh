#!/usr/bin/env bash
# Checks the Standard Webhooks signatures of push requests with the specification's reference
# library (npm's standardwebhooks, pinned in package-lock.json): verify.mjs says what is checked.
# usage: verify.sh WORK_DIR FILE
# WORK_DIR (in the build tree) holds node_modules and npm's cache (tests/support/npm_install.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$1
file=$2
source "$here/../support/npm_install.sh"
npm_install "$here" "$work" "the signature check"
# Node finds the package from the script's own directory.
cp "$here/verify.mjs" "$work/verify.mjs"

node "$work/verify.mjs" "$file"
