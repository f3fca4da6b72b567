#pragma once
// The pieces the idle-cause analysis is built from: attributed spans with interned details, how the work was spread
// over the GPUs, and the words. Internal to gtv_analysis.
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
  // The id of a text already in the table (an id past the table when it is not).
  [[nodiscard]] std::uint32_t find(const std::string& text) const;

 private:
  std::vector<std::string> texts_;
  std::unordered_map<std::string, std::uint32_t> ids_;
};

// A span of GPU idle time with a cause and a detail.
struct Piece {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  IdleCause cause = IdleCause::Unknown;
  std::uint32_t detail = 0;
};

// How the work was spread over the GPUs, worked out once, so that each of many GPUs costs a lookup.
class Imbalance {
 public:
  Imbalance(const Trace& trace, const Region& region, std::span<const GpuIdle> gpus);
  // The detail of "another GPU's work bounded the region" for an idle GPU while GPU `bound_by` worked: "GPU 0's
  // work (GPU 0 holds 2 of the 3 models)".
  [[nodiscard]] std::string detail(std::int64_t idle_device, std::int64_t bound_by) const;

 private:
  [[nodiscard]] std::string models_note(std::int64_t idle_device, std::int64_t bound_by) const;
  [[nodiscard]] std::string busy_note(std::int64_t idle_device, std::int64_t bound_by) const;

  const Trace* trace_;
  std::unordered_map<std::int64_t, std::size_t> models_per_device_;  // distinct model forward ranges
  std::size_t all_models_ = 0;
  std::unordered_map<std::int64_t, TimeNs> busy_per_device_;
  TimeNs total_busy_ns_ = 0;
};

// The sentence parts.
[[nodiscard]] std::vector<std::string> idle_lines(const IdleCauses& idle);
[[nodiscard]] std::string idle_headline(const IdleCauses& idle);
// "host blocked in cudaMemcpyAsync to pageable memory", "another GPU's work: GPU 0's work (GPU 0 holds 2 of ...)".
[[nodiscard]] std::string cause_phrase(IdleCause cause, const std::string& detail, const std::string& duration);

}  // namespace gtv::analysis::idle
