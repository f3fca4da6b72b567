#pragma once
// What every part of the report writes with, below the parts and their assembly: times as the timeline shows them,
// lists cut to their first rows with a note for the rest, GPU labels and names, lists of lines in JSON.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gtv/analysis/report.h"
#include "report/document.h"
#include "report/json_writer.h"

namespace gtv::analysis::detail {

using U = std::uint64_t;

// A time as an offset from the start of the trace, as the timeline shows it.
[[nodiscard]] std::string at(const Report& r, TimeNs time_ns);
[[nodiscard]] std::string more_rows_note(std::size_t total, std::size_t shown, const std::string& what);
// Where a cut list of the report points for the rest: every list cut in text is whole in the JSON report.
inline constexpr std::string_view kReportListsAll = "gtv-cli analyze --all lists them; --format json has every one";
// The first kMaxListedEntries rows of a table of GPUs or streams (all under Listing::All), in the table's order.
[[nodiscard]] std::size_t listed_rows(std::size_t total, Listing listing);
// The note under a table cut by listed_rows: "... and 99,950 more GPUs (...)".
[[nodiscard]] std::string left_out_note(std::size_t total, std::size_t shown, std::string_view one,
                                        std::string_view many);
// lines[0, always) whole, then at most kMaxListedEntries of the rest (all under Listing::All), then a line saying how
// many of the rest were left out.
[[nodiscard]] std::vector<std::string> listed_lines(const std::vector<std::string>& lines, std::size_t always,
                                                    Listing listing, std::string_view one, std::string_view many);
// "0", "1" for a device; "all" for -1.
[[nodiscard]] std::string gpu_label(std::int64_t device);
// The GPU's name from the trace's device table, "unknown" when missing.
[[nodiscard]] std::string device_name(const Report& r, std::int64_t device);
void json_strings(JsonWriter& w, std::string_view key, const std::vector<std::string>& lines);

}  // namespace gtv::analysis::detail
