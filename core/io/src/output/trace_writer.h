#pragma once
// Writes a Trace as Kineto-style Chrome Trace Event JSON (see docs/trace-format.md).
#include "gtv/model/trace.h"
#include "output/json_out.h"
#include "output/write_layout.h"

namespace gtv::io {

class TraceWriter {
 public:
  TraceWriter(const Trace& trace, JsonOut& out) : t_(trace), out_(out), layout_(plan_layout(trace)) {}
  // False when the sink failed.
  [[nodiscard]] bool write();

 private:
  // writer_sections.cpp
  void header();
  void gtv_section();
  void gtv_metadata();
  void gtv_ranks();
  void gtv_recorder_costs();
  void gtv_lanes_and_processes();
  void gtv_ranges_and_measurements();
  void metadata_events();
  void thread_metadata(std::int64_t pid, std::int64_t tid, std::string_view name, std::int64_t sort_index);
  // trace_writer.cpp
  [[nodiscard]] bool all_events();
  void event(LaneIndex lane, std::uint32_t index);
  void event_args(const Lane& lane, const Event& e, std::uint32_t track, std::string_view category);
  void kernel_args(const KernelDetail& k);
  void memcpy_args(const MemcpyDetail& m, const Event& e);
  void range_events();
  void counter_events();
  void flow_events();
  void flow_end(char phase, const Flow& flow, EventRef ref, std::uint64_t id);
  void begin_event(std::string_view ph);

  const Trace& t_;
  JsonOut& out_;
  WriteLayout layout_;
};

}  // namespace gtv::io
