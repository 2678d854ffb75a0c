# The task kinds: every runner/tasks/<name>_kind.cpp defines `TaskKindEntry <name>_kind_entry()`,
# its row of the table (cmake/ShardrunEntries.cmake finds them; the table's list is generated
# from tasks/built_in_kinds.cpp.in), plus their parameter tables, the checks that use them, and the
# commands that describe them (`shardrun selftest`, `shardrun kinds`), appended to shardrun_runner.
# Nothing here names a kind.
shardrun_glob_names(SHARDRUN_KIND_NAMES ${CMAKE_CURRENT_LIST_DIR} "<name>_kind.cpp")
set(SHARDRUN_KIND_DECLARATIONS "")
set(SHARDRUN_KIND_ENTRIES "")
set(SHARDRUN_KIND_SOURCES "")
foreach(kind IN LISTS SHARDRUN_KIND_NAMES)
  string(APPEND SHARDRUN_KIND_DECLARATIONS "TaskKindEntry ${kind}_kind_entry();\n")
  string(APPEND SHARDRUN_KIND_ENTRIES "${kind}_kind_entry(), ")
  list(APPEND SHARDRUN_KIND_SOURCES tasks/${kind}_kind.cpp)
endforeach()
configure_file(${CMAKE_CURRENT_LIST_DIR}/built_in_kinds.cpp.in
  ${CMAKE_BINARY_DIR}/generated/runner/tasks/built_in_kinds.cpp @ONLY)

list(APPEND SHARDRUN_KIND_SOURCES
  ${CMAKE_BINARY_DIR}/generated/runner/tasks/built_in_kinds.cpp
  tasks/param_table.cpp
  tasks/dataset_shapes.cpp
  run/setup/param_checks.cpp
  cli/command_selftest.cpp
  cli/command_kinds.cpp)
