#pragma once
// Clock offsets between ranks, with error bars, from the collectives that end together. An all-reduce (all-gather,
// reduce-scatter, barrier) completes on every rank once the last rank's data has gone round, so its kernels end
// within a few microseconds of each other on a common clock; the difference of two ranks' ends, over many of them,
// measures how far apart their clocks read. Broadcasts and reduces are never used: a broadcast's root finishes as
// soon as it has sent, before the others may even have started.
#include <cstddef>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "gtv/model/collectives.h"

namespace gtv {

struct RankClockEstimate {
  // Median over the measuring collectives of (this rank's end - the reference rank's end): how far this rank's
  // clock reads ahead of the reference's, on the times given.
  TimeNs offset_ns = 0;
  // The ends of 95% of those collectives (all of them when there are fewer than 20) lie within offset +/- this
  // of the reference's, and never less than 1 us (timestamps' resolution): what the offset cannot tell apart.
  // -1 when no collective measures this rank.
  TimeNs uncertainty_ns = -1;
};

struct ClockEstimate {
  std::vector<RankClockEstimate> ranks;      // per rank of per_rank; the reference (index 0) has offset 0
  std::map<std::string, std::size_t> kinds;  // the measuring collectives by kind: {"AllReduce": 38}
  std::size_t collectives = 0;               // how many were used
  // After the offsets are taken away, the largest spread of one measuring collective's ends; -1 without any.
  TimeNs residual_ns = -1;
  // "38 all-reduces and 2 all-gathers"; "no all-reduce, all-gather, reduce-scatter or barrier" without any.
  [[nodiscard]] std::string basis_words() const;
  // The rank (index) whose offset stands furthest beyond its uncertainty, when one does: the larger of
  // 4 x its uncertainty and 100 us. -1 when every offset is within that.
  [[nodiscard]] std::int64_t misaligned_rank() const;
};

// shift_ns[r] is added to rank r's times first (empty: none). Only matched collectives that measure_clocks() count.
[[nodiscard]] ClockEstimate estimate_clocks(std::span<const std::vector<Collective>> per_rank,
                                            const CollectiveMatch& match, std::span<const TimeNs> shift_ns = {});
[[nodiscard]] ClockEstimate estimate_clocks(std::span<const std::span<const Collective>> per_rank,
                                            const CollectiveMatch& match, std::span<const TimeNs> shift_ns = {});

// "all-reduce" for "AllReduce", "send/receive" for "SendRecv"; the kind itself for kinds it does not know.
[[nodiscard]] std::string collective_words(std::string_view kind);
// "3 all-reduces", "1 barrier".
[[nodiscard]] std::string collective_count(std::string_view kind, std::size_t count);

}  // namespace gtv
