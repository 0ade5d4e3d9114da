# delayq.1, made by help2man from `delayq --help` and every command's --help (so it can never
# say something the binary does not), when help2man is there.
find_program(DELAYQ_HELP2MAN help2man)
if(NOT DELAYQ_HELP2MAN)
    message(STATUS "help2man not found: no man page (apt-get install help2man)")
    return()
endif()
set(man_page "${PROJECT_BINARY_DIR}/man/delayq.1")
set(man_page_gz "${man_page}.gz")
add_custom_command(
    OUTPUT "${man_page}" "${man_page_gz}"
    COMMAND "${CMAKE_COMMAND}" "-DDELAYQ=$<TARGET_FILE:delayq_cli>" "-DHELP2MAN=${DELAYQ_HELP2MAN}"
            "-DOUTPUT=${man_page}" "-DVERSION=${PROJECT_VERSION}"
            -P "${PROJECT_SOURCE_DIR}/cmake/make_man_page.cmake"
    DEPENDS delayq_cli "${PROJECT_SOURCE_DIR}/cmake/make_man_page.cmake"
    COMMENT "Making the man page from --help"
    VERBATIM)
add_custom_target(delayq_man_page ALL DEPENDS "${man_page_gz}")
install(FILES "${man_page_gz}" DESTINATION "${CMAKE_INSTALL_MANDIR}/man1" COMPONENT runtime)
