#include "report/part_text.h"

#include <algorithm>

namespace gtv::analysis::detail {

std::string at(const Report& r, TimeNs time_ns) { return format_duration(time_ns - r.summary.start_ns); }

std::string more_rows_note(std::size_t total, std::size_t shown, const std::string& what) {
  return total > shown ? std::to_string(total - shown) + " more " + what + " not shown." : "";
}

std::size_t listed_rows(std::size_t total, Listing listing) { return listed_count(total, listing, kMaxListedEntries); }

std::string left_out_note(std::size_t total, std::size_t shown, std::string_view one, std::string_view many) {
  return left_out_line(total, shown, one, many, kReportListsAll);
}

std::vector<std::string> listed_lines(const std::vector<std::string>& lines, std::size_t always, Listing listing,
                                      std::string_view one, std::string_view many) {
  always = std::min(always, lines.size());
  const std::size_t items = lines.size() - always;
  const std::size_t shown = listed_rows(items, listing);
  std::vector<std::string> out(lines.begin(), lines.begin() + static_cast<std::ptrdiff_t>(always + shown));
  if (shown < items) out.push_back(left_out_note(items, shown, one, many));
  return out;
}

std::string gpu_label(std::int64_t device) { return device < 0 ? "all" : std::to_string(device); }

std::string device_name(const Report& r, std::int64_t device) {
  // The summary lists GPUs by index, once each: a trace may have 100k of them.
  const auto& gpus = r.summary.gpus;
  auto it = std::lower_bound(gpus.begin(), gpus.end(), device,
                             [](const GpuSummary& g, std::int64_t d) { return g.index < d; });
  return it == gpus.end() || it->index != device || it->name.empty() ? "unknown" : it->name;
}

void json_strings(JsonWriter& w, std::string_view key, const std::vector<std::string>& lines) {
  w.key(key).begin_array();
  for (const auto& l : lines) w.value(l);
  w.end_array();
}

}  // namespace gtv::analysis::detail
