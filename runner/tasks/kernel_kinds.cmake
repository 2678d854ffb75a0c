# Sources of the built-in kernel task kinds, appended to shardrun_runner.
set(SHARDRUN_KERNEL_KIND_SOURCES
  tasks/kernel_kinds.cpp)
