# The built-in kernels (kernels/<name>/) and task kinds (runner/tasks/<name>_kind.cpp) are found on
# disk at configure time (file(GLOB CONFIGURE_DEPENDS), so a new folder or file re-runs the
# configure), and the lists that tie them together (the kind table, the selftest cases, the CUDA
# backend's table) are written into build/generated/ from templates beside the code that uses them.
# Generated rather than self-registering through static initializers: the linker drops an object
# file of a static library that nothing references, and with it the registration.

# The order the docs, `shardrun kinds` and `shardrun selftest` have always shown; a name not listed
# here (a new kernel or kind) follows, alphabetically. A new entry need not be added.
set(SHARDRUN_ENTRY_ORDER exec noop train gemm blur heat2d montecarlo embed mlp)

# shardrun_ordered(<out> <names>...): <names> in SHARDRUN_ENTRY_ORDER, then the rest sorted.
function(shardrun_ordered out)
  set(rest ${ARGN})
  list(SORT rest)
  set(ordered)
  foreach(name IN LISTS SHARDRUN_ENTRY_ORDER)
    if(name IN_LIST rest)
      list(APPEND ordered ${name})
      list(REMOVE_ITEM rest ${name})
    endif()
  endforeach()
  list(APPEND ordered ${rest})
  set(${out} ${ordered} PARENT_SCOPE)
endfunction()

# shardrun_glob_names(<out> <folder> <pattern>): the <name>s of the files in <folder> matching
# <pattern>, in which `<name>` stands for the name (e.g. "<name>/<name>_cpu.cpp"), in order.
function(shardrun_glob_names out folder pattern)
  string(REPLACE "<name>" "*" glob "${pattern}")
  file(GLOB files CONFIGURE_DEPENDS RELATIVE ${folder} ${folder}/${glob})
  string(REPLACE "<name>" "([a-z0-9_]+)" regex "^${pattern}$")
  string(REPLACE "." "\\." regex "${regex}")
  set(names)
  foreach(file IN LISTS files)
    if(file MATCHES "${regex}")
      # A pattern naming <name> twice must match the same name twice (blur/blur_cpu.cpp).
      string(REPLACE "<name>" "${CMAKE_MATCH_1}" expected "${pattern}")
      if(file STREQUAL expected)
        list(APPEND names ${CMAKE_MATCH_1})
      endif()
    endif()
  endforeach()
  shardrun_ordered(names ${names})
  set(${out} ${names} PARENT_SCOPE)
endfunction()
