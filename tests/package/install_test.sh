#!/usr/bin/env bash
# Installs the build tree into a scratch prefix and uses it as a user would: examples/ built out
# of the tree with find_package (shared and static library) and with pkg-config, each run against
# a real redis-server, and the installed delayq binary.
# usage: install_test.sh SOURCE_DIR BUILD_DIR CMAKE CPACK [SANITIZE_FLAGS]
source "$(dirname "$0")/common.sh"

prefix=$scratch/prefix
"$cmake" --install "$build" --prefix "$prefix" >"$scratch/install.log" 2>&1 ||
    fail "cmake --install: $(cat "$scratch/install.log")"
libdir=$(cd "$prefix" && dirname "$(find . -name 'libdelayq.so' | head -1)")
[[ $libdir != . ]] || fail "no libdelayq.so in the install: $(cd "$prefix" && find . | sort)"
libdir=$prefix/${libdir#./}
for f in bin/delayq include/delayq/delayq.hpp include/delayq/version.hpp \
    "${libdir#"$prefix"/}/libdelayq.a" "${libdir#"$prefix"/}/pkgconfig/delayq.pc" \
    "${libdir#"$prefix"/}/cmake/delayq/delayqConfig.cmake" \
    "${libdir#"$prefix"/}/cmake/delayq/delayqConfigVersion.cmake"; do
    [[ -e $prefix/$f ]] || fail "the install lacks $f"
done
soname=$(objdump -p "$libdir/libdelayq.so" | awk '/SONAME/ {print $2}')
version=$("$prefix/bin/delayq" --version)
[[ $version =~ ^delayq\ ([0-9]+)\.([0-9]+)\.[0-9]+$ ]] || fail "delayq --version said '$version'"
[[ $soname == "libdelayq.so.${BASH_REMATCH[1]}.${BASH_REMATCH[2]}" ]] ||
    fail "SONAME $soname does not name version ${BASH_REMATCH[1]}.${BASH_REMATCH[2]}"
ok "installed: $version, SONAME $soname"

start_redis
export LD_LIBRARY_PATH=$libdir

build_examples "$prefix" "$scratch/shared"
check_send "$scratch/shared/delayq_example_producer" "$prefix/bin/delayq" cmake-shared
# ldd's output read whole: grep -q leaving early would fail the pipeline (SIGPIPE, pipefail).
linked=$(ldd "$scratch/shared/delayq_example_producer")
grep -q "libdelayq.so" <<<"$linked" || fail "the find_package build did not link the shared library"
# The longer example: sends with delays and receives each at its due time.
out=$("$scratch/shared/delayq_example_delays" "$(redis_url)") || fail "delays example: $out"
[[ $(grep -c '^delivered' <<<"$out") -eq 7 ]] || fail "delays example delivered: $out"
ok "find_package(delayq), shared: built, sent, received"

build_examples "$prefix" "$scratch/static" -DDELAYQ_EXAMPLES_STATIC=ON
check_send "$scratch/static/delayq_example_producer" "$prefix/bin/delayq" cmake-static
linked=$(ldd "$scratch/static/delayq_example_producer")
if grep -q "libdelayq.so" <<<"$linked"; then
    fail "the static build links the shared library"
fi
ok "find_package(delayq), delayq::delayq_static: built, sent"

# A request for another minor version is refused while below 1.0.
mkdir -p "$scratch/wrong"
cat >"$scratch/wrong/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.21)
project(wrong LANGUAGES CXX)
find_package(delayq 0.1 REQUIRED)
CMAKE
if "$cmake" -S "$scratch/wrong" -B "$scratch/wrong/build" -DCMAKE_PREFIX_PATH="$prefix" \
    >"$scratch/wrong.log" 2>&1; then
    fail "find_package(delayq 0.1) accepted this version"
fi
ok "find_package(delayq 0.1) refused"

export PKG_CONFIG_PATH=$libdir/pkgconfig
[[ $(pkg-config --modversion delayq) == "${version#delayq }" ]] ||
    fail "pkg-config --modversion delayq: $(pkg-config --modversion delayq)"
# shellcheck disable=SC2046 # the flags are words
g++ -std=c++20 $sanitize -o "$scratch/pc_producer" "$src/examples/producer.cpp" \
    $(pkg-config --cflags --libs delayq) >"$scratch/pc.log" 2>&1 ||
    fail "building with pkg-config: $(cat "$scratch/pc.log")"
check_send "$scratch/pc_producer" "$prefix/bin/delayq" pkg-config
ok "pkg-config delayq: built, sent"
