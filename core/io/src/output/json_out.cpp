#include "output/json_out.h"

#include <charconv>
#include <cmath>

#include "gtv/base/printable.h"
#include "json/number_text.h"

namespace gtv::io {

// Escapes what JSON requires and replaces bytes that are not UTF-8 with U+FFFD, so every file gtv writes parses.
JsonOut& JsonOut::str(std::string_view text) {
  static const char* hex = "0123456789abcdef";
  buffer_.push_back('"');
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      const std::size_t n = utf8_sequence_length(text, i);
      if (n != 0) {
        i += n - 1;
        continue;
      }
      buffer_.append(text.substr(start, i - start));
      buffer_.append("\\ufffd");
      start = i + 1;
      continue;
    }
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    buffer_.append(text.substr(start, i - start));
    start = i + 1;
    switch (c) {
      case '"':
        buffer_.append("\\\"");
        break;
      case '\\':
        buffer_.append("\\\\");
        break;
      case '\n':
        buffer_.append("\\n");
        break;
      case '\t':
        buffer_.append("\\t");
        break;
      case '\r':
        buffer_.append("\\r");
        break;
      default:
        buffer_.append("\\u00");
        buffer_.push_back(hex[c >> 4]);
        buffer_.push_back(hex[c & 15]);
    }
  }
  buffer_.append(text.substr(start));
  buffer_.push_back('"');
  return *this;
}

JsonOut& JsonOut::num(std::int64_t value) {
  char text[24];
  auto [end, ec] = std::to_chars(text, text + sizeof text, value);
  (void)ec;
  buffer_.append(text, end);
  return *this;
}

JsonOut& JsonOut::real(double value) {
  if (!std::isfinite(value)) return raw("null");  // JSON has no NaN or infinity
  char text[32];
  auto [end, ec] = std::to_chars(text, text + sizeof text, value);
  (void)ec;
  buffer_.append(text, end);
  return *this;
}

JsonOut& JsonOut::us(std::int64_t ns) {
  append_ns_as_us(buffer_, ns);
  return *this;
}

JsonOut& JsonOut::scaled(std::int64_t value, int decimals) {
  append_scaled_decimal(buffer_, value, decimals);
  return *this;
}

bool JsonOut::flush() {
  const bool ok = sink_.write(buffer_);
  buffer_.clear();
  return ok;
}

}  // namespace gtv::io
