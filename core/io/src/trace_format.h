#pragma once
// The importer seam: which reader a trace goes to, decided from its first bytes (after gzip is unwrapped), never
// from its name. Chrome/Kineto JSON starts with '{' or '[' (after an optional UTF-8 byte order mark and blanks);
// an Nsight Systems SQLite export starts with SQLite's 16-byte header string.
#include <cstddef>
#include <string>
#include <string_view>

namespace gtv::io {

enum class TraceFormat : unsigned char {
  ChromeJson,  // also text that is empty or blank so far: the JSON reader reports it
  NsysSqlite,
  Unknown,
};

// What the first bytes say; first_bytes holds at least kFormatSniffBytes of the text, or all of it when shorter.
inline constexpr std::size_t kFormatSniffBytes = 4096;
[[nodiscard]] TraceFormat detect_trace_format(std::string_view first_bytes);
// Offset of the first byte that is not a byte order mark or a blank (first_bytes.size() when there is none).
[[nodiscard]] std::size_t first_significant_byte(std::string_view first_bytes);

// The rest of the one-line error for a text in no known format, after "<file>: byte N: "; found describes the byte
// ("'x'", "byte 0x07").
[[nodiscard]] std::string unknown_format_message(const std::string& found);

}  // namespace gtv::io
