#pragma once
// The pieces the idle-cause analysis is built from: attributed spans with interned details, what each host thread
// was doing over time, and the words. Internal to gtv_analysis.
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "gtv/analysis/idle_causes.h"

namespace gtv::analysis::idle {

// Details repeat across thousands of pieces ("cudaDeviceSynchronize"), so pieces carry an id into one table.
class Details {
 public:
  [[nodiscard]] std::uint32_t id(const std::string& text);
  [[nodiscard]] const std::string& text(std::uint32_t id) const { return texts_[id]; }

 private:
  std::vector<std::string> texts_;
  std::unordered_map<std::string, std::uint32_t> ids_;
};

// A span of time with a cause and a detail: a piece of GPU idle time, or a labelled span of a host thread.
struct Piece {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  IdleCause cause = IdleCause::Unknown;
  std::uint32_t detail = 0;
};

// What each host thread was doing, as sorted, disjoint labelled spans in three layers that take precedence in
// this order: blocked in a call (HostBlocked or PeerRank), first-use work (WarmUp), runs of launches for one GPU
// (detail = the device, cause unset).
class HostThreads {
 public:
  HostThreads(const Trace& trace, const HostBlocking& blocking, const WarmUp& warmup, Details& details,
              const Stragglers* stragglers = nullptr);

  // Cuts [start_ns, end_ns) of host lane `lane` into pieces for an idle GPU `device` and appends them to out:
  // blocked, warm-up, launching for another GPU, and the rest HostBusy.
  void explain(LaneIndex lane, std::int64_t device, TimeNs start_ns, TimeNs end_ns, std::vector<Piece>& out) const;

 private:
  struct Layers {
    std::vector<Piece> blocked;
    std::vector<Piece> warmup;
    std::vector<Piece> launch_runs;  // detail: the device launched for (not a Details id)
  };
  void add_blocking(const Trace& trace, const HostBlocking& blocking, const Stragglers* stragglers);
  void add_warmup(const Trace& trace, const WarmUp& warmup);
  void add_launch_runs(const Trace& trace);
  [[nodiscard]] std::uint32_t launching_detail(std::int64_t device) const;

  std::vector<Layers> lanes_;  // by lane index
  Details& details_;
  std::uint32_t busy_detail_ = 0;
  mutable std::unordered_map<std::int64_t, std::uint32_t> launching_ids_;  // per device launched for
};

// Sorts by start and clips each span to begin after the previous one ends, so the earlier span wins an overlap.
void make_disjoint(std::vector<Piece>& spans);

// How the work was spread over the GPUs, worked out once, so that each of many GPUs costs a lookup.
class Imbalance {
 public:
  Imbalance(const Trace& trace, const Region& region, std::span<const GpuIdle> gpus);
  // The detail of "nothing placed on it" for one GPU ("GPU 0 holds 2 of the 3 models").
  [[nodiscard]] std::string detail(std::int64_t device) const;

 private:
  [[nodiscard]] std::string models_detail(std::int64_t device) const;
  [[nodiscard]] std::string busy_share_detail(std::int64_t device) const;

  const Region& region_;
  const Trace* trace_;
  std::unordered_map<std::int64_t, std::size_t> models_per_device_;  // distinct model forward ranges
  std::size_t all_models_ = 0, most_models_ = 0, devices_with_most_ = 0;
  std::int64_t most_models_device_ = 0;
  std::unordered_map<std::int64_t, TimeNs> busy_per_device_;
  TimeNs total_busy_ns_ = 0;
  const GpuIdle* most_busy_ = nullptr;
};

// The sentence parts.
[[nodiscard]] std::vector<std::string> idle_lines(const IdleCauses& idle);
[[nodiscard]] std::string idle_headline(const IdleCauses& idle);
// "host blocked in cudaMemcpyAsync to pageable memory", "nothing placed on it (GPU 0 holds 2 of the 3 models)".
[[nodiscard]] std::string cause_phrase(IdleCause cause, const std::string& detail, const std::string& duration);

}  // namespace gtv::analysis::idle
