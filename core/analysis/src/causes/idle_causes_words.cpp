// The idle causes in words: how the work was spread over the GPUs (the imbalance behind "nothing placed"), one
// line per GPU and the headline.
#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "causes/idle_causes_parts.h"
#include "gtv/analysis/format.h"
#include "gtv/model/ranks.h"

namespace gtv::analysis::idle {
namespace {

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

const IdleCauseTotal* top_total(const IdleCauses& idle, std::int64_t device) {
  for (const IdleCauseTotal& t : idle.totals)
    if (t.device == device) return &t;  // totals are sorted largest first per device
  return nullptr;
}

// " (without it the timed loop would be 5.84 ms shorter)" for a removable cause that saves time.
// Causes under 1% of the region go without one: the line stays readable, and the JSON has every saving.
std::string saving_note(const IdleCauseTotal& t, const Region& r) {
  if (t.saving_ns < 0 || 100 * t.total_ns < r.length_ns()) return {};
  if (t.saving_ns == 0) return " (removing it would not shorten " + r.name + ")";
  return " (without it " + r.name + " would be " + format_duration(t.saving_ns) + " shorter)";
}

}  // namespace

std::uint32_t Details::id(const std::string& text) {
  auto [it, inserted] = ids_.try_emplace(text, static_cast<std::uint32_t>(texts_.size()));
  if (inserted) texts_.push_back(text);
  return it->second;
}

std::uint32_t Details::find(const std::string& text) const {
  const auto it = ids_.find(text);
  return it == ids_.end() ? static_cast<std::uint32_t>(texts_.size()) : it->second;
}

Imbalance::Imbalance(const Trace& trace, const Region& region, std::span<const GpuIdle> gpus) : trace_(&trace) {
  std::set<std::pair<std::int64_t, std::string>> all;
  for (const auto& [d, names] : models_by_device(trace, region)) {
    all.insert(names.begin(), names.end());
    models_per_device_[d] = names.size();
  }
  all_models_ = all.size();
  for (const GpuIdle& g : gpus) {
    total_busy_ns_ += g.busy_ns;
    busy_per_device_[g.device] = g.busy_ns;
  }
}

std::string Imbalance::detail(std::int64_t idle_device, std::int64_t bound_by) const {
  const std::string work = gtv::gpu_label(*trace_, bound_by) + "'s work";
  const std::string note =
      models_per_device_.empty() ? busy_note(idle_device, bound_by) : models_note(idle_device, bound_by);
  return note.empty() ? work : work + " (" + note + ")";
}

// "GPU 0 holds 2 of the 3 models", when the GPU that bounded the region holds more models than the idle one.
std::string Imbalance::models_note(std::int64_t idle_device, std::int64_t bound_by) const {
  auto count = [&](std::int64_t d) {
    const auto it = models_per_device_.find(d);
    return it == models_per_device_.end() ? std::size_t{0} : it->second;
  };
  if (count(bound_by) <= count(idle_device)) return {};
  return gtv::gpu_label(*trace_, bound_by) + " holds " + std::to_string(count(bound_by)) + " of the " +
         std::to_string(all_models_) + (all_models_ == 1 ? " model" : " models");
}

// Without model ranges: both GPUs' shares of the GPUs' busy time in the region, when the one that bounded it did
// more (both shares, so near-equal ones do not read as an imbalance).
std::string Imbalance::busy_note(std::int64_t idle_device, std::int64_t bound_by) const {
  auto busy = [&](std::int64_t d) {
    const auto it = busy_per_device_.find(d);
    return it == busy_per_device_.end() ? TimeNs{0} : it->second;
  };
  if (total_busy_ns_ == 0 || busy(bound_by) <= busy(idle_device)) return {};
  return "it did " + percent(safe_ratio(double(busy(bound_by)), double(total_busy_ns_)), 1) +
         " of the GPUs' busy time, this GPU " +
         percent(safe_ratio(double(busy(idle_device)), double(total_busy_ns_)), 1);
}

// How a cause opens its phrase in a sentence about one GPU ("host blocked 33.0 ms (cudaDeviceSynchronize)").
std::string_view phrase_lead(IdleCause cause) {
  switch (cause) {
    case IdleCause::HostBlocked:
      return "host blocked";
    case IdleCause::HostLaunching:
      return "host";  // the detail continues it: "host launching work for GPU 0"
    case IdleCause::HostBusy:
      return "host busy";
    case IdleCause::OtherGpuBound:
      return "bound by";  // the detail continues it: "bound by GPU 0's work (GPU 0 holds 2 of the 3 models)"
    case IdleCause::WaitingOnDependency:
      return "launched work waiting";
    case IdleCause::WarmUp:
      return "warm-up";
    case IdleCause::PeerRank:
      return "waiting for a peer rank";
    case IdleCause::QueuedGap:
      return "queued work not started yet";
    case IdleCause::Unknown:
      return "unknown";
    case IdleCause::TracingOverhead:
      return "tracing overhead";
  }
  return to_string(cause);
}

std::string cause_phrase(IdleCause cause, const std::string& detail, const std::string& duration) {
  const std::string d = duration.empty() ? "" : " " + duration;
  if (cause == IdleCause::HostLaunching || cause == IdleCause::OtherGpuBound)
    return std::string(phrase_lead(cause)) + " " + detail + d;
  return std::string(phrase_lead(cause)) + d + " (" + detail + ")";
}

std::vector<std::string> idle_lines(const IdleCauses& idle) {
  if (idle.gpus.empty()) return {"No GPU activity in this trace: there is no GPU idle time to explain."};
  const Region& r = idle.region;
  if (r.length_ns() == 0) return {"The region of interest (" + r.name + ") has no duration: no idle time to explain."};
  std::vector<std::string> out;
  const std::string of_region = format_duration(r.length_ns()) + " in " + r.name;
  std::unordered_map<std::int64_t, std::vector<const IdleCauseTotal*>> totals_of;  // in the order of idle.totals
  for (const IdleCauseTotal& t : idle.totals) totals_of[t.device].push_back(&t);
  for (const GpuIdle& g : idle.gpus) {
    if (g.idle_ns == 0) {
      out.push_back(g.label + " was busy for all " + of_region + ".");
      continue;
    }
    std::string line = g.label + " was idle for " + format_duration(g.idle_ns) + " of " + of_region + " (" +
                       share_text(safe_ratio(double(g.idle_ns), double(r.length_ns()))) + "): ";
    int shown = 0;
    TimeNs rest_ns = 0;
    for (const IdleCauseTotal* t : totals_of[g.device]) {
      if (shown == 3) {
        rest_ns += t->total_ns;
        continue;
      }
      line +=
          (shown++ ? ", " : "") + cause_phrase(t->cause, t->detail, format_duration(t->total_ns)) + saving_note(*t, r);
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
  return most->label + " idle for " + share_text(share) + " of " + r.name + ": " +
         (majority ? "mostly " : "the largest cause is ") + cause_phrase(top->cause, top->detail, "") + ", " +
         format_duration(top->total_ns) + " of " + format_duration(most->idle_ns) + " idle" + saving_note(*top, r) +
         ".";
}

}  // namespace gtv::analysis::idle
