#pragma once
// The report as an ordered list of parts, one per analysis. Each analysis keeps its presentation beside it, in
// <analysis>_report.cpp: a section of the text / Markdown document and its object in the JSON report. What every
// part writes with is in report/part_text.h; the order of the parts and the assembly are in assembly/report.cpp.
#include "report/part_text.h"

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

}  // namespace gtv::analysis::detail
