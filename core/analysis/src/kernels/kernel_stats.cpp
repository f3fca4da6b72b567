#include "gtv/analysis/kernel_stats.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "gtv/analysis/intervals.h"

namespace gtv::analysis {
namespace {

struct Accumulator {
  std::size_t count = 0;
  TimeNs total_ns = 0;
  TimeNs min_ns = 0;
  TimeNs max_ns = 0;
  void add(TimeNs d) {
    min_ns = count == 0 ? d : std::min(min_ns, d);
    max_ns = count == 0 ? d : std::max(max_ns, d);
    total_ns += d;
    ++count;
  }
  void add(const Accumulator& o) {
    if (o.count == 0) return;
    min_ns = count == 0 ? o.min_ns : std::min(min_ns, o.min_ns);
    max_ns = count == 0 ? o.max_ns : std::max(max_ns, o.max_ns);
    total_ns += o.total_ns;
    count += o.count;
  }
};

using ByName = std::unordered_map<StringId, Accumulator>;

// One table: rows sorted by total (largest first) then full name; equal short names numbered.
std::vector<KernelStat> table(const Trace& trace, const ByName& by_name, std::int64_t device,
                              std::unordered_map<StringId, std::pair<std::string, std::string>>& names) {
  TimeNs table_ns = 0;
  for (const auto& [id, acc] : by_name) table_ns += acc.total_ns;
  std::vector<KernelStat> rows;
  rows.reserve(by_name.size());
  for (const auto& [id, acc] : by_name) {
    auto it = names.find(id);
    if (it == names.end()) {
      const std::string_view raw = trace.strings().view(id);
      it = names.emplace(id, std::make_pair(shorten_kernel_name(raw), demangle(raw))).first;
    }
    rows.push_back({it->second.first, it->second.second, device, acc.count, acc.total_ns,
                    acc.total_ns / static_cast<TimeNs>(acc.count), acc.min_ns, acc.max_ns,
                    safe_ratio(double(acc.total_ns), double(table_ns))});
  }
  std::sort(rows.begin(), rows.end(), [](const KernelStat& a, const KernelStat& b) {
    if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
    return a.full_name < b.full_name;
  });
  std::map<std::string, int> seen;
  for (KernelStat& r : rows)
    if (const int n = ++seen[r.name]; n > 1) r.name += " [" + std::to_string(n) + "]";
  return rows;
}

}  // namespace

KernelStats analyze_kernels(const Trace& trace) {
  KernelStats out;
  std::map<std::int64_t, ByName> per_device;
  for (const Lane& lane : trace.lanes()) {
    if (!lane.is_gpu()) continue;
    ByName& by_name = per_device[lane.device()];
    for (const Event& e : lane.events) {
      if (e.kind != EventKind::Kernel) continue;
      by_name[e.name].add(e.duration_ns);
      out.total_kernel_ns += e.duration_ns;
      ++out.kernel_count;
    }
  }
  ByName all;
  for (const auto& [device, by_name] : per_device)
    for (const auto& [id, acc] : by_name) all[id].add(acc);
  std::unordered_map<StringId, std::pair<std::string, std::string>> names;  // short and full, computed once
  out.kernels = table(trace, all, -1, names);
  for (const auto& [device, by_name] : per_device) {
    std::vector<KernelStat> rows = table(trace, by_name, device, names);
    out.per_device.insert(out.per_device.end(), std::make_move_iterator(rows.begin()),
                          std::make_move_iterator(rows.end()));
  }
  return out;
}

}  // namespace gtv::analysis
