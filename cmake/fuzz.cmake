# -DAGENTRY_FUZZ=ON: the libFuzzer targets of tests/fuzz. libFuzzer's coverage hooks
# (fuzzer-no-link) must be in every library the targets call, not only in the targets,
# so this adds them, with ASan and UBSan, to AGENTRY_SANITIZE before sanitizers.cmake
# applies it to all targets. The targets themselves link with -fsanitize=fuzzer.
if(AGENTRY_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "AGENTRY_FUZZ needs clang (libFuzzer); use `cmake --preset fuzz`")
  endif()
  if(NOT AGENTRY_BUILD_TESTS)
    message(FATAL_ERROR "AGENTRY_FUZZ needs AGENTRY_BUILD_TESTS: the targets live in tests/fuzz")
  endif()
  list(APPEND AGENTRY_SANITIZE fuzzer-no-link address undefined)
  list(REMOVE_DUPLICATES AGENTRY_SANITIZE)
endif()
