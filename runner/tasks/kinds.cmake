# Sources of the task kinds (one runner/tasks/<name>_kind.cpp each, which also defines the kind's
# row of the table: <name>_kind_entry(), listed in registry.cpp), their parameter tables and the
# checks that use them, and of the commands that describe them (`shardrun selftest`,
# `shardrun kinds`), appended to shardrun_runner. A new kind adds its file here.
set(SHARDRUN_KIND_SOURCES
  tasks/exec_kind.cpp
  tasks/noop_kind.cpp
  tasks/train_kind.cpp
  tasks/gemm_kind.cpp
  tasks/blur_kind.cpp
  tasks/heat2d_kind.cpp
  tasks/montecarlo_kind.cpp
  tasks/embed_kind.cpp
  tasks/param_table.cpp
  tasks/dataset_shapes.cpp
  run/param_checks.cpp
  cli/command_selftest.cpp
  cli/command_kinds.cpp)
