# Man pages: shardrun(1) and shardrun-<command>(1) for every command, made at build time by
# help2man from the text `shardrun docs man [COMMAND]` prints, which is written from the same
# option tables as --help and docs/reference/cli/ (runner/cli/cli_pages.cpp), and installed by
# `cmake --install` into share/man/man1 (component man). The pages are rebuilt with the binary.
include(GNUInstallDirs)
find_program(SHARDRUN_HELP2MAN help2man)
if(NOT SHARDRUN_HELP2MAN)
  message(WARNING "help2man not found: no man pages are built or installed, and the man_pages test "
                  "fails (scripts/install-deps installs help2man)")
  return()
endif()

set(SHARDRUN_MAN_DIR ${CMAKE_BINARY_DIR}/man/man1)
add_custom_command(OUTPUT ${SHARDRUN_MAN_DIR}/shardrun.1
  COMMAND ${CMAKE_COMMAND} -DSHARDRUN=$<TARGET_FILE:shardrun> -DHELP2MAN=${SHARDRUN_HELP2MAN}
          -DMAN_DIR=${SHARDRUN_MAN_DIR} -DVERSION=${PROJECT_VERSION} -P ${CMAKE_CURRENT_LIST_DIR}/man_pages.cmake
  DEPENDS shardrun ${CMAKE_CURRENT_LIST_DIR}/man_pages.cmake
  COMMENT "Man pages shardrun(1), shardrun-<command>(1) (help2man)"
  VERBATIM)
add_custom_target(shardrun_man_pages ALL DEPENDS ${SHARDRUN_MAN_DIR}/shardrun.1)
install(DIRECTORY ${SHARDRUN_MAN_DIR} DESTINATION ${CMAKE_INSTALL_MANDIR} COMPONENT man)
