// Boost.URL's sources, compiled once for the runtime's URL parsing (runtime/url.hpp).
#include <boost/url/src.hpp>
