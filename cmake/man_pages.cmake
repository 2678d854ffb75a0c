# cmake -DSHARDRUN=<binary> -DHELP2MAN=<help2man> -DMAN_DIR=<dir> -DVERSION=<x.y.z> -P man_pages.cmake
# Writes MAN_DIR/shardrun.1 and MAN_DIR/shardrun-<command>.1 for each command `shardrun docs
# commands` names (ShardrunManPages.cmake runs it after each build of the binary). The pages are
# made in a fresh folder and moved in whole, so a failed run leaves no half set.
foreach(variable SHARDRUN HELP2MAN MAN_DIR VERSION)
  if(NOT ${variable})
    message(FATAL_ERROR "man_pages.cmake: -D${variable}=... is required")
  endif()
endforeach()

# One page from the text `shardrun docs man [COMMAND]` prints; help2man runs the same command
# (through the shell, hence the joined string) to read it.
function(man_page page)
  set(arguments docs man ${ARGN})
  execute_process(COMMAND ${SHARDRUN} ${arguments} OUTPUT_VARIABLE text RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "man_pages.cmake: '${SHARDRUN} ${arguments}' failed (${status})")
  endif()
  # The NAME line is the synopsis: the first paragraph after the usage lines.
  string(REGEX MATCH "\n\n([^\n]+)" synopsis "${text}")
  string(REGEX REPLACE "\\.$" "" synopsis "${CMAKE_MATCH_1}")
  # EXIT STATUS and SEE ALSO, which help2man takes from an --include file.
  execute_process(COMMAND ${SHARDRUN} docs man-include ${ARGN} OUTPUT_FILE ${stage}/${page}.include RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "man_pages.cmake: '${SHARDRUN} docs man-include ${ARGN}' failed (${status})")
  endif()
  list(JOIN arguments " " help_option)
  execute_process(
    COMMAND ${HELP2MAN} --no-info --section=1 --manual=shardrun "--source=shardrun ${VERSION}"
            "--version-string=${page} ${VERSION}" "--name=${synopsis}" "--help-option=${help_option}"
            "--include=${stage}/${page}.include" "--output=${stage}/${page}.1" ${SHARDRUN}
    RESULT_VARIABLE status ERROR_VARIABLE errors)
  file(REMOVE ${stage}/${page}.include)
  if(NOT status EQUAL 0 OR NOT EXISTS ${stage}/${page}.1)
    message(FATAL_ERROR "man_pages.cmake: help2man failed for ${page}: ${errors}")
  endif()
endfunction()

execute_process(COMMAND ${SHARDRUN} docs commands OUTPUT_VARIABLE commands RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "man_pages.cmake: '${SHARDRUN} docs commands' failed (${status})")
endif()
string(STRIP "${commands}" commands)
string(REPLACE "\n" ";" commands "${commands}")

set(stage ${MAN_DIR}.new)
file(REMOVE_RECURSE ${stage})
file(MAKE_DIRECTORY ${stage})
man_page(shardrun)
foreach(command IN LISTS commands)
  man_page(shardrun-${command} ${command})
endforeach()
file(REMOVE_RECURSE ${MAN_DIR})
file(RENAME ${stage} ${MAN_DIR})
