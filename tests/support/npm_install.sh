# Sourced by the tests that run an npm package (tests/openapi/lint_test.sh, tests/push/verify.sh):
# installs the package.json and package-lock.json of PACKAGE_DIR into WORK_DIR (in the build
# tree, with npm's cache), and runs `npm ci` only when the lock file changed since the last
# install there, so that a warm run costs the check alone.
# usage: npm_install PACKAGE_DIR WORK_DIR WHAT   (WHAT names the check in the failure message)
npm_install() {
    local package=$1 work=$2 what=$3
    if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
        echo "FAIL: $what needs node and npm (bash scripts/deps.sh test installs them)"
        exit 1
    fi
    mkdir -p "$work"
    if [[ ! -d $work/node_modules ]] || ! cmp -s "$package/package-lock.json" "$work/installed.lock"; then
        rm -f "$work/installed.lock"
        cp "$package/package.json" "$package/package-lock.json" "$work/"
        (cd "$work" && npm ci --cache "$work/npm-cache" --prefer-offline --ignore-scripts \
            --no-audit --no-fund --loglevel=error)
        cp "$package/package-lock.json" "$work/installed.lock"
    fi
}
