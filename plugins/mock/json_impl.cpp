// Boost.JSON compiled into the plugin (header-only mode), so the library depends on
// nothing but the C++ runtime and stays loadable next to any Boost the host uses; the
// version script keeps all of it private.
#include <boost/json/src.hpp>
