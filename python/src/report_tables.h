#pragma once
// The report's tables as columns: one row per kernel, idle cause, idle interval, critical-path segment, cause on
// the path, measurement, collective and rank. Times in nanoseconds on the trace's clock (from its start), as the
// JSON report writes them; -1 sentinels of the report ("no device", "no sequence number") become nulls.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "arrow_table.h"
#include "gtv/analysis/report.h"
#include "gtv/analysis/stragglers.h"
#include "gtv/model/trace.h"

namespace gtv::python {

// A table as gtv._core.TableHandle hands it to Python (shared by the Arrow streams made from it).
struct TableHandle {
  std::shared_ptr<const Table> table;
};

// The names report_table knows, in the order the Python package lists them.
[[nodiscard]] const std::vector<std::string>& report_table_names();
// The table `name` of the report of `trace`; an unknown name throws std::invalid_argument naming the known ones.
[[nodiscard]] Table report_table(const Trace& trace, const analysis::Report& report, std::string_view name);

// The rank_waits table of a cross-rank analysis on its own (a reduction of rank summaries has no trace).
[[nodiscard]] Table rank_waits_table(const analysis::Stragglers& stragglers);

}  // namespace gtv::python
