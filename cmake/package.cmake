# .deb packages with CPack (`cpack -G DEB` in the build tree): `delayq` (the binary, the shared
# library, the service's unit and configuration, the man page) and `delayq-dev` (headers, the
# static library, the CMake package and the pkg-config file).
set(CPACK_PACKAGE_NAME delayq)
set(CPACK_PACKAGE_VENDOR delayq)
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_CONTACT "delayq maintainers <maintainers@delayq.invalid>")
set(CPACK_PACKAGE_HOMEPAGE_URL "${PROJECT_HOMEPAGE_URL}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_COMPONENTS_ALL runtime dev)
set(CPACK_DEB_COMPONENT_INSTALL ON)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION database)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME delayq)
set(CPACK_DEBIAN_DEV_PACKAGE_NAME delayq-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
# The runtime's dependencies are read off the binaries it links (dpkg-shlibdeps); the dev
# package adds what building against the static library needs.
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SHLIBDEPS ON)
# postinst falls back to adduser where systemd-sysusers is missing. Cron schedules read their
# zones from tzdata's /usr/share/zoneinfo, which no library dependency brings.
set(CPACK_DEBIAN_RUNTIME_PACKAGE_DEPENDS "adduser, tzdata")
# Policy 8.6: the shlibs file tells dpkg-shlibdeps of other packages what libdelayq.so.0.2
# needs ("=": below 1.0 the ABI may change with any release); the triggers file runs ldconfig.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_RECOMMENDS "redis-server (>= 5:7.0)")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_CONTROL_EXTRA
    "${PROJECT_SOURCE_DIR}/packaging/postinst;${PROJECT_SOURCE_DIR}/packaging/postrm"
    "${PROJECT_SOURCE_DIR}/packaging/conffiles;${PROJECT_SOURCE_DIR}/packaging/triggers")
# Descriptions: the first line is the synopsis (no article), the rest at most 79 characters a
# line; CPack indents them. CPack puts CPACK_PACKAGE_DESCRIPTION_SUMMARY (by default the
# project's description) before them unless it is CPack's own default text: so it is that.
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_NAME} built using CMake")
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION "delayed-message queue on Redis: command-line tool and HTTP service
delayq turns a Redis server into a delay queue: messages become deliverable at
their due time by the Redis server's clock, at-least-once, with leases,
retries and a dead-letter set. This package holds the delayq command, its
HTTP service (delayq serve, with a systemd unit) and the shared library.")
# One line: a Depends field may not span lines (lintian: multiline-field).
string(JOIN ", " delayq_dev_depends "delayq (= ${PROJECT_VERSION})" libhiredis-dev libspdlog-dev
       libssl-dev libhowardhinnant-date-dev pkg-config)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "${delayq_dev_depends}")
set(CPACK_DEBIAN_DEV_DESCRIPTION "delayed-message queue on Redis: C++20 development files
Headers, the static library, the CMake package (find_package(delayq)) and the
pkg-config file (delayq.pc) of the delayq library.")

include(cmake/debian_docs.cmake)
include(CPack)
