#!/usr/bin/env bash
# Signs sample push requests with the pushers' signer (sign_sample.cpp) and checks them with the
# Standard Webhooks reference library (verify.sh): no pusher, network or Redis involved.
# usage: sign_verify_test.sh SIGN_SAMPLE WORK_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
sample=$1
work=$2
mkdir -p "$work"
"$sample" "$work/sample.jsonl"
bash "$here/verify.sh" "$work" "$work/sample.jsonl"
