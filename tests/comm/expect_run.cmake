# Runs an MPI command and checks how it ends (cmake -P, so that a hang is a failure, not a wait):
#   -DMPIEXEC=... -DNP=... -DEXE=... -DARGS="space separated" [-DFLAGS="mpiexec flags"]
#   -DEXPECT_STATUS=0|nonzero -DEXPECT_LINE=regex -DEXPECT_COUNT=n -DTIMEOUT=seconds
# EXPECT_LINE (a regex) must occur exactly EXPECT_COUNT times in stdout and stderr together.
separate_arguments(_args UNIX_COMMAND "${ARGS}")
separate_arguments(_flags UNIX_COMMAND "${FLAGS}")
execute_process(COMMAND ${MPIEXEC} -n ${NP} ${_flags} ${EXE} ${_args}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT ${TIMEOUT})
set(all "${out}${err}")
message(STATUS "exit status: ${rc}\n${all}")
if(NOT rc MATCHES "^[0-9]+$")
  message(FATAL_ERROR "the run did not end by itself: ${rc}")
endif()
if(EXPECT_STATUS STREQUAL "0" AND NOT rc EQUAL 0)
  message(FATAL_ERROR "expected exit status 0, got ${rc}")
elseif(EXPECT_STATUS STREQUAL "nonzero" AND rc EQUAL 0)
  message(FATAL_ERROR "expected a failing exit status, got 0")
endif()
string(REGEX MATCHALL "${EXPECT_LINE}" matches "${all}")
list(LENGTH matches n)
if(NOT n EQUAL EXPECT_COUNT)
  message(FATAL_ERROR "expected ${EXPECT_COUNT} match(es) of '${EXPECT_LINE}', found ${n}")
endif()
