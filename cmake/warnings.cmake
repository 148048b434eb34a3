add_library(agentry_warnings INTERFACE)
target_compile_options(agentry_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast
  -Wcast-align -Wunused -Woverloaded-virtual>
  # GCC 12 reports false positives inside libstdc++ at -O2 (string concatenation).
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<NOT:$<CONFIG:Debug>>>:-Wno-stringop-overflow -Wno-restrict>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CONFIG:Debug>>:-Werror>)
