#pragma once
// What a host thread that recorded nothing was inside: the range around its silence that says what it waited for.
// A thread serving a collective (Gloo's worker in "gloo:all_reduce") records nothing during the collective's transfer
// and its wait for the other ranks; a thread in a multiprocessing DataLoader's __next__ records nothing while the
// worker processes deliver the next batch. Internal to gtv_analysis.
#include <string_view>

#include "gtv/analysis/critical_path.h"
#include "gtv/model/trace.h"

namespace gtv::analysis::detail {

struct SilentContext {
  ShareContext range = ShareContext::None;  // None, InsideCollective or InsideDataLoaderWait
  const Event* event = nullptr;             // the range holding the silence; nullptr for None
};

// The range of a host lane that holds time_ns and explains a silence there: a collective range at the top level
// ("gloo:all_reduce", "nccl:all_reduce", "record_param_comms"), else a multiprocessing DataLoader's __next__ at any
// depth.
[[nodiscard]] SilentContext silent_context(const Trace& trace, const Lane& lane, TimeNs time_ns);

// What the thread did inside it, in words: "the collective's transfer and its wait for the other ranks"; empty for
// the other contexts.
[[nodiscard]] std::string_view silent_meaning(ShareContext range);

}  // namespace gtv::analysis::detail
