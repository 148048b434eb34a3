#include "sqlite_store/sql_lists.hpp"

#include <boost/json/array.hpp>
#include <boost/json/serialize.hpp>

namespace agentry::sqlite_store {

std::string json_array_text(const std::vector<std::string>& items) {
  boost::json::array array;
  array.reserve(items.size());
  for (const auto& item : items) array.emplace_back(item);
  return boost::json::serialize(array);
}

}  // namespace agentry::sqlite_store
