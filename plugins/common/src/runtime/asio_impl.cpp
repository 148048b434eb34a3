// Asio's sources, compiled once for the backend runtime (BOOST_ASIO_SEPARATE_COMPILATION
// is set on agentry_plugin_runtime for every file that links it).
#include <boost/asio/impl/src.hpp>
