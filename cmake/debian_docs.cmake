# What Debian policy asks of every package's /usr/share/doc/PACKAGE: the copyright file (12.5)
# and a changelog in Debian's format, compressed with gzip -9n (12.7). The changelog points at
# CHANGELOG.md for what changed; its date honours SOURCE_DATE_EPOCH.
string(TIMESTAMP changelog_date "%a, %d %b %Y %H:%M:%S +0000" UTC)
set(changelog_dir "${PROJECT_BINARY_DIR}/debian_docs")
file(MAKE_DIRECTORY "${changelog_dir}")
file(WRITE "${changelog_dir}/changelog" "delayq (${PROJECT_VERSION}) unstable; urgency=medium

  * Release ${PROJECT_VERSION}: see
    ${PROJECT_HOMEPAGE_URL}/blob/v${PROJECT_VERSION}/CHANGELOG.md

 -- ${CPACK_PACKAGE_CONTACT}  ${changelog_date}
")
execute_process(COMMAND gzip -9nf "${changelog_dir}/changelog" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gzip -9n of the Debian changelog failed (${rc})")
endif()
foreach(component IN ITEMS runtime dev)
    string(TOUPPER "${component}" upper)
    set(doc_dir "${CMAKE_INSTALL_DATAROOTDIR}/doc/${CPACK_DEBIAN_${upper}_PACKAGE_NAME}")
    install(FILES "${PROJECT_SOURCE_DIR}/packaging/copyright" "${changelog_dir}/changelog.gz"
        DESTINATION "${doc_dir}" COMPONENT ${component})
endforeach()
# Tags lintian reports that the packages keep on purpose, each with its reason.
install(FILES "${PROJECT_SOURCE_DIR}/packaging/lintian-overrides"
    DESTINATION "${CMAKE_INSTALL_DATAROOTDIR}/lintian/overrides" RENAME delayq COMPONENT runtime)
