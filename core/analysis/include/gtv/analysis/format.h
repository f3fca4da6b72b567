#pragma once
// Output formats shared by every report, and the number formatting that keeps reports deterministic.
#include <string>
#include <string_view>

#include "gtv/base/expected.h"

namespace gtv::analysis {

enum class Format { Text, Markdown, Json };

// "text", "markdown" (or "md"), "json"; anything else is an error naming the accepted values.
[[nodiscard]] Expected<Format> format_from_string(std::string_view text);

// Fixed decimals, never locale-dependent, never "-0.00".
[[nodiscard]] std::string fixed(double value, int decimals);
// 0.4937 -> "49%" (decimals = 0) or "49.4%".
[[nodiscard]] std::string percent(double ratio, int decimals = 0);

}  // namespace gtv::analysis
