#pragma once
// The .gtvsum file: the summaries of the ranks one trace file holds, as gzip-compressed JSON whose tables are
// columns (docs/summary-format.md), so that any program with gzip and JSON (Python's standard library, jq) reads
// it and a table becomes a data frame as it is.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gtv/base/expected.h"
#include "gtv/ranks/summary.h"

namespace gtv::ranks {

// The JSON text, uncompressed, and the file's bytes (that text, gzip-compressed).
[[nodiscard]] std::string summary_json(std::span<const RankSummary> summaries);
[[nodiscard]] std::string summary_file_bytes(std::span<const RankSummary> summaries);

// Errors are one line naming `name`: not gzip, truncated, not a rank summary, a version this build does not read,
// a field missing or of the wrong type, a rank without any summary.
[[nodiscard]] Expected<std::vector<RankSummary>> read_summary_bytes(std::string_view bytes, const std::string& name);
[[nodiscard]] Expected<std::vector<RankSummary>> read_summary_file(const std::string& path);
[[nodiscard]] Status write_summary_file(std::span<const RankSummary> summaries, const std::string& path);

// Uncompressed summaries larger than this are refused (a crafted file could otherwise inflate without bound).
inline constexpr std::size_t kMaxSummaryJsonBytes = std::size_t{1} << 30;

}  // namespace gtv::ranks
