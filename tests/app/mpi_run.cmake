# The decomposition tests of `shwa run` (cmake -P, so that a hang is a failure, not a wait):
#   -DMPIEXEC=... -DFLAGS="mpiexec flags" -DEXE=shwa -DDECK=... -DDIR=scratch folder -DNP=n
#   -DSETS="key=value|key=value" (--set overrides of the parallel run, '|'-separated) -DTIMEOUT=s
#   -DMODE=same     the run at NP ranks writes the same files, byte for byte, as one process:
#                   every ESRI ASCII grid, the maxima maps, the gauges; and NP VTK pieces
#   -DMODE=restart  a run at NP ranks stops at t = 4 s; one process resumes from its checkpoint
#                   to the end: byte for byte the same files as one uninterrupted process
#   -DMODE=bad      the run at NP ranks fails: every rank exits, non-zero, the line matching
#                   -DEXPECT=regex printed once, the only error line, no output folder;
#                   -DRESTART=ON adds --restart (the root alone finds there is no checkpoint);
#                   -DOTHER_SETS="key=value|..." gives the last rank those overrides instead
#                   (mpiexec's A : B form), so that the ranks disagree on the run
separate_arguments(_flags UNIX_COMMAND "${FLAGS}")
string(REPLACE "|" ";" _set_list "${SETS}")
set(_sets "")
foreach(s IN LISTS _set_list)
  list(APPEND _sets --set "${s}")
endforeach()
file(REMOVE_RECURSE "${DIR}")
file(MAKE_DIRECTORY "${DIR}")

# run(name [mpi] args...): runs shwa, fails the test unless it exits 0.
function(run_shwa name np)
  if(np GREATER 0)
    set(cmd ${MPIEXEC} -n ${np} ${_flags} ${EXE})
  else()
    set(cmd ${EXE})
  endif()
  execute_process(COMMAND ${cmd} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  TIMEOUT ${TIMEOUT})
  message(STATUS "${name}: exit status ${rc}\n${err}")
  if(NOT rc STREQUAL "0")
    message(FATAL_ERROR "${name}: expected exit status 0, got ${rc}\n${out}")
  endif()
endfunction()

# same_files(a b): every .asc grid and the gauges of output folder a are byte for byte those of b.
function(same_files a b)
  file(GLOB_RECURSE grids RELATIVE "${a}" "${a}/*.asc" "${a}/gauges.csv")
  list(LENGTH grids n)
  if(n LESS 10)
    message(FATAL_ERROR "only ${n} output files in ${a}")
  endif()
  foreach(f IN LISTS grids)
    execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${a}/${f}" "${b}/${f}" RESULT_VARIABLE diff)
    if(NOT diff EQUAL 0)
      message(FATAL_ERROR "${b}/${f} differs from ${a}/${f} (one process)")
    endif()
  endforeach()
  message(STATUS "${n} files byte for byte the same: ${b} and ${a}")
endfunction()

if(MODE STREQUAL "same")
  run_shwa(reference 0 run ${DECK} --set "output.dir=\"${DIR}/np1\"")
  run_shwa(parallel ${NP} run ${DECK} --set "output.dir=\"${DIR}/np${NP}\"" ${_sets})
  same_files("${DIR}/np1" "${DIR}/np${NP}")
  file(GLOB pieces "${DIR}/np${NP}/vtk/shwa_0000_r*.vti")
  list(LENGTH pieces n)
  if(NOT n EQUAL NP OR NOT EXISTS "${DIR}/np${NP}/vtk/shwa_0000.pvti")
    message(FATAL_ERROR "expected ${NP} VTK pieces and a .pvti, found ${n} pieces")
  endif()
  file(READ "${DIR}/np${NP}/summary.json" summary)
  if(NOT summary MATCHES "\"ranks\": ${NP}")
    message(FATAL_ERROR "summary.json does not give ${NP} ranks:\n${summary}")
  endif()
elseif(MODE STREQUAL "restart")
  run_shwa(reference 0 run ${DECK} --set "output.dir=\"${DIR}/np1\"")
  run_shwa(first_part ${NP} run ${DECK} --set "output.dir=\"${DIR}/restart\"" --set time.end=4.0
           --set time.checkpoint_interval=2.0 ${_sets})
  run_shwa(resumed 0 run ${DECK} --set "output.dir=\"${DIR}/restart\"" --restart)
  same_files("${DIR}/np1" "${DIR}/restart")
elseif(MODE STREQUAL "bad")
  set(_restart "")
  if(RESTART)
    set(_restart --restart)
  endif()
  set(_ranks -n ${NP} ${_flags} ${EXE} run ${DECK} --set "output.dir=\"${DIR}/out\"" ${_sets} ${_restart})
  if(OTHER_SETS)
    string(REPLACE "|" ";" _other_list "${OTHER_SETS}")
    set(_other "")
    foreach(s IN LISTS _other_list)
      list(APPEND _other --set "${s}")
    endforeach()
    math(EXPR _first "${NP} - 1")
    set(_ranks -n ${_first} ${_flags} ${EXE} run ${DECK} --set "output.dir=\"${DIR}/out\"" ${_sets} ${_restart}
               : -n 1 ${EXE} run ${DECK} --set "output.dir=\"${DIR}/out\"" ${_other} ${_restart})
  endif()
  execute_process(COMMAND ${MPIEXEC} ${_ranks}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT ${TIMEOUT})
  set(all "${out}${err}")
  message(STATUS "exit status: ${rc}\n${all}")
  if(NOT rc MATCHES "^[0-9]+$")
    message(FATAL_ERROR "the run did not end by itself: ${rc}")
  endif()
  if(rc EQUAL 0)
    message(FATAL_ERROR "expected a failing exit status, got 0")
  endif()
  string(REGEX MATCHALL "${EXPECT}" matches "${all}")
  list(LENGTH matches n)
  string(REGEX MATCHALL "shwa: error:" errors "${all}")
  list(LENGTH errors e)
  if(NOT n EQUAL 1 OR NOT e EQUAL 1)
    message(FATAL_ERROR "expected the error '${EXPECT}' once and no other, found it ${n} time(s) among ${e} error line(s)")
  endif()
  if(EXISTS "${DIR}/out")
    message(FATAL_ERROR "the failed run left ${DIR}/out")
  endif()
else()
  message(FATAL_ERROR "unknown MODE ${MODE}")
endif()
file(REMOVE_RECURSE "${DIR}")  # passed: nothing to look at
