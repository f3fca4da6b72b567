#pragma once
// Trace: the immutable result of loading or recording. Built once by TraceBuilder and never mutated, so it can
// be shared across threads (std::shared_ptr<const Trace>).
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gtv/base/string_pool.h"
#include "gtv/model/event.h"
#include "gtv/model/lane.h"
#include "gtv/model/records.h"

namespace gtv {

// One "args" entry of the file that the model does not hold (PyTorch's "Input Dims", a kernel's "warps per SM"):
// its key and its JSON value as written, without whitespace outside strings.
struct EventArg {
  std::string_view key;
  std::string_view value_json;
};

class Trace {
 public:
  Trace() = default;
  Trace(Trace&&) noexcept = default;
  Trace& operator=(Trace&&) noexcept = default;
  Trace(const Trace&) = delete;
  Trace& operator=(const Trace&) = delete;

  [[nodiscard]] const TraceMetadata& metadata() const { return metadata_; }
  [[nodiscard]] const StringPool& strings() const { return strings_; }
  [[nodiscard]] std::string_view name(const Event& e) const { return strings_.view(e.name); }

  // Lanes in display order: host lanes (by pid, sort index, tid), then GPU lanes (by device, stream).
  [[nodiscard]] std::span<const Lane> lanes() const { return lanes_; }
  [[nodiscard]] const Lane& lane(LaneIndex index) const { return lanes_[index]; }
  [[nodiscard]] std::optional<LaneIndex> find_lane(const LaneKey& key) const;
  [[nodiscard]] const Event& event(EventRef ref) const { return lanes_[ref.lane].events[ref.index]; }

  // Launch links only (FlowKind::LaunchToGpu): analyses read them as "this call launched that GPU work".
  [[nodiscard]] const std::vector<Flow>& flows() const { return flows_; }
  // Asks the processor to fetch the two events of the flow `ahead` places after flow `i`, if there is one: a pass
  // over the flows reads events scattered over the lanes, each a wait on memory unless fetched ahead.
  void prefetch_flow_events(std::size_t i, std::size_t ahead = 8) const {
    if (i + ahead >= flows_.size()) return;
    const Flow& f = flows_[i + ahead];
    __builtin_prefetch(&event(f.from));
    __builtin_prefetch(&event(f.to));
  }
  // Forward op -> backward op links (FlowKind::ForwardToBackward), apart from flows() so no launch analysis sees
  // them; and the first one that starts or ends at ref.
  [[nodiscard]] const std::vector<Flow>& backward_links() const { return backward_links_; }
  [[nodiscard]] std::optional<Flow> backward_link_of(EventRef ref) const;
  // Dependency links (FlowKind::Dependency): the GPU work a synchronization waited for -> the GPU work a stream
  // wait held or the host Sync event that blocked. Apart from flows() too; and every link that starts or ends at
  // ref (an op may be waited for by several streams), those starting at ref first.
  [[nodiscard]] const std::vector<Flow>& dependencies() const { return dependencies_; }
  [[nodiscard]] std::vector<Flow> dependencies_of(EventRef ref) const;
  // The flow that starts or ends at ref, if any.
  [[nodiscard]] std::optional<Flow> flow_of(EventRef ref) const;
  // Every flow that starts at ref, in flow order: the GPU work one launch started (a CUDA graph launch starts
  // every kernel of its graph); empty for events that launched nothing.
  [[nodiscard]] std::vector<Flow> flows_from(EventRef ref) const;
  [[nodiscard]] const std::vector<Range>& ranges() const { return ranges_; }
  [[nodiscard]] const std::vector<Measurement>& measurements() const { return measurements_; }
  [[nodiscard]] const std::vector<DeviceInfo>& devices() const { return devices_; }
  [[nodiscard]] const DeviceInfo* device(std::int32_t index) const;
  [[nodiscard]] const std::vector<ProcessInfo>& processes() const { return processes_; }
  [[nodiscard]] const std::vector<CounterSeries>& counters() const { return counters_; }
  // In a run merged from rank files: the rank a GPU or host process belongs to (TraceMetadata::ranks), nullptr when
  // none; and the id the rank's own file gave a GPU (the id itself outside merged runs). O(log n): per-lane loops
  // call them.
  [[nodiscard]] const RankInfo* rank_of_device(std::int64_t device) const;
  [[nodiscard]] const RankInfo* rank_of_pid(std::int64_t pid) const;
  [[nodiscard]] std::int64_t local_device(std::int64_t device) const;

