#pragma once
// NCCL's collective kernels (ncclDevKernel_AllReduce_Sum_f32_RING_LL, ncclKernel_AllGather_RING_LL_Sum_int8_t,
// ncclDevKernel_SendRecv) and how the ones of several ranks are matched: by the collective's sequence number in its
// process group when every rank's trace records one (PyTorch writes "Seq" and "Process Group Name" into the args of
// its collectives) and the numbers hold up (each names one collective of its group on a rank, the collectives a
// number matches agree in kind, size and order, and some number is on every rank); otherwise every rank of a
// process group runs the same collectives in the same order, so the k-th all-reduce of one size in one group on
// one rank is the k-th of the others.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gtv/model/trace.h"

namespace gtv {

// A kernel of NCCL ("nccl" in its name, any case): collectives and peer sends, whose time waits on other ranks.
[[nodiscard]] bool is_communication_kernel(std::string_view name);
// is_communication_kernel by name id, each name of the pool looked at once (kernel names repeat): a table, no hashing.
class CommunicationNames {
 public:
  explicit CommunicationNames(const StringPool& strings) : strings_(&strings), known_(strings.size(), -1) {}
  [[nodiscard]] bool operator()(StringId name);

 private:
  const StringPool* strings_;
  std::vector<std::int8_t> known_;  // -1 not looked at yet, else 0 or 1
};
// The collective a NCCL kernel runs: "AllReduce", "AllGather", "ReduceScatter", "Broadcast", "SendRecv", ...;
// "NCCL" for a NCCL kernel whose name does not say; empty for other kernels.
[[nodiscard]] std::string collective_kind(std::string_view kernel_name);

struct Collective {
  std::string kind;
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  EventRef ref;
  bool on_gpu = true;          // a NCCL kernel; false: a Gloo range on a host thread
  std::int64_t seq = -1;       // the sequence number in its process group ("Seq"), -1 when the trace has none
  std::string group;           // the process group ("Process Group Name"), empty when the trace does not say
  std::int64_t elements = -1;  // the message size ("In msg nelems"), -1 when the trace does not say
  std::int64_t root = -1;      // the root rank of a broadcast or reduce ("Root"), -1 when the trace does not say
};

// Collectives that end together on every rank: no rank's part completes before every rank has arrived (all-reduce,
// all-gather, reduce-scatter, barrier, all-to-all). Their ends measure clock offsets (except all-to-all, whose
// pairs finish one by one) and every rank waits for the last arrival.
[[nodiscard]] bool ends_together(std::string_view kind);
// Collectives whose ends measure clock offsets: all-reduce, all-gather, reduce-scatter and barrier.
[[nodiscard]] bool measures_clocks(std::string_view kind);
// Collectives with a root: a broadcast or scatter's root only sends (it waits for nobody; the others wait for it),
// a reduce or gather's root only receives (it waits for the others; nobody waits for it).
[[nodiscard]] bool root_sends(std::string_view kind);
[[nodiscard]] bool root_receives(std::string_view kind);

// A collective's host-side range on the thread that serves it: Gloo's ranges ("gloo:all_reduce"), NCCL's
// ("nccl:all_reduce") and PyTorch's "record_param_comms" op around a collective.
[[nodiscard]] bool is_collective_range_name(std::string_view name);
// "AllReduce" for Gloo's "gloo:all_reduce" (PyTorch's profiler records one range per collective on Gloo's worker
// thread); empty for other names.
[[nodiscard]] std::string gloo_collective_kind(std::string_view name);

// The collectives of a trace in start order: its NCCL kernels; where it has none, its Gloo ranges (Gloo runs
// collectives on the host, GPU tensors staged through it).
[[nodiscard]] std::vector<Collective> find_collectives(const Trace& trace);
// The same for every rank of a merged run at once (index i: TraceMetadata::ranks[i]), in one pass over the lanes.
[[nodiscard]] std::vector<std::vector<Collective>> collectives_by_rank(const Trace& trace);

// The k-th collective of one kind on every rank: index[r] is its position in rank r's list.
struct MatchedCollective {
  std::string kind;
  std::size_t ordinal = 0;  // k, from 0, among the collectives of its kind (group and size) on the first rank
  std::vector<std::size_t> index;
  std::int64_t seq = -1;  // the sequence number it was matched by, -1 when matched by order
};

struct CollectiveMatch {
  std::vector<MatchedCollective> matched;  // in the order of the first rank's list
  // One line per kind whose count differs between ranks: "AllReduce: rank 0 ran 10, rank 1 ran 9; the first 9 are
  // matched". rank_names[r] names rank r.
  std::vector<std::string> count_differences;
  bool by_sequence = false;  // matched by process group and sequence number, else by group, kind, size and order
  // Why the trace's sequence numbers were not used ("rank 1 gives sequence number 5 to 20 collectives"); empty when
  // they were used or the trace has none.
  std::string sequence_doubt;
};

// "process group and sequence number", "process group, kind, size and order (the trace has no sequence numbers)" or
// the same with why its sequence numbers were not used: what matched the collectives.
[[nodiscard]] std::string match_basis(const CollectiveMatch& match);

[[nodiscard]] CollectiveMatch match_collectives(std::span<const std::vector<Collective>> per_rank,
                                                std::span<const std::string> rank_names);
// The same on lists held elsewhere (rank summaries), without copying them.
[[nodiscard]] CollectiveMatch match_collectives(std::span<const std::span<const Collective>> per_rank,
                                                std::span<const std::string> rank_names);

// Views of per-rank lists, in the same order.
[[nodiscard]] std::vector<std::span<const Collective>> collective_views(
    std::span<const std::vector<Collective>> per_rank);

}  // namespace gtv
