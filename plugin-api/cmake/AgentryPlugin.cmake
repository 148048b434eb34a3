# agentry_add_plugin(<target> <sources...>
#                    [OUTPUT_DIRECTORY <dir>]    default: ${PROJECT_BINARY_DIR}/lib/agentry/plugins
#                    [LINK <libraries...>])      linked PRIVATE, after agentry_plugin_api
#
# A backend plugin as a MODULE library named <target>.so whose only dynamic symbol is
# agentry_plugin_entry (plugin.h, obligation 1):
#  - hidden visibility for everything, inline functions included;
#  - a version script that keeps only the entry global, so even a stray
#    __attribute__((visibility("default"))) in a header cannot widen the interface;
#  - -z defs, so an unresolved symbol fails the link instead of the host's dlopen().
# The default output directory is where the daemon looks first: <bin>/../lib/agentry/plugins.
function(agentry_add_plugin target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "OUTPUT_DIRECTORY" "LINK")
  set(map ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/agentry_plugin.map)
  if(NOT arg_OUTPUT_DIRECTORY)
    set(arg_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/lib/agentry/plugins)
  endif()
  add_library(${target} MODULE ${arg_UNPARSED_ARGUMENTS})
  target_link_libraries(${target} PRIVATE agentry_plugin_api ${arg_LINK})
  set_target_properties(${target} PROPERTIES
    PREFIX ""
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LIBRARY_OUTPUT_DIRECTORY ${arg_OUTPUT_DIRECTORY}
    LINK_DEPENDS ${map})
  target_link_options(${target} PRIVATE "LINKER:--version-script=${map}")
  # -z defs needs every symbol resolved at link time. GCC links the sanitizer runtimes
  # into shared objects when -fsanitize= is on the link line (cmake/sanitizers.cmake puts
  # it there); Clang leaves them for the executable to provide, so there -z defs would
  # reject every sanitized plugin and is dropped.
  if(NOT (AGENTRY_SANITIZE AND CMAKE_CXX_COMPILER_ID MATCHES "Clang"))
    target_link_options(${target} PRIVATE "LINKER:-z,defs")
  endif()
endfunction()
