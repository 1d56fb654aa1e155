# ctest: colio's storage probe (src/store/cost.c) behind storage whose
# calls wait: libcolio_slowfs.so makes every read and write call under DIR
# sleep 1 ms, and the rank is bound to one core (taskset). The probe must
# find a call cost of at least the delay, and take two ranks' calls to
# overlap (write_call_streams 2) instead of serialising as copies into one
# page cache do (0.5, the assumed default). Then, without the delay and
# without binding, on a local file system: the streams are assumed, not
# measured by two threads (write_call_streams 0.5).
file(REMOVE_RECURSE ${DIR})
file(MAKE_DIRECTORY ${DIR})
file(REMOVE ${DIR}.figures)
set(ENV{LD_PRELOAD} ${SLOWFS})
set(ENV{COLIO_SLOWFS_PREFIX} ${DIR}/)
set(ENV{COLIO_SLOWFS_DELAY_US} 1000)
set(ENV{COLIO_STORAGE_CACHE} ${DIR}.figures)
# the first CPU this process may use (containers and batch jobs may not give CPU 0)
execute_process(COMMAND sh -c "taskset -cp $$ | sed 's/.*: //; s/[-,].*//'" OUTPUT_VARIABLE cpu
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT cpu MATCHES "^[0-9]+$")
  message(FATAL_ERROR "no CPU to bind the probe's rank to (taskset said '${cpu}')")
endif()
execute_process(COMMAND ${MPIEXEC} -n 1 ${PREFLAGS} taskset -c ${cpu} ${TOOL} ${DIR}/probe.dat 64 10 1
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc)
  message(FATAL_ERROR "call-cost failed (${rc}): ${out} ${err}")
endif()
file(STRINGS ${DIR}.figures lines)
list(LENGTH lines n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "expected one file system in ${DIR}.figures, got: ${lines}")
endif()
if(NOT lines MATCHES ":assumed ")
  message(FATAL_ERROR "a bound rank's streams should be assumed: ${lines}")
endif()
string(REGEX MATCH "write_call=([0-9.e+-]+)" _ "${lines}")
set(call ${CMAKE_MATCH_1})
string(REGEX MATCH "write_call_streams=([0-9.]+)" _ "${lines}")
set(streams ${CMAKE_MATCH_1})
# CMake compares decimals only: the call cost in microseconds, from a number like 0.00108 or 1.08e-03
execute_process(COMMAND awk "BEGIN { printf \"%d\", ${call} * 1e6 }" OUTPUT_VARIABLE call_us)
if(NOT call_us MATCHES "^[0-9]+$")
  message(FATAL_ERROR "no write_call figure in: ${lines}")
endif()
if(call_us LESS 900)
  message(FATAL_ERROR "write calls behind a 1 ms delay measured ${call} s: ${lines}")
endif()
if(NOT streams STREQUAL "2.000")
  message(FATAL_ERROR "calls that wait should overlap across ranks (write_call_streams 2): ${lines}")
endif()
message(STATUS "probe behind 1 ms calls: write_call=${call} write_call_streams=${streams}")

# the same directory without the delay, the rank on every CPU it may use
file(REMOVE ${DIR}.figures)
unset(ENV{LD_PRELOAD})
execute_process(COMMAND ${MPIEXEC} -n 1 ${PREFLAGS} ${TOOL} ${DIR}/probe.dat 64 10 1
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc)
  message(FATAL_ERROR "call-cost failed (${rc}): ${out} ${err}")
endif()
file(STRINGS ${DIR}.figures lines)
if(lines MATCHES ":dev=") # a local file system (a network one keys by file system only, and measures)
  if(NOT lines MATCHES ":assumed " OR NOT lines MATCHES "write_call_streams=0.500 ")
    message(FATAL_ERROR "a local file system's streams should be assumed (0.5), not measured: ${lines}")
  endif()
endif()
file(REMOVE_RECURSE ${DIR})
file(REMOVE ${DIR}.figures)
message(STATUS "probe without binding: ${lines}")
