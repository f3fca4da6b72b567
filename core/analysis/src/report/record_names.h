#pragma once
// What the names of CUDA calls, CUPTI records and kernels say, shared by the analyses that read them (warm-up,
// host blocking, idle causes, tracing cost), so each concept has one definition.
#include <string>
#include <string_view>
#include <unordered_map>

#include "gtv/base/text.h"
#include "gtv/model/cuda_calls.h"
#include "gtv/model/trace.h"

namespace gtv::analysis::detail {

[[nodiscard]] bool starts_with(std::string_view s, std::string_view prefix);
[[nodiscard]] bool contains(std::string_view s, std::string_view part);
using gtv::lower_case;  // gtv/base/text.h
// CUPTI's records of module / lazy function loading (the model's CUDA call vocabulary, gtv/model/cuda_calls.h).
using gtv::is_loading_record;

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
