#!/usr/bin/env bash
# Builds the .debs with CPack and checks them: their control fields, their files (binary, shared
# and static library, headers, CMake and pkg-config files, systemd unit, configuration, man
# page), that systemd and lintian accept them, and that examples/ builds against their contents
# unpacked and runs against a real redis-server.
# usage: deb_test.sh SOURCE_DIR BUILD_DIR CMAKE CPACK [SANITIZE_FLAGS]
source "$(dirname "$0")/common.sh"

(cd "$build" && "$cpack" -G DEB -B "$scratch/debs" >"$scratch/cpack.log" 2>&1) ||
    fail "cpack -G DEB: $(cat "$scratch/cpack.log")"
runtime=$(ls "$scratch"/debs/delayq_*.deb)
dev=$(ls "$scratch"/debs/delayq-dev_*.deb)
field() { dpkg-deb -f "$1" "$2"; }
version=$(field "$runtime" Version)
[[ $(field "$dev" Version) == "$version" ]] || fail "the two packages' versions differ"
"$build/cli/delayq" --version | has -x "delayq $version" ||
    fail "package version $version is not the binary's: $("$build/cli/delayq" --version)"
depends=$(field "$runtime" Depends)
for lib in libhiredis libspdlog libssl3 libdate-tz3 tzdata libc6; do
    grep -q "$lib" <<<"$depends" || fail "delayq's Depends lacks $lib: $depends"
done
grep -q "delayq (= $version)" <<<"$(field "$dev" Depends)" || fail "delayq-dev does not depend on delayq"
ok "delayq $version, Depends: $depends"

contents() { dpkg-deb -c "$1" | awk '{print $6}'; }
check_has() {
    local deb=$1 pattern=$2
    contents "$deb" | has -E "$pattern" || fail "$(basename "$deb") has no $pattern"
}
check_has "$runtime" '^\./usr/bin/delayq$'
check_has "$runtime" '^\./usr/lib/[^/]+/libdelayq\.so\.[0-9]+\.[0-9]+\.[0-9]+$'
check_has "$runtime" '^\./usr/lib/systemd/system/delayq-serve\.service$'
check_has "$runtime" '^\./usr/lib/sysusers\.d/delayq\.conf$'
check_has "$runtime" '^\./etc/delayq/delayq\.env$'
check_has "$runtime" '^\./usr/share/man/man1/delayq\.1\.gz$'
check_has "$dev" '^\./usr/include/delayq/delayq\.hpp$'
check_has "$dev" '^\./usr/include/delayq/version\.hpp$'
check_has "$dev" '^\./usr/lib/[^/]+/libdelayq\.a$'
check_has "$dev" '^\./usr/lib/[^/]+/cmake/delayq/delayqConfig\.cmake$'
check_has "$dev" '^\./usr/lib/[^/]+/pkgconfig/delayq\.pc$'
for deb in "$runtime" "$dev"; do
    name=$(field "$deb" Package)
    check_has "$deb" "^\./usr/share/doc/$name/copyright\$"
    check_has "$deb" "^\./usr/share/doc/$name/changelog\.gz\$"
done
dpkg-deb --info "$runtime" shlibs | has -x "libdelayq ${version%.*} delayq (= $version)" ||
    fail "no shlibs entry for libdelayq"
dpkg-deb --info "$runtime" triggers | has -x 'activate-noawait ldconfig' || fail "no ldconfig trigger"
dpkg-deb --info "$runtime" postrm | has -F 'rm -f /etc/delayq/auth' || fail "purge keeps the auth file"
if contents "$runtime" | has '^\./usr/include/'; then fail "headers in the runtime package"; fi
dpkg-deb --ctrl-tarfile "$runtime" | tar -t | has 'conffiles' || fail "no conffiles"
dpkg-deb --info "$runtime" conffiles | has -x '/etc/delayq/delayq.env' ||
    fail "delayq.env is not a conffile"
ok "package contents"

# The unit: always --redis (never the managed local Redis), hardened, reloadable.
unit=$scratch/unit
mkdir -p "$unit" && dpkg-deb -x "$runtime" "$unit"
service=$unit/usr/lib/systemd/system/delayq-serve.service
grep -q '^ExecStart=/usr/bin/delayq serve --redis ' "$service" || fail "the unit does not pass --redis"
for key in NoNewPrivileges=yes ProtectSystem=strict EnvironmentFile=/etc/delayq/delayq.env \
    'ExecReload=/bin/kill -HUP $MAINPID'; do
    grep -qxF "$key" "$service" || fail "the unit lacks $key"
done
zcat "$unit/usr/share/man/man1/delayq.1.gz" | has '^\.SS "delayq send"' ||
    fail "the man page has no section for delayq send"
pc=$(dpkg-deb --fsys-tarfile "$dev" | tar -xO --wildcards '*/delayq.pc')
grep -qx 'prefix=/usr' <<<"$pc" || fail "delayq.pc does not say prefix=/usr: $pc"
ok "unit, man page and delayq.pc"

# The unit as systemd reads it, man:delayq(1) included (found through MANPATH in the unpacked
# tree; ExecStart pointed there too, since nothing is installed). Not every machine has systemd.
if command -v systemd-analyze >/dev/null && command -v man >/dev/null; then
    mkdir -p "$scratch/verify"
    sed "s|/usr/bin/delayq|$unit/usr/bin/delayq|" "$service" >"$scratch/verify/delayq-serve.service"
    MANPATH=$unit/usr/share/man systemd-analyze verify "$scratch/verify/delayq-serve.service" \
        >"$scratch/verify.log" 2>&1 || fail "systemd-analyze verify: $(cat "$scratch/verify.log")"
    ok "systemd-analyze verify"
fi

# Errors and warnings fail; what stays is in packaging/lintian-overrides, shipped in the package
# where lintian reads it. Info tags (hardening of a Debug build, nlohmann's spelling) do not.
command -v lintian >/dev/null || fail "no lintian (bash scripts/deps.sh test)"
lintian --fail-on error,warning --tag-display-limit 0 "$runtime" "$dev" >"$scratch/lintian.log" 2>&1 ||
    fail "lintian: $(cat "$scratch/lintian.log")"
ok "lintian: no errors or warnings"

# Both packages unpacked into one directory are a prefix a project can build against.
root=$scratch/root
dpkg-deb -x "$runtime" "$root" && dpkg-deb -x "$dev" "$root"
start_redis
export LD_LIBRARY_PATH=$(dirname "$(ls "$root"/usr/lib/*/libdelayq.so)")
build_examples "$root/usr" "$scratch/examples"
check_send "$scratch/examples/delayq_example_producer" "$root/usr/bin/delayq" from-deb
ok "examples built against the unpacked packages, sent"
