// Boost.JSON's sources in header-only mode, compiled once for all plugins: each plugin
// links this archive, so its .so carries a private, hidden copy and depends on no
// Boost.JSON library (nothing the host happens to load can clash with it).
#include <boost/json/src.hpp>
