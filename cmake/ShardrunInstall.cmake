# `cmake --install <build> [--prefix P]` and the CMake package (included once from the top level).
#
#   bin/shardrun
#   lib/libshardrun_{runner,job,job_reference,result_decoding,collectives,kernels,io,io_types}.a  the libraries, static as built
#   include/shardrun/{base,runner,collectives,kernels,io}/...hpp a task kind's headers (and the rest)
#   lib/cmake/shardrun/shardrun{Config,ConfigVersion,Targets}.cmake
#   share/shardrun/shardrun-report.py                            what `shardrun report` runs
#   share/shardrun/aws-batch/entrypoint                          the cloud containers' entry point
#   share/shardrun/modulefiles/shardrun/<version>.lua            module use <P>/share/shardrun/modulefiles
#   share/man/man1/shardrun.1, shardrun-<command>.1               man pages (cmake/ShardrunManPages.cmake)
#
# find_package(shardrun) gives shardrun::shardrun: the runner library with everything it links
# (collectives, kernels, io, MPI, HDF5, ...), the include path of the headers above, and
# shardrun::cli::main() to run the CLI with task kinds of one's own (examples/custom-task/).
# Headers go under include/shardrun/ because their folder names (io/, kernels/) are too
# generic for a shared include/; code includes them as in this tree: "runner/tasks/registry.hpp".
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(SHARDRUN_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/shardrun)
set(SHARDRUN_INSTALL_INCLUDEDIR include/shardrun)  # the libraries' $<INSTALL_INTERFACE:...>
set(SHARDRUN_INSTALL_DATADIR ${CMAKE_INSTALL_DATADIR}/shardrun)

set(_shardrun_libraries shardrun_runner shardrun_job shardrun_job_reference shardrun_result_decoding shardrun_collectives shardrun_kernels
  shardrun_io shardrun_io_types shardrun_base)
if(TARGET shardrun_nccl)
  list(APPEND _shardrun_libraries shardrun_nccl)  # NCCL's include dir and library, an interface target
endif()
set_target_properties(shardrun_runner PROPERTIES EXPORT_NAME shardrun)

install(TARGETS shardrun RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS ${_shardrun_libraries} EXPORT shardrunTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY
    ${PROJECT_SOURCE_DIR}/base ${PROJECT_SOURCE_DIR}/runner ${PROJECT_SOURCE_DIR}/collectives
    ${PROJECT_SOURCE_DIR}/kernels ${PROJECT_SOURCE_DIR}/io
  DESTINATION ${SHARDRUN_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.hpp")
install(FILES ${CMAKE_BINARY_DIR}/generated/runner/version.hpp DESTINATION ${SHARDRUN_INSTALL_INCLUDEDIR}/runner)
install(FILES ${CMAKE_BINARY_DIR}/generated/kernels/common/cuda_kernel_list.hpp
  DESTINATION ${SHARDRUN_INSTALL_INCLUDEDIR}/kernels/common)

install(EXPORT shardrunTargets NAMESPACE shardrun:: DESTINATION ${SHARDRUN_INSTALL_CMAKEDIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/shardrunConfig.cmake.in
  ${CMAKE_BINARY_DIR}/cmake/shardrunConfig.cmake
  INSTALL_DESTINATION ${SHARDRUN_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_BINDIR SHARDRUN_INSTALL_DATADIR)
# 0.x: a new minor version may change the C++ interface.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/shardrunConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/shardrunConfig.cmake ${CMAKE_BINARY_DIR}/cmake/shardrunConfigVersion.cmake
  DESTINATION ${SHARDRUN_INSTALL_CMAKEDIR})

# `shardrun report` runs this script. It looks next to the executable first
# (bin/../share/shardrun/), then in the source tree (build trees: edits apply without a
# rebuild), then at this install prefix (a program that links the installed library lives
# elsewhere; Spack and the container image delete the sources).
install(PROGRAMS ${PROJECT_SOURCE_DIR}/scripts/shardrun-report.py DESTINATION ${SHARDRUN_INSTALL_DATADIR})
# Its model (bars, runs, busy and idle) and its panels, imported from the same folder.
install(FILES ${PROJECT_SOURCE_DIR}/scripts/shardrun_report_data.py ${PROJECT_SOURCE_DIR}/scripts/shardrun_report_gpu.py
              ${PROJECT_SOURCE_DIR}/scripts/shardrun_report_panels.py
        DESTINATION ${SHARDRUN_INSTALL_DATADIR})
file(RELATIVE_PATH _shardrun_report_from_bin ${CMAKE_INSTALL_FULL_BINDIR}
  ${CMAKE_INSTALL_FULL_DATADIR}/shardrun/shardrun-report.py)
set_property(SOURCE ${PROJECT_SOURCE_DIR}/runner/cli/command_report.cpp DIRECTORY ${PROJECT_SOURCE_DIR}/runner
  APPEND PROPERTY COMPILE_DEFINITIONS
  SHARDRUN_REPORT_FROM_BIN="${_shardrun_report_from_bin}"
  SHARDRUN_REPORT_INSTALLED="${CMAKE_INSTALL_FULL_DATADIR}/shardrun/shardrun-report.py"
  SHARDRUN_REPORT_SOURCE="${PROJECT_SOURCE_DIR}/scripts/shardrun-report.py")
set_property(SOURCE ${PROJECT_SOURCE_DIR}/runner/cli/command_export.cpp DIRECTORY ${PROJECT_SOURCE_DIR}/runner
  APPEND PROPERTY COMPILE_DEFINITIONS SHARDRUN_PYTHON_PACKAGE_SOURCE="${PROJECT_SOURCE_DIR}/scripts/python")

if(EXISTS ${PROJECT_SOURCE_DIR}/scripts/aws-batch/entrypoint)
  install(PROGRAMS ${PROJECT_SOURCE_DIR}/scripts/aws-batch/entrypoint DESTINATION ${SHARDRUN_INSTALL_DATADIR}/aws-batch)
endif()

# The Lmod modulefile, filled in with the prefix given at install time (--prefix included).
install(CODE "
  set(SHARDRUN_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  set(SHARDRUN_VERSION \"${PROJECT_VERSION}\")
  set(SHARDRUN_FEATURES \"CUDA ${SHARDRUN_HAVE_CUDA}, NCCL ${SHARDRUN_HAVE_NCCL}\")
  set(_modulefile \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${SHARDRUN_INSTALL_DATADIR}/modulefiles/shardrun/${PROJECT_VERSION}.lua\")
  message(STATUS \"Installing: \${_modulefile}\")
  configure_file(\"${PROJECT_SOURCE_DIR}/scripts/modules/shardrun.lua\" \"\${_modulefile}\" @ONLY)
")
