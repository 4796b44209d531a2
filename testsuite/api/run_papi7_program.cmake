# Compile papi7_program.c as a user would (plain -lpapi from the build
# tree), run it, and check that it counted perf::TASK-CLOCK.
# -D: CC SRC INC1 INC2 LIBDIR OUT [SANITIZE]
set(_flags -std=c11 -Wall -Wextra -Werror -O1)
if(SANITIZE)
  list(APPEND _flags -fsanitize=${SANITIZE})
endif()
execute_process(
  COMMAND ${CC} ${_flags} ${SRC} -I${INC1} -I${INC2} -L${LIBDIR} -lpapi -Wl,-rpath,${LIBDIR} -o ${OUT}
  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "compiling the PAPI 7 program failed (${_rc}):\n${_out}${_err}")
endif()
execute_process(COMMAND ${OUT} RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
message(STATUS "${_out}${_err}")
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "the PAPI 7 program failed (${_rc})")
endif()
string(REGEX MATCH "TASK-CLOCK=([0-9]+)" _m "${_out}")
if(NOT _m OR CMAKE_MATCH_1 LESS_EQUAL 0)
  message(FATAL_ERROR "the PAPI 7 program counted no TASK-CLOCK")
endif()
