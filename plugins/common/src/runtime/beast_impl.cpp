// Beast's sources, compiled once for the runtime's WebSocket client
// (BOOST_BEAST_SEPARATE_COMPILATION is set on agentry_plugin_websocket for its users).
#include <boost/beast/src.hpp>
