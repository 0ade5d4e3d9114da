# The systemd unit of `delayq serve` and its configuration, in the runtime component.
set(DELAYQ_SYSTEMD_UNIT_DIR "lib/systemd/system" CACHE STRING
    "Where the systemd unit goes, relative to the install prefix")
set(DELAYQ_SYSUSERS_DIR "lib/sysusers.d" CACHE STRING
    "Where the systemd-sysusers file goes, relative to the install prefix")
install(FILES "${PROJECT_SOURCE_DIR}/packaging/delayq-serve.service"
    DESTINATION "${DELAYQ_SYSTEMD_UNIT_DIR}" COMPONENT runtime)
install(FILES "${PROJECT_SOURCE_DIR}/packaging/sysusers.conf"
    DESTINATION "${DELAYQ_SYSUSERS_DIR}" RENAME delayq.conf COMPONENT runtime)
# /etc for the /usr prefix (the .deb), PREFIX/etc for any other (a scratch install never writes
# the system's /etc): decided when installing, since cpack installs with its own prefix.
install(CODE "
    if(CMAKE_INSTALL_PREFIX STREQUAL \"/usr\")
        set(delayq_etc /etc/delayq)
    else()
        set(delayq_etc \"\${CMAKE_INSTALL_PREFIX}/etc/delayq\")
    endif()
    file(INSTALL DESTINATION \"\${delayq_etc}\" TYPE FILE
         FILES \"${PROJECT_SOURCE_DIR}/packaging/delayq.env\")
    " COMPONENT runtime)
