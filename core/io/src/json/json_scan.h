#pragma once
// Small scalar JSON helpers for the parts of a trace file that are not parsed by simdjson: the top level of the
// object form (to find "traceEvents" and skip values we do not need) and the search for a place to cut the event
// array into chunks. They never recurse, so deeply nested input cannot exhaust the stack.
#include <cstddef>
#include <string>
#include <string_view>

namespace gtv::io {

inline constexpr std::size_t kMaxJsonDepth = 1024;

struct ScanError {
  std::size_t offset = 0;
  std::string what;
  bool at_end = false;  // the text ended inside the value: more text may complete it
};

[[nodiscard]] std::size_t skip_ws(std::string_view s, std::size_t pos);

// pos at an opening quote: returns the offset just past the closing quote, or npos if the string is unterminated.
[[nodiscard]] std::size_t string_end(std::string_view s, std::size_t pos);

// Skips one JSON value starting at pos (after whitespace). Checks brackets and strings, not every detail of the
// grammar (values we keep are parsed again by simdjson). Returns the offset just past the value.
[[nodiscard]] bool skip_value(std::string_view s, std::size_t pos, std::size_t& end, ScanError& error);

// skip_value for text that arrives in pieces: scan() each piece (s ends where the text read so far ends; offsets
// are absolute, s starting at base), then finish() once the text ended. Memory does not depend on the value's size.
class ValueSkipper {
 public:
  enum class Result : unsigned char { Done, More, Error };
  [[nodiscard]] Result scan(std::string_view s, std::size_t base, std::size_t pos, std::size_t& end, ScanError& error);
  // The text ended at end_offset: Done (a number or literal ran to it) or Error.
  [[nodiscard]] Result finish(std::size_t end_offset, std::size_t& end, ScanError& error) const;

 private:
  [[nodiscard]] Result structural(std::string_view s, std::size_t base, std::size_t& i, ScanError& error);
  std::size_t depth_ = 0;
  std::size_t string_start_ = 0;
  bool in_string_ = false;
  bool escaped_ = false;  // the previous piece ended with a backslash inside a string
  bool in_scalar_ = false;
};

// Candidate ends of a chunk of array elements, searching back from `limit`: offsets just past a '}' whose next
// non-blank character is ',' or ']' (or the end of the data when allow_eof). Returns npos when none is found at
// or after `floor`. Call again with limit = previous result - 1 for the next candidate.
[[nodiscard]] std::size_t previous_cut(std::string_view s, std::size_t floor, std::size_t limit, bool allow_eof);

// Human-readable name of the character at pos for error messages ("end of file", "'x'", "byte 0x8b").
[[nodiscard]] std::string describe_char(std::string_view s, std::size_t pos);

}  // namespace gtv::io
