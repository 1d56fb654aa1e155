# ctest: run an unmodified MPI-IO client twice, without and with
# libcolio_mpiio preloaded (only into the ranks: `env LD_PRELOAD=...`),
# and require byte-identical files and colio statistics proving the
# intercepted calls went through colio.
# -DMPIEXEC= -DNP= -DPREFLAGS= -DCLIENT= -DLIB= -DDIR=
file(REMOVE_RECURSE ${DIR})
file(MAKE_DIRECTORY ${DIR})
set(launch ${MPIEXEC} -n ${NP} ${PREFLAGS})
execute_process(COMMAND ${launch} ${CLIENT} ${DIR}/plain.dat RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc)
  message(FATAL_ERROR "client without the interposer failed (${rc}):\n${out}${err}")
endif()
execute_process(COMMAND ${launch} env LD_PRELOAD=${LIB} COLIO_HINTS=colio_stats=${DIR}/stats.jsonl
                        ${CLIENT} ${DIR}/colio.dat RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc)
  message(FATAL_ERROR "client with the interposer failed (${rc}):\n${out}${err}")
endif()
file(SHA256 ${DIR}/plain.dat plain)
file(SHA256 ${DIR}/colio.dat through)
if(NOT plain STREQUAL through)
  message(FATAL_ERROR "files differ with and without libcolio_mpiio (${DIR}/plain.dat, ${DIR}/colio.dat)")
endif()
if(NOT EXISTS ${DIR}/stats.jsonl)
  message(FATAL_ERROR "no colio statistics: the client's collective calls did not go through colio")
endif()
file(STRINGS ${DIR}/stats.jsonl ops)
list(LENGTH ops nops)
if(nops EQUAL 0)
  message(FATAL_ERROR "empty colio statistics: the client's collective calls did not go through colio")
endif()
message(STATUS "identical files; ${nops} colio operation records")
