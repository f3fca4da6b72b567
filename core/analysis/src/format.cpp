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

}  // namespace gtv::analysis
