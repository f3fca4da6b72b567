#include "gtv/analysis/format.h"

#include <cmath>
#include <cstdio>

namespace gtv::analysis {

Expected<Format> format_from_string(std::string_view text) {
  if (text == "text") return Format::Text;
  if (text == "markdown" || text == "md") return Format::Markdown;
  if (text == "json") return Format::Json;
  return Error{"unknown format '" + std::string(text) + "' (expected text, markdown or json)"};
}

std::string fixed(double value, int decimals) {
  if (!std::isfinite(value)) value = 0;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  std::string out = buf;
  // "-0.00" reads as a sign error in a report; it is zero.
  if (out[0] == '-' && out.find_first_not_of("-0.") == std::string::npos) out.erase(0, 1);
  return out;
}

std::string percent(double ratio, int decimals) { return fixed(ratio * 100.0, decimals) + "%"; }

std::string grouped_count(std::size_t count) {
  std::string digits = std::to_string(count);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string left_out_line(std::size_t total, std::size_t shown, std::string_view one, std::string_view many,
                          std::string_view where_all) {
  if (shown >= total) return {};
  const std::size_t left_out = total - shown;
  return "... and " + grouped_count(left_out) + " more " + std::string(left_out == 1 ? one : many) + " (" +
         std::string(where_all) + ")";
}

}  // namespace gtv::analysis
