#include "nsys/nsys_schema.h"

#include <algorithm>

namespace gtv::io::nsys {

std::string_view runtime_call_name(std::string_view name) {
  const std::size_t suffix = name.rfind("_v");
  if (name.substr(0, 4) != "cuda" || suffix == std::string_view::npos || suffix + 2 == name.size()) return name;
  const std::string_view digits = name.substr(suffix + 2);
  const bool version = std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
  return version ? name.substr(0, suffix) : name;
}

}  // namespace gtv::io::nsys
