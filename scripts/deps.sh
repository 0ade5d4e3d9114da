#!/usr/bin/env bash
# Installs the Debian 12 packages delayq needs, only those that are missing.
# usage: scripts/deps.sh [test|bench]   (test adds what the test suite and its checks need,
#                                       bench what bench/*.sh use)
# The base list builds what README's install section does too: the man page (help2man) and the
# .debs (cpack -G DEB reads the binaries' dependencies with dpkg-shlibdeps and file).
set -euo pipefail
pkgs=(g++ cmake ninja-build pkg-config libhiredis-dev libspdlog-dev libfmt-dev redis-server libcli11-dev nlohmann-json3-dev libssl-dev libhowardhinnant-date-dev tzdata libboost-dev libcurl4-openssl-dev help2man dpkg-dev file)
if [[ "${1:-}" == test ]]; then
    pkgs+=(libgtest-dev libgmock-dev faketime clang-format clang-tidy clang-14 libclang-rt-14-dev prometheus zsh lintian python3 python3-yaml openssl curl nodejs chromium)
    # npm for the OpenAPI lint (tests/openapi); a nodejs from elsewhere (NodeSource) brings its
    # own npm, which Debian's package would conflict with.
    command -v npm >/dev/null || pkgs+=(npm)
fi
if [[ "${1:-}" == bench ]]; then
    pkgs+=(wrk python3)
fi
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if ((${#missing[@]} > 0)); then
    sudo=()
    [[ $EUID -ne 0 ]] && sudo=(sudo)
    echo "installing: ${missing[*]}"
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >/dev/null
fi
