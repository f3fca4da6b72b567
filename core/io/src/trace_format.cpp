#include "trace_format.h"

#include "json/json_scan.h"

namespace gtv::io {
namespace {

constexpr std::string_view kSqliteHeader{"SQLite format 3\0", 16};
constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";

}  // namespace

std::size_t first_significant_byte(std::string_view first_bytes) {
  const std::size_t start = first_bytes.substr(0, kByteOrderMark.size()) == kByteOrderMark ? kByteOrderMark.size() : 0;
  return skip_ws(first_bytes, start);
}

TraceFormat detect_trace_format(std::string_view first_bytes) {
  if (first_bytes.substr(0, kSqliteHeader.size()) == kSqliteHeader) return TraceFormat::NsysSqlite;
  const std::size_t pos = first_significant_byte(first_bytes);
  if (pos >= first_bytes.size()) return TraceFormat::ChromeJson;
  const char c = first_bytes[pos];
  return c == '{' || c == '[' ? TraceFormat::ChromeJson : TraceFormat::Unknown;
}

std::string unknown_format_message(const std::string& found) {
  return "not a JSON trace nor an Nsight Systems SQLite export: gtv reads Chrome/Kineto JSON (starting with '{' or "
         "'[', plain or gzip) and 'nsys export --type sqlite' files (starting with \"SQLite format 3\", plain or "
         "gzip); found " +
         found;
}

}  // namespace gtv::io
