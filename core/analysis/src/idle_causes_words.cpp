// The idle causes in words: how the work was spread over the GPUs (the imbalance behind "nothing placed"), one
// line per GPU and the headline.
#include <algorithm>
#include <map>
#include <set>

#include "gtv/analysis/format.h"
#include "idle_causes_parts.h"

namespace gtv::analysis::idle {
namespace {

std::string gpu(std::int64_t device) { return "GPU " + std::to_string(device); }

// "0.3%" rather than "0%" for a small share that is not nothing.
std::string share_text(double ratio) { return percent(ratio, ratio < 0.1 ? 1 : 0); }

// A model is a forward range name within one process: two worker processes may both run "model 0 forward".
using Models = std::map<std::int64_t, std::set<std::pair<std::int64_t, std::string>>>;

// Distinct model forward ranges ("model 2 forward") per device, over the ranges that touch the region.
Models models_by_device(const Trace& trace, const Region& region) {
  Models out;
  for (const Range& r : trace.ranges())
    if (r.kind == RangeKind::Forward && r.device >= 0 && r.end_ns >= region.start_ns && r.start_ns <= region.end_ns)
      out[r.device].insert({r.pid, r.name});
  return out;
}

// The tail of the GPU that held the most work is not imbalance: it simply finished first.
std::string tail_detail(const Region& region) { return "its last work ended before the end of " + region.name; }

// "GPU 0 holds 2 of the 3 models": the GPU holding the most, when that is unique and not this one.
std::string models_detail(const Models& models, const Region& region, std::int64_t device) {
  std::set<std::pair<std::int64_t, std::string>> all;
  std::size_t most = 0, most_count = 0;
  std::int64_t most_device = device;
  for (const auto& [d, names] : models) {
    all.insert(names.begin(), names.end());
    if (names.size() > most) most = names.size(), most_device = d, most_count = 0;
    if (names.size() == most) ++most_count;
  }
  const auto own = models.find(device);
  const std::size_t own_count = own == models.end() ? 0 : own->second.size();
  if (own_count == most) return tail_detail(region);
  const bool unique_most = most_count == 1;
  const std::int64_t shown = unique_most ? most_device : device;
  const std::size_t shown_count = unique_most ? most : own_count;
  return gpu(shown) + " holds " + std::to_string(shown_count) + " of the " + std::to_string(all.size()) +
         (all.size() == 1 ? " model" : " models");
}

// Without model ranges: each GPU's share of the GPUs' busy time in the region.
std::string busy_share_detail(const Region& region, std::int64_t device, std::span<const GpuIdle> gpus) {
  TimeNs total = 0;
  const GpuIdle* most = nullptr;
  const GpuIdle* own = nullptr;
  for (const GpuIdle& g : gpus) {
    total += g.busy_ns;
    if (!most || g.busy_ns > most->busy_ns) most = &g;
    if (g.device == device) own = &g;
  }
  if (total == 0) return "no GPU work in " + region.name;
  if (own->busy_ns == most->busy_ns) return tail_detail(region);
  // Both shares, so near-equal shares (49.8% against 50.2%) do not read as an imbalance.
  return gpu(most->device) + " did " + percent(safe_ratio(double(most->busy_ns), double(total)), 1) +
         " of the GPUs' busy time, this GPU " + percent(safe_ratio(double(own->busy_ns), double(total)), 1);
}

const IdleCauseTotal* top_total(const IdleCauses& idle, std::int64_t device) {
  for (const IdleCauseTotal& t : idle.totals)
    if (t.device == device) return &t;  // totals are sorted largest first per device
  return nullptr;
}

}  // namespace

std::string imbalance_detail(const Trace& trace, const Region& region, std::int64_t device,
                             std::span<const GpuIdle> gpus) {
  const auto models = models_by_device(trace, region);
  if (!models.empty()) return models_detail(models, region, device);
  return busy_share_detail(region, device, gpus);
}

// How a cause opens its phrase in a sentence about one GPU ("nothing placed on it 33.0 ms (GPU 0 holds ...)").
std::string_view phrase_lead(IdleCause cause) {
  switch (cause) {
    case IdleCause::HostBlocked: return "host blocked";
    case IdleCause::HostLaunchingOther: return "host";  // the detail continues it: "host launching work for GPU 0"
    case IdleCause::HostBusy: return "host busy";
    case IdleCause::NothingPlaced: return "nothing placed on it";
    case IdleCause::WaitingOnDependency: return "launched work waiting";
    case IdleCause::WarmUp: return "warm-up";
    case IdleCause::PeerRank: return "waiting for a peer rank";
    case IdleCause::QueuedGap: return "queued work not started yet";
    case IdleCause::Unknown: return "unknown";
  }
  return to_string(cause);
}

std::string cause_phrase(IdleCause cause, const std::string& detail, const std::string& duration) {
  const std::string d = duration.empty() ? "" : " " + duration;
  if (cause == IdleCause::HostLaunchingOther) return "host " + detail + d;
  return std::string(phrase_lead(cause)) + d + " (" + detail + ")";
}

std::vector<std::string> idle_lines(const IdleCauses& idle) {
  if (idle.gpus.empty()) return {"No GPU activity in this trace: there is no GPU idle time to explain."};
  const Region& r = idle.region;
  if (r.length_ns() == 0) return {"The region of interest (" + r.name + ") has no duration: no idle time to explain."};
  std::vector<std::string> out;
  const std::string of_region = format_duration(r.length_ns()) + " in " + r.name;
  for (const GpuIdle& g : idle.gpus) {
    if (g.idle_ns == 0) {
      out.push_back(gpu(g.device) + " was busy for all " + of_region + ".");
      continue;
    }
    std::string line = gpu(g.device) + " was idle for " + format_duration(g.idle_ns) + " of " + of_region + " (" +
                       share_text(safe_ratio(double(g.idle_ns), double(r.length_ns()))) + "): ";
    int shown = 0;
    TimeNs rest_ns = 0;
    for (const IdleCauseTotal& t : idle.totals) {
      if (t.device != g.device) continue;
      if (shown == 3) {
        rest_ns += t.total_ns;
        continue;
      }
      line += (shown++ ? ", " : "") + cause_phrase(t.cause, t.detail, format_duration(t.total_ns));
    }
    if (rest_ns > 0) line += ", other causes " + format_duration(rest_ns);
    out.push_back(line + ".");
  }
  return out;
}

// The largest cause of the GPU idle the longest; none when every GPU was busy for 95% of the region or more.
std::string idle_headline(const IdleCauses& idle) {
  const Region& r = idle.region;
  const auto most = std::max_element(idle.gpus.begin(), idle.gpus.end(),
                                     [](const GpuIdle& a, const GpuIdle& b) { return a.idle_ns < b.idle_ns; });
  if (most == idle.gpus.end() || r.length_ns() == 0) return {};
  const double share = safe_ratio(double(most->idle_ns), double(r.length_ns()));
  const IdleCauseTotal* top = top_total(idle, most->device);
  if (share < 0.05 || !top) return {};
  const bool majority = 2 * top->total_ns > most->idle_ns;
  return gpu(most->device) + " idle for " + share_text(share) + " of " + r.name + ": " +
         (majority ? "mostly " : "the largest cause is ") + cause_phrase(top->cause, top->detail, "") + ", " +
         format_duration(top->total_ns) + " of " + format_duration(most->idle_ns) + " idle.";
}

}  // namespace gtv::analysis::idle
