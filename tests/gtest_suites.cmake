# Run after a GoogleTest binary is built (tests/CMakeLists.txt, agentry_gtest_suites):
# writes OUT, the ctest entries of BINARY, one per test suite ("<Suite>.*"), each running
# that suite's tests in one process. Quick tests are most of a unit binary, and a process
# per test spent more CPU starting the binary than running them.
#   cmake -DBINARY=... -DOUT=... -DWORKDIR=... -DTIMEOUT=... [-DEXCLUDE=<gtest patterns>]
#         [-DENVIRONMENT=K=V] -P gtest_suites.cmake
foreach(required BINARY OUT WORKDIR TIMEOUT)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "gtest_suites.cmake: ${required} is not set")
  endif()
endforeach()
# gtest's filter: positive patterns, then "-" and the ones to leave out.
set(negative "")
if(EXCLUDE)
  set(negative "-${EXCLUDE}")
endif()
execute_process(COMMAND "${BINARY}" --gtest_list_tests "--gtest_filter=*${negative}"
  WORKING_DIRECTORY "${WORKDIR}" OUTPUT_VARIABLE listing ERROR_VARIABLE errors RESULT_VARIABLE rc TIMEOUT 60)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${BINARY} --gtest_list_tests failed (${rc}):\n${listing}${errors}")
endif()
string(REPLACE "\n" ";" lines "${listing}")
set(entries "")
foreach(line IN LISTS lines)
  # A suite's line is its name and a dot at the start of the line (a typed suite's has a
  # "  # TypeParam = ..." comment after it); its tests' lines are indented.
  if(line MATCHES "^([^ .]+)\\.( |$)")
    set(suite "${CMAKE_MATCH_1}")
    string(APPEND entries
      "add_test([=[${suite}.*]=] [=[${BINARY}]=] [=[--gtest_filter=${suite}.*${negative}]=])\n"
      "set_tests_properties([=[${suite}.*]=] PROPERTIES WORKING_DIRECTORY [=[${WORKDIR}]=] "
      "ENVIRONMENT [=[${ENVIRONMENT}]=] TIMEOUT ${TIMEOUT})\n")
  endif()
endforeach()
file(WRITE "${OUT}" "${entries}")
