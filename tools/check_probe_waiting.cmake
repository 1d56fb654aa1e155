# ctest: colio's storage probe (src/store/figures.c) behind storage whose
# calls wait: libcolio_slowfs.so makes every read and write call under DIR
# sleep 1 ms, and the rank is bound to one core (taskset). The probe must
# find a call cost of at least the delay, and take two ranks' calls to
# overlap (write_call_streams 2) instead of serialising as copies into one
# page cache do (0.5, the bound default).
file(REMOVE_RECURSE ${DIR})
file(MAKE_DIRECTORY ${DIR})
file(REMOVE ${DIR}.figures)
set(ENV{LD_PRELOAD} ${SLOWFS})
set(ENV{COLIO_SLOWFS_PREFIX} ${DIR}/)
set(ENV{COLIO_SLOWFS_DELAY_US} 1000)
set(ENV{COLIO_STORAGE_CACHE} ${DIR}.figures)
execute_process(COMMAND ${MPIEXEC} -n 1 ${PREFLAGS} taskset -c 0 ${TOOL} ${DIR}/probe.dat 64 10 1
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc)
  message(FATAL_ERROR "call-cost failed (${rc}): ${out} ${err}")
endif()
file(STRINGS ${DIR}.figures lines)
list(LENGTH lines n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "expected one file system in ${DIR}.figures, got: ${lines}")
endif()
if(NOT lines MATCHES ":bound ")
  message(FATAL_ERROR "the probe's rank was not bound to one core: ${lines}")
endif()
string(REGEX MATCH "write_call=([0-9.e+-]+)" _ "${lines}")
set(call ${CMAKE_MATCH_1})
string(REGEX MATCH "write_call_streams=([0-9.]+)" _ "${lines}")
set(streams ${CMAKE_MATCH_1})
# CMake compares decimals only: the call cost in microseconds, from a number like 0.00108 or 1.08e-03
execute_process(COMMAND awk "BEGIN { printf \"%d\", ${call} * 1e6 }" OUTPUT_VARIABLE call_us)
if(call_us LESS 900)
  message(FATAL_ERROR "write calls behind a 1 ms delay measured ${call} s: ${lines}")
endif()
if(NOT streams STREQUAL "2.000")
  message(FATAL_ERROR "calls that wait should overlap across ranks (write_call_streams 2): ${lines}")
endif()
file(REMOVE_RECURSE ${DIR})
file(REMOVE ${DIR}.figures)
message(STATUS "probe behind 1 ms calls: write_call=${call} write_call_streams=${streams}")
