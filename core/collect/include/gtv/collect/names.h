#pragma once
// Display names of collected activity, in Kineto's wording so gtv traces read like PyTorch profiler traces.
#include <string>
#include <string_view>

#include "gtv/collect/records.h"

namespace gtv::collect {

[[nodiscard]] std::string memcpy_event_name(const MemcpyDetail& detail);  // "Memcpy HtoD (Pageable -> Device)"
[[nodiscard]] std::string memset_event_name(const MemsetDetail& detail);  // "Memset (Device)"

// The NVTX domain of gtv's own ranges: MARKER records of this domain duplicate recorded Ranges and are skipped.
inline constexpr std::string_view kGtvNvtxDomain = "gtv";

}  // namespace gtv::collect
