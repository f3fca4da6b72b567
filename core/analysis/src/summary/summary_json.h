#pragma once
// The summary as a JSON object, shared by the summary alone and the full report.
#include "gtv/analysis/summary.h"
#include "report/json_writer.h"

namespace gtv::analysis::detail {

void write_summary_json(JsonWriter& w, const TraceSummary& summary);

}  // namespace gtv::analysis::detail
