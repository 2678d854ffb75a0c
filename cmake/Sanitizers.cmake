# Instrumented configurations (README.md, "Sanitizers and fuzzing"); included from the top level
# after the CUDA detection and before any target.
#   SHARDRUN_SANITIZE=ON  every target with ASan + UBSan: scripts/test --sanitize (build-asan)
#   SHARDRUN_FUZZ=ON      clang only: the same plus libFuzzer's coverage, and tests/fuzz/; build only
#                         the fuzz targets (scripts/test does, in build-fuzz)
option(SHARDRUN_SANITIZE "Build every target with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
option(SHARDRUN_FUZZ "Build the libFuzzer targets in tests/fuzz (clang; implies the sanitizers)" OFF)

if(SHARDRUN_SANITIZE OR SHARDRUN_FUZZ)
  if(SHARDRUN_HAVE_CUDA)
    # ASan's shadow memory and the CUDA driver's fixed mappings do not mix; the kernels' CPU
    # paths are what the sanitizers can check.
    message(FATAL_ERROR "SHARDRUN_SANITIZE and SHARDRUN_FUZZ build the CPU configuration: add -DSHARDRUN_CUDA=OFF")
  endif()
  # No recovery: a UBSan finding must fail the test that hit it, not scroll past in its log.
  set(SHARDRUN_SANITIZER_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  if(SHARDRUN_FUZZ)
    if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
      message(FATAL_ERROR "SHARDRUN_FUZZ=ON needs clang for libFuzzer: configure with CC=clang CXX=clang++ "
        "(Debian: apt-get install clang libclang-rt-14-dev)")
    endif()
    # Coverage for the libraries (the fuzz executables add -fsanitize=fuzzer, libFuzzer's main);
    # line tables so that a finding's stack names file:line at little build cost.
    list(APPEND SHARDRUN_SANITIZER_FLAGS -fsanitize=fuzzer-no-link -gline-tables-only)
  endif()
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:${SHARDRUN_SANITIZER_FLAGS}>")
  add_link_options(-fsanitize=address,undefined)
endif()

# A program built against an instrumented installed package needs the sanitizer runtimes too.
function(shardrun_sanitizer_link_interface target)
  if(SHARDRUN_SANITIZE OR SHARDRUN_FUZZ)
    target_link_options(${target} INTERFACE -fsanitize=address,undefined)
  endif()
endfunction()
