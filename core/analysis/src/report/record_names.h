#pragma once
// What the names of CUDA calls, CUPTI records and kernels say, shared by the analyses that read them (warm-up,
// host blocking, idle causes, tracing cost), so each concept has one definition.
#include <string>
#include <string_view>
#include <unordered_map>

#include "gtv/model/trace.h"

namespace gtv::analysis::detail {

[[nodiscard]] bool starts_with(std::string_view s, std::string_view prefix);
[[nodiscard]] bool contains(std::string_view s, std::string_view part);
[[nodiscard]] std::string lower_case(std::string_view s);

// CUPTI's records of module / lazy function loading, in every spelling seen ("lazy function loading",
// "Lazy Function Loading", "module loading", "Module Load"); its own records ("CUPTI buffer flush",
// "Activity Buffer Request", "CUPTI instrumentation") are tracer cost, not loading.
[[nodiscard]] bool is_loading_record(std::string_view name);

// Start of the first run of each kernel name per device, built on first need.
class FirstKernelRuns {
 public:
  explicit FirstKernelRuns(const Trace& trace) : trace_(trace) {}
  [[nodiscard]] bool is_first_run(EventRef kernel);
  [[nodiscard]] bool is_first_run(std::int64_t device, const Event& kernel);

 private:
  void build();
  const Trace& trace_;
  bool built_ = false;
  std::unordered_map<std::uint64_t, TimeNs> first_;
};

}  // namespace gtv::analysis::detail
