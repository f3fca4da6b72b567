#pragma once
// The report as an ordered list of parts, one per analysis. Each analysis keeps its presentation beside it, in
// <analysis>_report.cpp: a section of the text / Markdown document and its object in the JSON report.
#include "document.h"
#include "gtv/analysis/report.h"
#include "json_writer.h"

namespace gtv::analysis::detail {
using U = std::uint64_t;
}

namespace gtv::analysis::detail {

[[nodiscard]] Document report_document(const Report& report);

// One part of the report; json may be null (the overview is the summary object, written by the report itself).
struct ReportPart {
  Section (*section)(const Report&);
  void (*json)(JsonWriter&, const Report&);
};

[[nodiscard]] Section overview_section(const Report& r);
[[nodiscard]] Section busy_section(const Report& r);
void busy_json(JsonWriter& w, const Report& r);
[[nodiscard]] Section concurrency_section(const Report& r);
void concurrency_json(JsonWriter& w, const Report& r);
[[nodiscard]] Section idle_causes_section(const Report& r);
void idle_causes_json(JsonWriter& w, const Report& r);
[[nodiscard]] Section blocking_section(const Report& r);
void blocking_json(JsonWriter& w, const Report& r);
[[nodiscard]] Section warmup_section(const Report& r);
void warmup_json(JsonWriter& w, const Report& r);
[[nodiscard]] Section launch_section(const Report& r);
void launch_json(JsonWriter& w, const Report& r);
[[nodiscard]] Section timing_section(const Report& r);
void timing_json(JsonWriter& w, const Report& r);
[[nodiscard]] Section kernel_section(const Report& r);
void kernel_json(JsonWriter& w, const Report& r);
[[nodiscard]] Section tracing_cost_section(const Report& r);
void tracing_cost_json(JsonWriter& w, const Report& r);

// A time as an offset from the start of the trace, as the timeline shows it.
[[nodiscard]] std::string at(const Report& r, TimeNs time_ns);
[[nodiscard]] std::string more_rows_note(std::size_t total, std::size_t shown, const std::string& what);
// "0", "1" for a device; "all" for -1.
[[nodiscard]] std::string gpu_label(std::int64_t device);
// The GPU's name from the trace's device table, "unknown" when missing.
[[nodiscard]] std::string device_name(const Report& r, std::int64_t device);
void json_strings(JsonWriter& w, std::string_view key, const std::vector<std::string>& lines);

}  // namespace gtv::analysis::detail
