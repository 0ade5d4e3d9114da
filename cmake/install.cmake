# Install rules: the libraries and headers with their CMake package and pkg-config file (the
# `dev` component), and the delayq binary with its systemd unit, configuration and man page (the
# `runtime` component, with the shared library). cmake/package.cmake makes .debs of them.
include(CMakePackageConfigHelpers)

set(DELAYQ_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/delayq")
set(generated_include "${PROJECT_BINARY_DIR}/src/generated/include")

install(TARGETS delayq_shared EXPORT delayqTargets
    LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT runtime NAMELINK_COMPONENT dev)
install(TARGETS delayq EXPORT delayqTargets
    ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT dev)
install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/delayq" "${generated_include}/delayq"
    DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}" COMPONENT dev)
install(EXPORT delayqTargets NAMESPACE delayq:: DESTINATION "${DELAYQ_CMAKE_DIR}" COMPONENT dev)

configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/delayqConfig.cmake.in"
    "${PROJECT_BINARY_DIR}/delayqConfig.cmake" INSTALL_DESTINATION "${DELAYQ_CMAKE_DIR}")
# Below 1.0 a minor version may break the API: find_package(delayq 0.2) takes 0.2.x only.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/delayqConfigVersion.cmake"
    COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/delayqConfig.cmake"
              "${PROJECT_BINARY_DIR}/delayqConfigVersion.cmake"
    DESTINATION "${DELAYQ_CMAKE_DIR}" COMPONENT dev)

# pkg-config: the prefix is the one installed to, known only when installing (cpack installs
# with /usr, whatever the build was configured with). A ${pcfiledir}-relative prefix would keep
# "lib/<triplet>/pkgconfig/../../.." in every -I and -L flag; an unpacked tree takes
# PKG_CONFIG_SYSROOT_DIR instead.
set(DELAYQ_PC_PREFIX "@DELAYQ_PC_PREFIX@")
configure_file("${PROJECT_SOURCE_DIR}/cmake/delayq.pc.in" "${PROJECT_BINARY_DIR}/delayq.pc.in" @ONLY)
install(CODE "
    set(DELAYQ_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
    configure_file(\"${PROJECT_BINARY_DIR}/delayq.pc.in\" \"${PROJECT_BINARY_DIR}/delayq.pc\" @ONLY)
    " COMPONENT dev)
install(FILES "${PROJECT_BINARY_DIR}/delayq.pc"
    DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig" COMPONENT dev)

if(DELAYQ_BUILD_CLI)
    install(TARGETS delayq_cli RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT runtime)
    include(cmake/install_service.cmake)
    include(cmake/man_page.cmake)
endif()
