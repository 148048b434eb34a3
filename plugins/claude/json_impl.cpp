// Boost.JSON compiled into the plugin (header-only mode), as in the other plugins: it
// depends on no Boost library the host happens to load. Hidden, like the rest.
#include <boost/json/src.hpp>
