// Beast's sources, compiled once for the runtime's network clients
// (BOOST_BEAST_SEPARATE_COMPILATION is set on agentry_plugin_net for its users).
#include <boost/beast/src.hpp>
