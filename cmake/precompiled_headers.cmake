# Precompiled headers for the targets with many translation units. At -O0, parsing the
# same Boost.JSON, standard library and GoogleTest headers was two thirds of each
# file's compile time; with a PCH each target parses them once. (agentry_api_server has
# its own PCH for Asio/Beast.) -DAGENTRY_PCH=OFF builds without, to check that every file
# still includes what it uses.
option(AGENTRY_PCH "Precompile the headers most files include" ON)

function(agentry_precompile target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "TESTS" "" "")
  if(NOT AGENTRY_PCH)
    return()
  endif()
  set(headers <boost/json.hpp> <chrono> <filesystem> <functional> <map> <memory> <optional> <string> <vector>)
  if(arg_TESTS)
    list(APPEND headers <gtest/gtest.h>)
  endif()
  target_precompile_headers(${target} PRIVATE ${headers})
endfunction()
