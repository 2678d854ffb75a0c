# Sources of the task kinds (the built-in kernel kinds, their parameter tables and the checks
# that use them) and of the commands that describe them (`shardrun selftest`, `shardrun kinds`),
# appended to shardrun_runner.
set(SHARDRUN_KERNEL_KIND_SOURCES
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
