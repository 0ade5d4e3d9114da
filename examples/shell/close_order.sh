#!/bin/sh
# Closes an unpaid order when its payment deadline passes: a handler for `delayq consume`.
#
#   delayq send orders '{"order": 42}' --delay 30m --id order-42   # an order is placed
#   delayq cancel orders order-42                                   # it is paid in time
#   delayq consume orders -- examples/shell/close_order.sh          # the worker
#
# delayq runs this once per due message, with the payload on stdin and DELAYQ_QUEUE, DELAYQ_ID,
# DELAYQ_ATTEMPT and DELAYQ_DUE_MS in the environment. Exit status 0 acks the message; any other
# retries it later with backoff, and the last lines on stderr become its last error (shown by
# `delayq peek QUEUE --json` and `delayq dead list QUEUE`). Ctrl-C lets a running script finish.
#
# ORDERS_LOG names the file closed orders are appended to (default: closed-orders.log).
set -eu

payload=$(cat)
if [ -z "$payload" ]; then
    echo "empty payload: nothing to close" >&2
    exit 1 # retried, then dead-lettered: an empty order message is a producer bug
fi

# A real handler would call the order service here, idempotently: a message can be delivered
# more than once (after a crash, say), and closing an order twice must do no harm.
printf '%s closed %s (message %s, attempt %s, due %s)\n' \
    "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$payload" "$DELAYQ_ID" "$DELAYQ_ATTEMPT" \
    "$DELAYQ_DUE_MS" >>"${ORDERS_LOG:-closed-orders.log}"
echo "closed $DELAYQ_ID"
