#!/usr/bin/env bash
# delayq as a guest in another CMake project (add_subdirectory; FetchContent does the same): it
# defines its library and nothing else (no tools, tests, examples, install rules), sets nothing
# globally, and what reaches the guest's own target is C++20 and the include path only (no
# warnings, no sanitizers). Configure-only: building the library is what the other tests do.
# usage: guest_test.sh SOURCE_DIR BUILD_DIR CMAKE CPACK [SANITIZE_FLAGS]
source "$(dirname "$0")/common.sh"

guest=$scratch/guest
mkdir -p "$guest"
cat >"$guest/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.21)
project(guest LANGUAGES CXX)
add_subdirectory("$src" delayq)
add_executable(app "$src/examples/producer.cpp")
target_link_libraries(app PRIVATE delayq::delayq)
foreach(target IN ITEMS delayq_cli delayq_server delayq_tests delayq-bench delayq_shared
                        delayq_example_producer)
    if(TARGET \${target})
        message(FATAL_ERROR "the guest build defines \${target}")
    endif()
endforeach()
get_directory_property(options COMPILE_OPTIONS)
get_directory_property(link_options LINK_OPTIONS)
if(options OR link_options OR CMAKE_CXX_FLAGS OR CMAKE_CXX_STANDARD)
    message(FATAL_ERROR "delayq changed the guest's settings: '\${options}' '\${link_options}' "
                        "'\${CMAKE_CXX_FLAGS}' '\${CMAKE_CXX_STANDARD}'")
endif()
CMAKE
"$cmake" -S "$guest" -B "$guest/build" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
    >"$guest.log" 2>&1 || fail "configuring the guest: $(cat "$guest.log")"
[[ ! -e $guest/build/CTestTestfile.cmake && ! -e $guest/build/delayq/CTestTestfile.cmake ]] ||
    fail "the guest build has tests enabled"
[[ ! -e $guest/build/delayq/cmake_install.cmake ]] ||
    ! grep -q 'libdelayq\|delayqTargets' "$guest/build/delayq/cmake_install.cmake" ||
    fail "the guest build has delayq's install rules"
app=$(grep -B3 '"file": "[^"]*examples/producer.cpp"' "$guest/build/compile_commands.json")
grep -Eq -- '-std=(c|gnu)\+\+20' <<<"$app" || fail "the guest's target is not C++20: $app"
for flag in -Wall -fsanitize -Werror; do
    if grep -q -- "$flag" <<<"$app"; then fail "delayq's $flag reached the guest: $app"; fi
done
ok "guest: the library only, C++20 on its target, nothing else leaked"
