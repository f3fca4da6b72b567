#include <algorithm>

#include "report/report_document.h"

namespace gtv::analysis::detail {

Section kernel_section(const Report& r, Listing listing) {
  const KernelStats& k = r.kernels;
  Section sec{"Kernels", {}, {}};
  if (k.kernels.empty()) {
    sec.lines.emplace_back("No kernels in this trace.");
    return sec;
  }
  sec.lines.push_back(std::to_string(k.kernel_count) + " kernel run(s) of " + std::to_string(k.kernels.size()) +
                      " distinct kernel(s), " + format_duration(k.total_kernel_ns) + " of kernel time in all.");
  Table t{
      {"kernel", "count", "total", "mean", "min", "max", "share"}, {false, true, true, true, true, true, true}, {}, {}};
  const std::size_t shown = listed_count(k.kernels.size(), listing, kMaxTableRows);
  for (std::size_t i = 0; i < shown; ++i) {
    const KernelStat& s = k.kernels[i];
    t.rows.push_back({s.name, std::to_string(s.count), format_duration(s.total_ns), format_duration(s.mean_ns),
                      format_duration(s.min_ns), format_duration(s.max_ns), percent(s.share, 1)});
  }
  t.note = more_rows_note(k.kernels.size(), shown, "kernels");
  sec.tables.push_back(std::move(t));
  return sec;
}

void kernel_json(JsonWriter& w, const Report& r) {
  const KernelStats& k = r.kernels;
  w.key("kernels").begin_object().field("total_kernel_ns", k.total_kernel_ns).field("kernel_count", U(k.kernel_count));
  w.key("all").begin_array();
  for (std::size_t i = 0; i < k.kernels.size() && i < kMaxJsonRows; ++i) {
    const KernelStat& s = k.kernels[i];
    w.begin_object()
        .field("name", s.name)
        .field("full_name", s.full_name)
        .field("count", U(s.count))
        .field("total_ns", s.total_ns)
        .field("mean_ns", s.mean_ns)
        .field("min_ns", s.min_ns)
        .field("max_ns", s.max_ns)
        .field("share", s.share, 4)
        .end_object();
  }
  w.end_array().key("per_device").begin_array();
  for (std::size_t i = 0; i < k.per_device.size() && i < kMaxJsonRows; ++i) {
    const KernelStat& s = k.per_device[i];
    w.begin_object()
        .field("device", s.device)
        .field("name", s.name)
        .field("count", U(s.count))
        .field("total_ns", s.total_ns)
        .field("share", s.share, 4)
        .end_object();
  }
  w.end_array().end_object();
}

}  // namespace gtv::analysis::detail
