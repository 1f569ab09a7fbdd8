# cmake -DPROGRAM=... -DARGS="a;b" -DEXPECTED=2 -P expect_exit_code.cmake
# Passes when PROGRAM ARGS exits with EXPECTED and prints a message on stderr.
execute_process(COMMAND ${PROGRAM} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL EXPECTED)
  message(FATAL_ERROR "${PROGRAM} ${ARGS}: exit code ${rc}, expected ${EXPECTED}\n${out}\n${err}")
endif()
if(err STREQUAL "")
  message(FATAL_ERROR "${PROGRAM} ${ARGS}: no message on stderr")
endif()
message(STATUS "exit code ${rc} as expected: ${err}")
