#pragma once
// Turns RawEvents into model events through TraceBuilder: chooses lanes from categories (Kineto conventions),
// matches B/E pairs, collects metadata (M), counters (C), flows ("ac2g", "fwdbwd", "gtv_dependency") and the
// waits of "cuda_sync" events, turns PyTorch's memory events into
// counters, and at the end applies the file header and the gtv section.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "gtv/io/trace_file.h"
#include "gtv/model/trace_builder.h"
#include "json/gtv_section.h"
#include "json/raw_event.h"

namespace gtv::io {

// What a category says about an event.
struct CategoryClass {
  EventKind kind = EventKind::Other;
  bool gpu = false;  // belongs on a GPU stream lane
};
[[nodiscard]] CategoryClass classify_category(std::string_view cat);

// Copy and memory kinds from a Kineto name: "Memcpy DtoH (Device -> Pinned)", "Memset (Device)".
void memcpy_kinds_from_name(std::string_view name, MemcpyDetail& detail);
void memset_kind_from_name(std::string_view name, MemsetDetail& detail);

class TraceAssembler {
 public:
  // input_bytes: size of the JSON text, when known: once a 16th of it was added, the builder's storage is sized
  // for the rest (TraceBuilder::reserve_for_growth).
  explicit TraceAssembler(std::string file_name, std::uint64_t input_bytes = 0)
      : file_(std::move(file_name)), input_bytes_(input_bytes) {}

  // Adds one parsed chunk. Errors name the file, event index and byte offset (base_offset + event offset).
  [[nodiscard]] Status add_chunk(const std::vector<RawEvent>& events, const std::vector<CounterValue>& counters,
                                 std::uint64_t base_offset);
  FileHeader& header() { return header_; }
  [[nodiscard]] Expected<Trace> finish(ReadStats* stats);

 private:
  struct PendingEvent {
    LaneKey lane;  // resolved to a lane when committed, so an unclosed 'B' leaves no empty lane
    Event event;
    std::string_view category;   // for EventKind::Other: into the parser's buffer, or into owned_category
    std::string owned_category;  // only for 'B' events, which outlive their chunk
    KernelDetail kernel;
    MemcpyDetail memcpy;
    MemsetDetail memset;
  };
  struct FlowEnd {
    std::int64_t pid = 0, tid = 0;
    TimeNs ts_ns = 0;
    std::int8_t gpu_lane = -1;  // args.gtv_lane of the flow event: 1 "gpu", 0 "host", -1 not said
  };
  enum class FlowCategory : std::uint8_t { LaunchToGpu, ForwardToBackward, Dependency };  // ac2g, fwdbwd, gtv's
  struct FlowPair {
    std::uint64_t id = 0;
    std::uint64_t correlation = kNoCorrelation;  // args.correlation of either end (the wait call of a dependency)
    bool has_start = false, has_end = false;
    FlowCategory category = FlowCategory::LaunchToGpu;
    FlowEnd start, end;
  };
  using PidTid = std::pair<std::int64_t, std::int64_t>;
  // One PyTorch memory event's allocator total, kept until finish().
  struct MemorySample {
    std::int64_t pid = 0;   // the GPU's index, or the process for CPU memory
    bool reserved = false;  // "Total Reserved", else "Total Allocated"
    CounterSample sample;
  };

  Status add_event(const RawEvent& ev, const std::vector<CounterValue>& counters, std::uint64_t base_offset);
  Status error(const RawEvent& ev, std::uint64_t base_offset, const std::string& what) const;
  std::int64_t resolve_id(const IdToken& id, bool is_pid);
  LaneIndex lane_for(const LaneKey& key);
  bool make_pending(const RawEvent& ev, PendingEvent& out);
  std::uint32_t arg_set(std::string_view extra);  // Event::args for a RawArgs::extra
  void commit(PendingEvent& p);
  void add_metadata(const RawEvent& ev);
  void add_counter(const RawEvent& ev, const std::vector<CounterValue>& counters);
  void add_flow(const RawEvent& ev);
  void add_kineto_wait(const RawEvent& ev, const LaneKey& sync_lane);
  void add_memory_samples(const RawEvent& ev);
  void add_memory_counters();
  void drop_interleaved_memory_counters();
  void skip(std::string_view reason);
  void size_storage(std::uint64_t bytes_read);

  void apply_names();
  void apply_gtv(const GtvSection& gtv);
  void resolve_flows();
  std::string source_tool() const;

  std::string file_;
  TraceBuilder builder_;
  FileHeader header_;
  static constexpr std::size_t kRecentLanes = 32;
  std::vector<std::pair<LaneKey, LaneIndex>> recent_lanes_;  // the first lanes seen, checked before the builder's
  std::unordered_map<std::string, std::int64_t> string_ids_;
  std::map<std::int64_t, std::string> string_process_names_;
  std::map<PidTid, std::string> string_thread_names_;
  std::map<PidTid, std::int64_t> aliases_;  // (pid, written tid) -> lane tid, from args.gtv_tid
  std::map<PidTid, std::vector<PendingEvent>> open_begins_;
  std::map<PidTid, std::string> thread_names_;
  std::map<PidTid, std::int64_t> thread_sort_;
  std::map<std::int64_t, ProcessInfo> processes_;
  std::unordered_map<std::uint64_t, FlowPair> flows_;
  std::unordered_map<std::uint64_t, FlowPair> backward_flows_;    // "fwdbwd" ids are numbered apart from "ac2g"
  std::unordered_map<std::uint64_t, FlowPair> dependency_flows_;  // and "gtv_dependency" ids apart from both
  std::vector<FlowPair> flow_pairs_;
  std::vector<MemorySample> memory_samples_;
  // (pid, reserved) of the memory series the file holds as counter events: a file gtv wrote has both the memory
  // events and the series made from them, which must not be made twice.
  std::set<std::pair<std::int64_t, bool>> memory_series_in_file_;
  std::map<std::string, std::int64_t> skipped_;
  std::vector<EventArg> extra_args_;  // scratch for one event's extra args
  // Arg sets seen (by their encoded text), so that events with the same args share one set: most GPU events and
  // runtime calls repeat a few ("queued": 0, "context": 1, "cbid": 211). Capped: unique sets are not worth a lookup.
  std::unordered_map<std::string, std::uint32_t> arg_set_ids_;
  std::int64_t next_string_id_ = 0;
  std::uint64_t input_bytes_ = 0;
  bool storage_sized_ = false;
};

}  // namespace gtv::io
