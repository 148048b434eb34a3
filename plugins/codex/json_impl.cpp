// Boost.JSON compiled into the plugin (header-only mode): the plugin links no Boost.JSON
// library, so that it depends on nothing the host happens to load. Hidden, like the rest.
#include <boost/json/src.hpp>
