# LLVM's lld when the compiler can use it: linking the -O0 binaries (agentry alone is
# about 120 MB with its line tables) took most of a build whose objects came from ccache.
# With lld a clean debug build on a warm cache went from 123 s to 88 s on 2 cores
# (agentry 14.6 s -> 2.3 s, the unit tests 17.4 s -> 3.8 s). -DAGENTRY_LLD=OFF keeps the
# system linker.
option(AGENTRY_LLD "Link with lld when the compiler accepts -fuse-ld=lld" ON)
if(AGENTRY_LLD)
  include(CheckLinkerFlag)
  check_linker_flag(CXX -fuse-ld=lld AGENTRY_HAVE_LLD)
  if(AGENTRY_HAVE_LLD)
    add_link_options(-fuse-ld=lld)
  else()
    message(STATUS "agentry: lld not found; linking with the system linker (install lld for faster builds)")
  endif()
endif()
