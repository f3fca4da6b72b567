#pragma once
// Small text helpers shared by the libraries that match names.
#include <string>
#include <string_view>

namespace gtv {

// ASCII letters folded to lower case; other bytes kept (names of calls, records and kernels are ASCII).
[[nodiscard]] std::string lower_case(std::string_view text);

}  // namespace gtv
