#pragma once
#include "document.h"
#include "gtv/analysis/report.h"

namespace gtv::analysis::detail {

[[nodiscard]] Document report_document(const Report& report);
// Sections, one per analysis (report_sections.cpp).
[[nodiscard]] Section overview_section(const Report& r);
[[nodiscard]] Section busy_section(const Report& r);
[[nodiscard]] Section concurrency_section(const Report& r);
[[nodiscard]] Section blocking_section(const Report& r);
[[nodiscard]] Section warmup_section(const Report& r);
[[nodiscard]] Section launch_section(const Report& r);
[[nodiscard]] Section timing_section(const Report& r);
[[nodiscard]] Section kernel_section(const Report& r);

// A time as an offset from the start of the trace, as the timeline shows it.
[[nodiscard]] std::string at(const Report& r, TimeNs time_ns);
[[nodiscard]] std::string more_rows_note(std::size_t total, std::size_t shown, const std::string& what);

}  // namespace gtv::analysis::detail
