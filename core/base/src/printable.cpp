#include "gtv/base/printable.h"

#include <cstdio>

namespace gtv {
namespace {

void append_hex_byte(std::string& out, unsigned char byte) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += "\\x";
  out += kHex[byte >> 4];
  out += kHex[byte & 15];
}

bool is_control(unsigned char c) { return c < 0x20 || c == 0x7f; }

}  // namespace

std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const unsigned char c = b(0);
  if (c < 0x80) return 1;
  const std::size_t n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
  if (n == 0 || c > 0xf4 || i + n > text.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((b(k) & 0xc0) != 0x80) return 0;
  if (c == 0xe0 && b(1) < 0xa0) return 0;  // overlong
  if (c == 0xed && b(1) > 0x9f) return 0;  // surrogates
  if (c == 0xf0 && b(1) < 0x90) return 0;  // overlong
  if (c == 0xf4 && b(1) > 0x8f) return 0;  // beyond U+10FFFF
  return n;
}

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    const std::size_t n = utf8_sequence_length(text, i);
    // U+0080..U+009F are C2 80..C2 9F: a terminal may act on them (0x9b is CSI) just as on ESC [.
    const bool c1 = n == 2 && c == 0xc2 && static_cast<unsigned char>(text[i + 1]) < 0xa0;
    if (n == 0 || (n == 1 && is_control(c)) || c1) {
      for (std::size_t k = 0; k < (c1 ? 2u : 1u); ++k) append_hex_byte(out, static_cast<unsigned char>(text[i + k]));
      i += c1 ? 2 : 1;
      continue;
    }
    out.append(text.substr(i, n));
    i += n;
  }
  return out;
}

namespace {

void append_u_escape(std::string& out, unsigned code) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\u%04x", code);
  out += buf;
}

}  // namespace

// Names come from trace files: besides what JSON requires, DEL and the C1 controls are written as \u escapes (the
// same string to a parser, harmless on a terminal) and bytes that are not UTF-8 as U+FFFD, so the output is
// always valid JSON.
std::string json_quoted(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '"';
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    const std::size_t n = utf8_sequence_length(text, i);
    if (n == 0) {
      out += "\\ufffd";
      ++i;
      continue;
    }
    if (n == 2 && c == 0xc2 && static_cast<unsigned char>(text[i + 1]) < 0xa0) {
      append_u_escape(out, static_cast<unsigned char>(text[i + 1]));
      i += 2;
      continue;
    }
    if (n > 1) {
      out.append(text.substr(i, n));
      i += n;
      continue;
    }
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20 || c == 0x7f)
          append_u_escape(out, c);
        else
          out += static_cast<char>(c);
    }
    ++i;
  }
  out += '"';
  return out;
}

}  // namespace gtv
