#pragma once
// The report as an ordered list of parts, one per analysis. Each analysis keeps its presentation beside it, in
// <analysis>_report.cpp: a section of the text / Markdown document and its object in the JSON report.
#include "gtv/analysis/report.h"
#include "report/document.h"
#include "report/json_writer.h"

namespace gtv::analysis::detail {
using U = std::uint64_t;
}

namespace gtv::analysis::detail {

[[nodiscard]] Document report_document(const Report& report, Listing listing);

// One part of the report; json may be null (the overview is the summary object, written by the report itself).
struct ReportPart {
  Section (*section)(const Report&, Listing);
  void (*json)(JsonWriter&, const Report&);
};

[[nodiscard]] Section overview_section(const Report& r, Listing listing);
[[nodiscard]] Section busy_section(const Report& r, Listing listing);
void busy_json(JsonWriter& w, const Report& r);
[[nodiscard]] Section concurrency_section(const Report& r, Listing listing);
void concurrency_json(JsonWriter& w, const Report& r);
[[nodiscard]] Section critical_path_section(const Report& r, Listing listing);
void critical_path_json(JsonWriter& w, const Report& r);
[[nodiscard]] Section idle_causes_section(const Report& r, Listing listing);
void idle_causes_json(JsonWriter& w, const Report& r);
[[nodiscard]] Section blocking_section(const Report& r, Listing listing);
void blocking_json(JsonWriter& w, const Report& r);
[[nodiscard]] Section warmup_section(const Report& r, Listing listing);
void warmup_json(JsonWriter& w, const Report& r);
[[nodiscard]] Section launch_section(const Report& r, Listing listing);
void launch_json(JsonWriter& w, const Report& r);
[[nodiscard]] Section timing_section(const Report& r, Listing listing);
void timing_json(JsonWriter& w, const Report& r);
[[nodiscard]] Section steps_section(const Report& r, Listing listing);
void steps_json(JsonWriter& w, const Report& r);
[[nodiscard]] Section kernel_section(const Report& r, Listing listing);
void kernel_json(JsonWriter& w, const Report& r);
[[nodiscard]] Section ranks_section(const Report& r, Listing listing);
void ranks_json(JsonWriter& w, const Report& r);
[[nodiscard]] Section communication_section(const Report& r, Listing listing);
void communication_json(JsonWriter& w, const Report& r);
[[nodiscard]] Section tracing_cost_section(const Report& r, Listing listing);
void tracing_cost_json(JsonWriter& w, const Report& r);

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
