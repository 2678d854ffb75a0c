# Sources of the built-in kernel task kinds and `shardrun selftest`, appended to shardrun_runner.
set(SHARDRUN_KERNEL_KIND_SOURCES
  tasks/kernel_kinds.cpp
  tasks/gemm_kind.cpp
  tasks/blur_kind.cpp
  tasks/heat2d_kind.cpp
  tasks/montecarlo_kind.cpp
  tasks/embed_kind.cpp
  cli/command_selftest.cpp)
