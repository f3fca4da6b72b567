#include "input/read_limits.h"

#include <cstdlib>
#include <string_view>

namespace gtv::io {
namespace {

// The environment variable's value, or 0 when it is unset or not a byte count.
std::uint64_t from_environment(const char* name) {
  const char* text = std::getenv(name);
  if (text == nullptr) return 0;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (end == text || value == 0) return 0;
  const std::string_view suffix(end);
  int shift = 0;
  if (suffix == "K" || suffix == "k")
    shift = 10;
  else if (suffix == "M" || suffix == "m")
    shift = 20;
  else if (suffix == "G" || suffix == "g")
    shift = 30;
  else if (!suffix.empty())
    return 0;
  if (value > (~std::uint64_t{0} >> shift)) return ~std::uint64_t{0};
  return static_cast<std::uint64_t>(value) << shift;
}

std::uint64_t limit(std::uint64_t option, const char* variable, std::uint64_t fallback) {
  if (option != 0) return option;
  const std::uint64_t env = from_environment(variable);
  return env != 0 ? env : fallback;
}

}  // namespace

std::uint64_t max_value_bytes(const ReadOptions& options) {
  return limit(options.max_value_bytes, "GTV_MAX_VALUE_BYTES", kDefaultMaxValueBytes);
}

std::uint64_t max_stream_bytes(const ReadOptions& options) {
  return limit(options.max_stream_bytes, "GTV_MAX_STREAM_BYTES", kDefaultMaxStreamBytes);
}

}  // namespace gtv::io
