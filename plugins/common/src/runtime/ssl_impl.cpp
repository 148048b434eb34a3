// Asio's SSL sources, compiled once for the runtime's HTTPS client: with
// BOOST_ASIO_SEPARATE_COMPILATION they are not in asio_impl.cpp, which does not link OpenSSL.
#include <boost/asio/ssl/impl/src.hpp>
