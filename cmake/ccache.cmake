# ccache, when installed. BASEDIR/NOHASHDIR/sloppiness let a checkout in another folder
# (CI's clean clone) and precompiled headers still hit the cache. INODECACHE: every file
# using a precompiled header makes ccache hash that header's .gch (140-240 MB); keeping
# those hashes by inode halves a clean debug build on a warm cache (256 s -> 123 s, 2 cores).
find_program(CCACHE_PROGRAM ccache)
if(CCACHE_PROGRAM AND NOT DEFINED CMAKE_CXX_COMPILER_LAUNCHER)
  set(_agentry_ccache ${CMAKE_COMMAND} -E env CCACHE_BASEDIR=${CMAKE_SOURCE_DIR} CCACHE_NOHASHDIR=1 CCACHE_INODECACHE=1
      CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime ${CCACHE_PROGRAM})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${_agentry_ccache})
  set(CMAKE_C_COMPILER_LAUNCHER ${_agentry_ccache})
endif()
