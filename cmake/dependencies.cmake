# Every third-party package, found once. Boost 1.81 via its CONFIG file: CMake 3.25's
# FindBoost predates 1.81. yaml-cpp 0.7's target has no namespace; libgit2 has only pkg-config.
find_package(Threads REQUIRED)
find_package(Boost 1.81 REQUIRED CONFIG COMPONENTS json filesystem)
find_package(SQLite3 REQUIRED)
# libpq for the shared store (pg_store); CMake's FindPostgreSQL needs only libpq-dev.
find_package(PostgreSQL REQUIRED)
# SHA-256 and randomness for per-run tokens (engine/run_tokens.cpp).
find_package(OpenSSL REQUIRED COMPONENTS Crypto SSL)
find_package(yaml-cpp 0.7 REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(LIBGIT2 REQUIRED IMPORTED_TARGET libgit2)
find_package(CLI11 CONFIG REQUIRED)
# IANA time zones for schedules (core/time_zone.cpp): Debian's libhowardhinnant-date-dev,
# reading the system tz database; g++ 12 has no std::chrono tzdb.
find_package(date CONFIG REQUIRED)
if(AGENTRY_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(AGENTRY_BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED)
endif()

# All Boost configuration macros live on one target so every TU sees the same ones;
# a TU that disagrees on the separate-compilation macros fails at link time.
add_library(agentry_boost INTERFACE)
target_link_libraries(agentry_boost INTERFACE Boost::headers Boost::json Threads::Threads)
target_compile_definitions(agentry_boost INTERFACE
  BOOST_ASIO_NO_DEPRECATED BOOST_DLL_USE_STD_FS
  BOOST_ASIO_SEPARATE_COMPILATION BOOST_BEAST_SEPARATE_COMPILATION)
