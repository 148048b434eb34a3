#pragma once
// Passing a list of keys to one cached statement: bind a JSON array and select from
// json_each(?), instead of building "IN (?,?,...)" SQL whose text varies with the size.

#include <string>
#include <vector>

namespace agentry::sqlite_store {

std::string json_array_text(const std::vector<std::string>& items);

}  // namespace agentry::sqlite_store
