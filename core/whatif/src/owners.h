#pragma once
// Work owners: which model (or other unit of the user's program) each host call works for, read from the ranges
// the recording names them by. Changes that move one owner's work apart from another's (streams, placement) need
// them; a trace without them gets a sentence that says which ranges were looked for and how to record them.
#include <optional>
#include <string>
#include <vector>

#include "gtv/causal/happens_before.h"

namespace gtv::whatif {

struct Owners {
  std::vector<int> of_node;        // per graph node (host calls only): index into names, or -1
  std::vector<int> range_of_node;  // per graph node: which owner range (one forward, say) holds it, or -1
  std::vector<std::string> names;  // in order of first start
  std::string source;              // where they came from: "gtv's model forward ranges", ...
  [[nodiscard]] bool empty() const { return names.empty(); }
};

// The owners of the host calls, from the first of these that names any:
//  - with `pattern` (the CLI's --owners): every range whose name matches it: gtv's ranges, record_function and NVTX
//    ranges (user annotations), nn.Module ranges of profile(with_modules=True) ("nn.Module: Linear_0"); a pattern
//    with '*' matches whole names ('*' any run of characters), else any name that contains it;
//  - gtv's "model N forward" ranges;
//  - record_function or NVTX ranges named "model N ..." (`with torch.profiler.record_function("model 0"):`).
// A call belongs to the outermost matching range that holds its start on its thread.
[[nodiscard]] Owners find_owners(const causal::HappensBefore& g, const std::string& pattern);

// Whether `name` matches an --owners pattern.
[[nodiscard]] bool owner_pattern_matches(const std::string& pattern, std::string_view name);

// How two of the threads' work depends on each other, or nothing: one ran the backward of ops another ran forward
// (Kineto's fwdbwd links: PyTorch's autograd engine thread runs the backward the main thread hands it, and the main
// thread waits for it), or the graph has an edge from one thread's call to another's. "thread 2 runs the backward
// of 36 ops thread 1 ran forward (...)".
[[nodiscard]] std::optional<std::string> dependent_threads(const causal::HappensBefore& g,
                                                           const std::vector<LaneIndex>& lanes);

// Why a change that needs owners found none, and how to record them: "the trace does not say which work is whose:
// ...". `pattern` is the --owners pattern given, or empty.
[[nodiscard]] std::string no_owners_reason(const std::string& pattern);

}  // namespace gtv::whatif