  [[nodiscard]] const std::vector<KernelDetail>& kernel_details() const { return kernels_; }
  [[nodiscard]] const std::vector<MemcpyDetail>& memcpy_details() const { return memcpys_; }
  [[nodiscard]] const std::vector<MemsetDetail>& memset_details() const { return memsets_; }
  [[nodiscard]] const KernelDetail* kernel_detail(const Event& e) const;
  [[nodiscard]] const MemcpyDetail* memcpy_detail(const Event& e) const;
  [[nodiscard]] const MemsetDetail* memset_detail(const Event& e) const;
  // The args of e that the model does not hold, in file order; empty for most events.
  [[nodiscard]] std::vector<EventArg> extra_args(const Event& e) const;
  // Kineto's "External id" of an event (its op's id, shared by the op, its launches and their GPU work), if the
  // file had one. Kept beside the extra args: one per event, it would make every arg set distinct.
  [[nodiscard]] std::optional<std::int64_t> external_id(const Event& e) const;
  // Category text of an event: the Kineto category for known kinds, the original text for EventKind::Other.
  [[nodiscard]] std::string_view category(const Event& e) const;

  // [first start, last end] over all events, ranges and measurements; {0,0} when empty.
  [[nodiscard]] TimeNs start_ns() const { return start_ns_; }
  [[nodiscard]] TimeNs end_ns() const { return end_ns_; }
  // The program's time: [first start, last end] over the same, without the profiler's own markers (instants such
  // as Kineto's "Record Window End", which lands milliseconds after the last recorded call, and Kineto's span of
  // the whole profile): what the whole-trace analyses are about. start_ns()/end_ns() when nothing else is there.
  [[nodiscard]] TimeNs activity_start_ns() const { return activity_start_ns_; }
  [[nodiscard]] TimeNs activity_end_ns() const { return activity_end_ns_; }
  [[nodiscard]] std::size_t event_count() const { return event_count_; }

 private:
  friend class TraceBuilder;
  void index_lanes();  // fills lane_by_key_
  void index_ranks();  // fills rank_by_device_, rank_by_pid_
  struct RankEntry {
    std::int64_t id = 0;     // device or pid
    std::uint32_t rank = 0;  // index into metadata_.ranks
    std::int64_t local_device = 0;
  };
  [[nodiscard]] static const RankEntry* find_rank_entry(const std::vector<RankEntry>& entries, std::int64_t id);

  TraceMetadata metadata_;
  StringPool strings_;
  std::vector<Lane> lanes_;
  std::vector<LaneIndex> lane_by_key_;                   // lane indices sorted by key, for find_lane
  std::vector<RankEntry> rank_by_device_, rank_by_pid_;  // sorted by id; the first rank naming an id wins
  std::vector<Flow> flows_;
  std::vector<std::uint32_t> flow_by_from_;  // flow indices sorted by `from`, for flow_of
  std::vector<std::uint32_t> flow_by_to_;
  std::vector<Flow> backward_links_;
  std::vector<Flow> dependencies_;
  std::vector<std::uint32_t> dependency_by_from_;  // dependency indices sorted by `from`, for dependencies_of
  std::vector<std::uint32_t> dependency_by_to_;
  std::vector<Range> ranges_;
  std::vector<Measurement> measurements_;
  std::vector<DeviceInfo> devices_;
  std::vector<ProcessInfo> processes_;
  std::vector<CounterSeries> counters_;
  std::vector<KernelDetail> kernels_;
  std::vector<MemcpyDetail> memcpys_;
  std::vector<MemsetDetail> memsets_;
  // Extra args: Event::args indexes arg_sets_: an External id and a shape (kNoShape: no other args). A shape's
  // entries are arg_entries_[first, first + count), their values consecutive in arg_text_ from text_offset (one
  // blob, no string per value: files carry millions of them). Events whose args differ only in their External id
  // (one per op: most events of a PyTorch trace) have a set each, 16 bytes, and share the shape.
  static constexpr std::uint32_t kNoShape = 0xffffffffu;
  struct ArgShape {
    std::uint64_t text_offset = 0;
    std::uint32_t first = 0;
    std::uint32_t count = 0;
  };
  struct ArgSet {
    std::uint32_t shape = kNoShape;
    std::int64_t external_id = kNoExternalId;
  };
  struct ArgEntry {
    StringId key = kEmptyString;
    std::uint32_t value_bytes = 0;
  };
  std::vector<ArgSet> arg_sets_;
  std::vector<ArgShape> arg_shapes_;
  std::vector<ArgEntry> arg_entries_;
  std::string arg_text_;
  TimeNs start_ns_ = 0;
  TimeNs end_ns_ = 0;
  TimeNs activity_start_ns_ = 0;
  TimeNs activity_end_ns_ = 0;
  std::size_t event_count_ = 0;
};

}  // namespace gtv
