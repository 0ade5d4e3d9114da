#!/usr/bin/env bash
# The dashboard (server/ui/) in a real browser: Debian's chromium, headless, driven by
# puppeteer-core (pinned in package-lock.json) against `delayq serve` with an auth file and its
# own redis-server. dashboard.mjs says what is checked. With DELAYQ_SCREENSHOTS=DIR it also
# saves a screenshot of each page there at 1280x800 (docs/img/dashboard-*.png).
# usage: dashboard_test.sh DELAYQ_BINARY WORK_DIR
# WORK_DIR (in the build tree) holds node_modules and npm's cache (tests/support/npm_install.sh).
# Exit 77 (skipped) only when chromium is not installed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
delayq=$1 work=$2
chromium=${DELAYQ_CHROMIUM:-/usr/bin/chromium}
if [[ ! -x $chromium ]]; then
    echo "SKIP: no chromium at $chromium (bash scripts/deps.sh test installs it)"
    exit 77
fi
source "$here/../support/npm_install.sh"
npm_install "$here" "$work" "the dashboard's browser test"
# Node finds the package from the script's own directory.
cp "$here/dashboard.mjs" "$work/dashboard.mjs"

source "$here/../support/serve_scratch.sh"
start_redis

auth=$scratch/auth
admin=$("$delayq" token new --name ops --scopes admin,send,consume --queues '*' --auth-file "$auth")
reader=$("$delayq" token new --name viewer --scopes read --queues '*' --auth-file "$auth")

# No pushers: the test's push target names a host that is not there, and its queue's
# messages must stay where the pages show them.
"$delayq" serve --listen 127.0.0.1:0 --redis "$url" --auth-file "$auth" --io-threads 1 \
    --no-pushers 2>"$scratch/serve.log" &
pids+=($!)
# The same Redis without an auth file: the dashboard goes straight to the overview.
"$delayq" serve --listen 127.0.0.1:0 --redis "$url" --io-threads 1 --no-pushers \
    --no-schedulers 2>"$scratch/open.log" &
pids+=($!)
port=$(port_of "$scratch/serve.log")
open_port=$(port_of "$scratch/open.log")

DELAYQ_CHROMIUM=$chromium DELAYQ_ADMIN_TOKEN=$admin DELAYQ_READ_TOKEN=$reader \
    node "$work/dashboard.mjs" "http://127.0.0.1:$port" "http://127.0.0.1:$open_port" ||
    fail "the dashboard test failed (the server's log: $(tail -5 "$scratch/serve.log"))"
