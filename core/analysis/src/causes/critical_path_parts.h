#pragma once
// The pieces of the critical-path analysis shared by its computation, its words and the idle causes that read it.
// Internal to gtv_analysis.
#include <string>
#include <string_view>
#include <vector>

#include "gtv/analysis/critical_path.h"
#include "gtv/analysis/stragglers.h"

namespace gtv::analysis::detail {

// The class of a waiting call, as the words name it: "cudaDeviceSynchronize", "cudaMemcpyAsync to pageable
// memory", "launches that found the launch queue full"; a launch that drained the GPU to load a module lazily is
// kLazyDrainClass (that wait belongs to lazy loading).
inline constexpr std::string_view kLazyDrainClass = "lazy loading drain";
[[nodiscard]] std::string wait_class(const causal::HappensBefore& graph, causal::NodeId call);

// Fills lines and headline.
void describe_critical_path(CriticalPathAnalysis& analysis);

// In a merged run, one line per (rank, peer) where the path comes back to the rank through a collective's transfer
// after running on the peer: "Waiting for rank 1: ...", with the wait that rank had there when `stragglers` (of the
// same trace) tells it. Empty otherwise.
[[nodiscard]] std::vector<std::string> peer_wait_lines(const Trace& trace, const CriticalPathAnalysis& analysis,
                                                       const Stragglers* stragglers);

}  // namespace gtv::analysis::detail
