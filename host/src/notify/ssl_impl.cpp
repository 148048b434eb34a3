// Asio's out-of-line SSL code (BOOST_ASIO_SEPARATE_COMPILATION): the only TU that
// compiles it. Only the notifier makes TLS connections.
#include <boost/asio/ssl/impl/src.hpp>
