# Module include roots. Each folder of host/src is one module and is reachable as
# "<folder>/<file>.hpp" only through its own include root: <build>/modules/<folder>,
# which holds one link, <folder> -> host/src/<folder>. A target sees the roots of the
# modules it links (PUBLIC ones pass on to its users, PRIVATE ones do not), so an
# include the dependency rules forbid fails to compile instead of linking quietly.
function(agentry_module target folder)
  set(root ${PROJECT_BINARY_DIR}/modules/${folder})
  file(MAKE_DIRECTORY ${root})
  if(NOT EXISTS ${root}/${folder})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/host/src/${folder} ${root}/${folder} SYMBOLIC)
  endif()
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY")
    target_include_directories(${target} INTERFACE ${root})
  else()
    target_include_directories(${target} PUBLIC ${root})
  endif()
endfunction()
