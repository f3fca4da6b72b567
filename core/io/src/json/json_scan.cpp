#include "json/json_scan.h"

#include <cstring>

namespace gtv::io {
namespace {

bool is_ws(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

bool is_scalar_char(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == '-' || c == '+' || c == '.' || c == 'E';
}

}  // namespace

std::size_t skip_ws(std::string_view s, std::size_t pos) {
  while (pos < s.size() && is_ws(s[pos])) ++pos;
  return pos;
}

std::size_t string_end(std::string_view s, std::size_t pos) {
  std::size_t i = pos + 1;
  while (i < s.size()) {
    const void* q = std::memchr(s.data() + i, '"', s.size() - i);
    if (q == nullptr) return std::string_view::npos;
    const std::size_t quote = static_cast<std::size_t>(static_cast<const char*>(q) - s.data());
    std::size_t backslashes = 0;
    while (quote - backslashes > pos + 1 && s[quote - backslashes - 1] == '\\') ++backslashes;
    if (backslashes % 2 == 0) return quote + 1;
    i = quote + 1;
  }
  return std::string_view::npos;
}

std::string describe_char(std::string_view s, std::size_t pos) {
  if (pos >= s.size()) return "end of file";
  const auto c = static_cast<unsigned char>(s[pos]);
  if (c >= 0x20 && c < 0x7f) return std::string("'") + static_cast<char>(c) + "'";
  static const char* hex = "0123456789abcdef";
  return std::string("byte 0x") + hex[c >> 4] + hex[c & 15];
}

bool skip_value(std::string_view s, std::size_t pos, std::size_t& end, ScanError& error) {
  std::size_t depth = 0;
  std::size_t i = skip_ws(s, pos);
  do {
    i = skip_ws(s, i);
    if (i >= s.size()) {
      error = {i, "unexpected end of file", true};
      return false;
    }
    const char c = s[i];
    if (c == '"') {
      const std::size_t e = string_end(s, i);
      if (e == std::string_view::npos) {
        error = {i, "unterminated string", true};
        return false;
      }
      i = e;
    } else if (c == '{' || c == '[') {
      if (++depth > kMaxJsonDepth) {
        error = {i, "nesting deeper than " + std::to_string(kMaxJsonDepth) + " levels"};
        return false;
      }
      ++i;
    } else if (c == '}' || c == ']') {
      if (depth == 0) {
        error = {i, "unexpected " + describe_char(s, i)};
        return false;
      }
      --depth;
      ++i;
    } else if ((c == ',' || c == ':') && depth > 0) {
      ++i;
    } else if (is_scalar_char(c)) {
      while (i < s.size() && is_scalar_char(s[i])) ++i;
    } else {
      error = {i, "unexpected " + describe_char(s, i)};
      return false;
    }
  } while (depth > 0);
  end = i;
  return true;
}

ValueSkipper::Result ValueSkipper::scan(std::string_view s, std::size_t base, std::size_t pos, std::size_t& end,
                                        ScanError& error) {
  std::size_t i = pos;
  while (i < s.size()) {
    if (escaped_) {
      escaped_ = false;
      ++i;
    } else if (in_string_) {
      while (i < s.size() && s[i] != '"' && s[i] != '\\') ++i;
      if (i == s.size()) break;
      if (s[i] == '\\') {
        escaped_ = true;
        ++i;
        continue;
      }
      in_string_ = false;
      if (++i; depth_ == 0) {
        end = base + i;
        return Result::Done;
      }
    } else if (in_scalar_) {
      while (i < s.size() && is_scalar_char(s[i])) ++i;
      if (i == s.size()) break;
      in_scalar_ = false;
      if (depth_ == 0) {
        end = base + i;
        return Result::Done;
      }
    } else if (is_ws(s[i])) {
      ++i;
    } else if (const Result r = structural(s, base, i, error); r != Result::More) {
      end = base + i;
      return r;
    }
  }
  return Result::More;
}

// One character outside strings and scalars at s[i]; i moves past it. Done when it closed the value.
ValueSkipper::Result ValueSkipper::structural(std::string_view s, std::size_t base, std::size_t& i, ScanError& error) {
  const char c = s[i];
  if (c == '"') {
    in_string_ = true;
    string_start_ = base + i;
  } else if (c == '{' || c == '[') {
    if (++depth_ > kMaxJsonDepth) {
      error = {base + i, "nesting deeper than " + std::to_string(kMaxJsonDepth) + " levels"};
      return Result::Error;
    }
  } else if ((c == '}' || c == ']') && depth_ > 0) {
    if (--depth_ == 0) {
      ++i;
      return Result::Done;
    }
  } else if ((c == ',' || c == ':') && depth_ > 0) {
  } else if (is_scalar_char(c)) {
    in_scalar_ = true;
    return Result::More;  // the scalar loop consumes it
  } else {
    error = {base + i, "unexpected " + describe_char(s, i)};
    return Result::Error;
  }
  ++i;
  return Result::More;
}

ValueSkipper::Result ValueSkipper::finish(std::size_t end_offset, std::size_t& end, ScanError& error) const {
  if (in_scalar_ && depth_ == 0) {
    end = end_offset;
    return Result::Done;
  }
  if (in_string_ || escaped_) {
    error = {string_start_, "unterminated string"};
  } else {
    error = {end_offset, "unexpected end of file"};
  }
  return Result::Error;
}

std::size_t previous_cut(std::string_view s, std::size_t floor, std::size_t limit, bool allow_eof) {
  std::size_t i = std::min(limit, s.size());
  while (i > floor) {
    const void* p = memrchr(s.data() + floor, '}', i - floor);
    if (p == nullptr) return std::string_view::npos;
    const std::size_t brace = static_cast<std::size_t>(static_cast<const char*>(p) - s.data());
    const std::size_t next = skip_ws(s, brace + 1);
    if (next < s.size() ? (s[next] == ',' || s[next] == ']') : allow_eof) return brace + 1;
    i = brace;
  }
  return std::string_view::npos;
}

}  // namespace gtv::io
