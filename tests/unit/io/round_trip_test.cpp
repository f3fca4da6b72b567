// read(write(t)) == t for a trace that uses every part of the model, as plain JSON and as gzip.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "gtv/io/trace_file.h"
#include "gtv/model/rank_merge.h"
#include "gtv/model/trace_builder.h"
#include "json/number_text.h"
#include "test_util.h"

namespace gtv::io {
namespace {

constexpr TimeNs kBig = 5'149'158'474'402'143;  // large times (as in Kineto files) keep every nanosecond

Event ev(TraceBuilder& b, std::string_view name, TimeNs start, TimeNs dur, EventKind kind, std::uint64_t corr = 0) {
  Event e;
  e.name = b.intern(name);
  e.start_ns = start;
  e.duration_ns = dur;
  e.kind = kind;
  e.correlation_id = corr;
  return e;
}

void add_host_events(TraceBuilder& b) {
  const LaneIndex main = b.lane(host_lane_key(100, 101));
  b.set_lane_name(main, "python 100 / main");
  Event linear = ev(b, "aten::linear", kBig, 10'000, EventKind::CpuOp);
  const EventArg linear_args[] = {{"Input Dims", "[[256,512],[512,512]]"}, {"key \"quoted\"", "\"a \\\"b\\\"\""}};
  linear.args = b.add_args(linear_args);
  b.add_event(main, linear);
  b.add_event(main, ev(b, "cudaLaunchKernel", kBig + 1'000, 2'001, EventKind::Runtime, 5));
  b.add_event(main, ev(b, "cudaMemcpyAsync", kBig + 4'000, 500, EventKind::Runtime, 6));
  b.add_event(main, ev(b, "cuLaunchKernel", kBig + 4'100, 100, EventKind::Driver, 6));
  b.add_event(main, ev(b, "partial \"overlap\"", kBig + 9'000, 3'000, EventKind::Annotation));  // ends after its parent
  b.add_event(main, ev(b, "cudaStreamSynchronize", kBig + 13'000, 7, EventKind::Sync));
  b.add_event(main, ev(b, "Activity Buffer Request", kBig + 14'000, 1, EventKind::Overhead));
  b.add_event(main, ev(b, "marker\n\\ \x01 caf\xc3\xa9", kBig + 15'000, 0, EventKind::Instant));
  b.add_event(main, ev(b, "long marker", kBig + 15'000, 9, EventKind::Instant));
  b.add_event(main, ev(b, "cudaLaunchKernel", kBig + 16'000, 300, EventKind::Runtime, 9));
  b.add_other(main, ev(b, "train.py(12): step", kBig + 17'000, 50, EventKind::Other), "python_function");
  b.add_kernel(main, ev(b, "kernel on a host lane", kBig + 18'000, 5, EventKind::Kernel), KernelDetail{});
  const LaneIndex worker = b.lane(host_lane_key(100, 102));
  b.set_lane_sort_index(worker, 5);
  b.add_event(worker, ev(b, "aten::mm", -2'000, 1'000, EventKind::CpuOp));  // before the origin
  b.add_event(worker, ev(b, "aten::mm", -2'000, 1'000, EventKind::CpuOp));  // an exact duplicate
  b.lane(host_lane_key(100, 103));                                          // a lane without events
  const LaneIndex other_process = b.lane(host_lane_key(200, 7));
  b.add_event(other_process, ev(b, "aten::add", kBig + 100, 10, EventKind::CpuOp));
}

void add_gpu_events(TraceBuilder& b) {
  const LaneIndex s7 = b.lane(gpu_lane_key(0, 7));
  KernelDetail k{{8, 16, 1}, {64, 1, 1}, 80, 6912, 97, 3};
  b.add_kernel(s7, ev(b, "gemm", kBig + 3'000, 11'360, EventKind::Kernel, 5), k);
  k.occupancy_pct = -1;
  k.blocks_per_sm_x100 = -5;
  b.add_kernel(s7, ev(b, "overlapping kernel", kBig + 3'500, 20'000, EventKind::Kernel), k);
  b.add_memcpy(s7, ev(b, "Memcpy DtoH (Device -> Pinned)", kBig + 30'000, 11'712, EventKind::Memcpy, 6),
               MemcpyDetail{524288, CopyKind::DeviceToHost, MemoryKind::Device, MemoryKind::Pinned, -1});
  b.add_memset(s7, ev(b, "Memset (Device)", kBig + 50'000, 1'000, EventKind::Memset),
               MemsetDetail{4096, MemoryKind::Device, 0});
  b.add_event(s7, ev(b, "iteration", kBig + 2'999, 60'000, EventKind::Annotation));
  const LaneIndex s13 = b.lane(gpu_lane_key(1, 13));
  b.set_lane_name(s13, "stream 13 (side)");
  b.add_memcpy(s13, ev(b, "peer copy", kBig + 40'000, 2'000, EventKind::Memcpy),
               MemcpyDetail{1 << 20, CopyKind::PeerToPeer, MemoryKind::Device, MemoryKind::Device, 0});
  b.add_kernel(s13, ev(b, "relu", kBig + 16'500, 700, EventKind::Kernel, 9), KernelDetail{{1, 1, 1}, {256, 1, 1}});
  KernelDetail in_graph{{2, 1, 1}, {128, 1, 1}};
  in_graph.graph_id = 3;
  in_graph.graph_node_id = 0x1'0000'0011ull;
  b.add_kernel(s13, ev(b, "kernel of a CUDA graph", kBig + 17'500, 300, EventKind::Kernel), in_graph);
  b.add_memset(s13, ev(b, "Memset (Pageable)", kBig + 60'000, 10, EventKind::Memset),
               MemsetDetail{16, MemoryKind::Pageable, 255});
  b.add_event(s13, ev(b, "runtime call drawn on a GPU lane", kBig + 70'000, 10, EventKind::Runtime));
  // A flow given only by a Kineto-style hint (the events carry no correlation id).
  b.add_flow_hint(77, b.lane(host_lane_key(100, 101)), kBig + 17'000, s13, kBig + 60'000);
  // Dependencies: GPU work to GPU work, and (without a correlation id) GPU work to a host Sync event.
  b.add_dependency_hint(42, s7, kBig + 3'000, s13, kBig + 16'500);
  TraceBuilder::WaitHint stream_sync;
  stream_sync.source_device = 0;
  stream_sync.source_stream = 7;
  stream_sync.source_before_correlation = 6;  // gemm (5), launched before
  stream_sync.waiter_lane = host_lane_key(100, 101);
  stream_sync.waiter_ts_ns = kBig + 13'000;
  b.add_wait(stream_sync);
}

void add_records(TraceBuilder& b) {
  TraceMetadata& m = b.metadata();
  m.source_tool = "gtv 0.1.0 (test)";
  m.origin_unix_ns = 1790857026000000000;
  m.scenario = "method 1";
  m.config = {{"models", "3"}, {"batch", "100"}};
  m.machine = {{"gpu0", "NVIDIA H200"}, {"host", "node \"7\""}};
  m.dropped_records = 3;
  m.notes = {"first note", "second, with a comma"};
  m.recorder_costs = {{100, 52'000'000, 3'400'000, 9'000'000, 2'000'000'000, 12, 81'000, 80'500}};
  b.add_range({"warm-up", RangeKind::WarmUp, kBig, kBig + 20'000, 100, 101, -1});
  b.add_range({"iteration 1", RangeKind::Iteration, kBig + 10'000, kBig + 40'000, 100, 101, -1});
  b.add_range({"forward cuda:1", RangeKind::Forward, kBig + 12'000, kBig + 15'000, 100, 101, 1});
  b.add_measurement({"timed loop", MeasurementMethod::StopwatchNoSync, 11'400'000, kBig, kBig + 11'400'000, 100, 101});
  b.add_measurement({"synced", MeasurementMethod::CudaEvents, 72'400'000, kBig + 5, kBig + 72'400'005, 100, 102});
  b.add_device({0, "NVIDIA H200", 150109880320, 9, 0, 132});
  b.add_device({1, "NVIDIA H200", 150109880320, 9, 0, 132});
  ProcessInfo& p = b.process(100);
  p.name = "python3";
  p.sort_index = 100;
  p.labels = {"CPU", "rank 0"};
  b.process(0).name = "GPU 0";
  b.add_counter_sample(100, "allocated bytes", {kBig, 1024});
  b.add_counter_sample(100, "allocated bytes", {kBig + 10, 0.1});
  b.add_counter_sample(0, "occupancy", {kBig + 20, -3.25e-7});
}

Trace rich_trace() {
  TraceBuilder b;
  add_host_events(b);
  add_gpu_events(b);
  add_records(b);
  Expected<Trace> t = b.build();
  EXPECT_TRUE(t.ok()) << t.error().message;
  return std::move(t).value();
}

std::vector<std::pair<std::string, std::string>> arg_pairs(const Trace& t, const Event& e) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const EventArg& arg : t.extra_args(e)) out.emplace_back(arg.key, arg.value_json);
  return out;
}

void expect_same_events(const Trace& a, const Trace& b, const Lane& la, const Lane& lb) {
  ASSERT_EQ(la.events.size(), lb.events.size()) << la.name;
  EXPECT_EQ(la.by_depth, lb.by_depth) << la.name;
  for (std::size_t i = 0; i < la.events.size(); ++i) {
    const Event& x = la.events[i];
    const Event& y = lb.events[i];
    SCOPED_TRACE(la.name + " event " + std::to_string(i) + " " + std::string(a.name(x)));
    EXPECT_EQ(x.start_ns, y.start_ns);
    EXPECT_EQ(x.duration_ns, y.duration_ns);
    EXPECT_EQ(x.correlation_id, y.correlation_id);
    EXPECT_EQ(x.depth, y.depth);
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(a.name(x), b.name(y));
    EXPECT_EQ(a.category(x), b.category(y));
    if (is_gpu_activity(x.kind)) {
      EXPECT_EQ(x.detail, y.detail);  // side tables keep their order
    }
    EXPECT_EQ(arg_pairs(a, x), arg_pairs(b, y));
  }
}

// Every field of the model; names and categories are compared as text (string ids are not kept).
void expect_same_trace(const Trace& a, const Trace& b) {
  EXPECT_EQ(a.metadata(), b.metadata());
  ASSERT_EQ(a.lanes().size(), b.lanes().size());
  for (std::size_t l = 0; l < a.lanes().size(); ++l) {
    const Lane& la = a.lanes()[l];
    const Lane& lb = b.lanes()[l];
    EXPECT_EQ(la.key, lb.key);
    EXPECT_EQ(la.name, lb.name);
    EXPECT_EQ(la.sort_index, lb.sort_index);
    expect_same_events(a, b, la, lb);
  }
  EXPECT_EQ(a.flows(), b.flows());
  EXPECT_EQ(a.backward_links(), b.backward_links());
  EXPECT_EQ(a.dependencies(), b.dependencies());
  EXPECT_EQ(a.ranges(), b.ranges());
  EXPECT_EQ(a.measurements(), b.measurements());
  EXPECT_EQ(a.devices(), b.devices());
  EXPECT_EQ(a.processes(), b.processes());
  EXPECT_EQ(a.counters(), b.counters());
  EXPECT_EQ(a.kernel_details(), b.kernel_details());
  EXPECT_EQ(a.memcpy_details(), b.memcpy_details());
  EXPECT_EQ(a.memset_details(), b.memset_details());
  EXPECT_EQ(a.start_ns(), b.start_ns());
  EXPECT_EQ(a.end_ns(), b.end_ns());
  EXPECT_EQ(a.event_count(), b.event_count());
}

TEST(RoundTrip, RichTraceSurvivesPlainAndGzipFiles) {
  const Trace original = rich_trace();
  ASSERT_EQ(original.flows().size(), 4u);         // corr 5 (kernel), 6 (memcpy), 9 (relu), hint 77
  ASSERT_EQ(original.dependencies().size(), 2u);  // gemm -> relu, gemm -> cudaStreamSynchronize
  const std::string dir = test::scratch_dir("round_trip");
  for (const std::string name : {"trace.json", "trace.json.gz"}) {
    SCOPED_TRACE(name);
    const std::string path = dir + "/" + name;
    const Status written = write_trace(original, path);
    ASSERT_TRUE(written.ok()) << written.error().message;
    const std::string bytes = test::read_file(path);
    ASSERT_GE(bytes.size(), 2u);
    EXPECT_EQ(bytes[0] == '\x1f' && bytes[1] == '\x8b', name.ends_with(".gz"));
    Expected<Trace> back = read_trace(path);
    ASSERT_TRUE(back.ok()) << back.error().message;
    expect_same_trace(original, *back);
  }
  // Atomic writes leave no temporary files behind.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()), 2);
}

// Kernels of a CUDA graph launch: "graph id" and "graph node id" as Kineto writes them (libkineto's
// CudaMetadataFields.h), read into the model and written back the same way; kernels outside graphs have neither.
TEST(RoundTrip, GraphIdsOfKernelsAsKinetoWritesThem) {
  const std::string json = R"({"traceEvents": [
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 1, "tid": 2, "ts": 1.0, "dur": 5.0,
     "args": {"correlation": 88}},
    {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 10.0, "dur": 2.0,
     "args": {"device": 0, "stream": 7, "correlation": 88, "graph id": 3, "graph node id": 4294967313}},
    {"ph": "X", "cat": "kernel", "name": "relu", "pid": 0, "tid": 7, "ts": 13.0, "dur": 1.0,
     "args": {"device": 0, "stream": 7, "correlation": 89}}]})";
  Expected<Trace> t = read_trace_from_memory(json, "graph.json");
  ASSERT_TRUE(t.ok()) << t.error().message;
  const Lane& gpu = t->lane(*t->find_lane(gpu_lane_key(0, 7)));
  ASSERT_EQ(gpu.events.size(), 2u);
  const KernelDetail* gemm = t->kernel_detail(gpu.events[0]);
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->graph_id, 3u);
  EXPECT_EQ(gemm->graph_node_id, 4294967313ull);
  EXPECT_TRUE(t->extra_args(gpu.events[0]).empty());  // modelled, not kept as unknown args
  EXPECT_FALSE(t->kernel_detail(gpu.events[1])->launched_by_graph());
  const std::string written = write_trace_to_string(*t);
  EXPECT_NE(written.find(R"("graph id":3,"graph node id":4294967313)"), std::string::npos) << written;
  EXPECT_EQ(written.find("graph id", written.find(R"("name":"relu")")), std::string::npos);
  Expected<Trace> back = read_trace_from_memory(written, "again.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->kernel_details(), t->kernel_details());
}

TEST(RoundTrip, StringFormReadsBackAndASecondTripIsIdentical) {
  const Trace original = rich_trace();
  const std::string text = write_trace_to_string(original);
  Expected<Trace> back = read_trace_from_memory(text, "memory");
  ASSERT_TRUE(back.ok()) << back.error().message;
  expect_same_trace(original, *back);
  EXPECT_EQ(write_trace_to_string(*back), text);
}

// Tools that rewrite JSON may move keys: the gtv object after traceEvents reads the same.
TEST(RoundTrip, GtvObjectAfterTheEvents) {
  const Trace original = rich_trace();
  std::string text = write_trace_to_string(original);
  const std::size_t begin = text.find("\n,\"gtv\":{");
  const std::size_t end = text.find("\n,\"traceEvents\":");
  ASSERT_NE(begin, std::string::npos);
  ASSERT_NE(end, std::string::npos);
  const std::string gtv = text.substr(begin, end - begin);
  text.erase(begin, end - begin);
  const std::size_t last_brace = text.rfind('}');
  text.insert(last_brace, gtv);
  ASSERT_LT(text.find("\"traceEvents\""), text.find("\"gtv\""));
  Expected<Trace> back = read_trace_from_memory(text, "moved.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  expect_same_trace(original, *back);
}

// Chrome viewers reject complete events that overlap without nesting on one thread.
TEST(RoundTrip, WrittenCompleteEventsNestOnEveryThread) {
  const std::string text = write_trace_to_string(rich_trace());
  simdjson::ondemand::parser parser;
  simdjson::padded_string json(text);
  auto doc = parser.iterate(json);
  std::map<std::pair<std::int64_t, std::int64_t>, std::vector<std::pair<TimeNs, TimeNs>>> by_thread;
  std::size_t moved = 0;
  for (auto item : doc["traceEvents"].get_array()) {
    simdjson::ondemand::object e = item.get_object();
    if (std::string_view(e["ph"].get_string().value()) != "X") continue;
    const std::int64_t pid = e["pid"].get_int64();
    const std::int64_t tid = e["tid"].get_int64();
    TimeNs ts = 0, dur = 0;
    ASSERT_TRUE(parse_us_as_ns(e["ts"].raw_json_token().value(), ts));
    ASSERT_TRUE(parse_us_as_ns(e["dur"].raw_json_token().value(), dur));
    moved += tid >= 2'000'000'000 ? 1 : 0;
    by_thread[{pid, tid}].push_back({ts, ts + dur});
  }
  EXPECT_EQ(moved, 5u);  // the partial annotation, the overlapping kernel, and three range rows
  for (auto& [thread, spans] : by_thread) {
    std::sort(spans.begin(), spans.end(),
              [](auto x, auto y) { return x.first != y.first ? x.first < y.first : x.second > y.second; });
    std::vector<TimeNs> open_ends;
    for (const auto& [start, end] : spans) {
      while (!open_ends.empty() && open_ends.back() <= start) open_ends.pop_back();
      EXPECT_TRUE(open_ends.empty() || end <= open_ends.back())
          << "pid " << thread.first << " tid " << thread.second << " at " << start;
      open_ends.push_back(end);
    }
  }
}

TEST(RoundTrip, PytorchFixturesAndAnEmptyTrace) {
  for (const char* name :
       {"one_gpu_basic.json.gz", "two_gpus_schedule.json.gz", "two_gpus_streams.json.gz", "conv_training.json.gz"}) {
    SCOPED_TRACE(name);
    Expected<Trace> original = read_trace(std::string(GTV_TEST_DATA_DIR) + "/pytorch/" + name);
    ASSERT_TRUE(original.ok()) << original.error().message;
    Expected<Trace> back = read_trace_from_memory(write_trace_to_string(*original), name);
    ASSERT_TRUE(back.ok()) << back.error().message;
    expect_same_trace(*original, *back);
    EXPECT_EQ(back->metadata().source_tool, "PyTorch Profiler (Kineto)");
  }
  TraceBuilder b;
  b.metadata().source_tool = "empty";
  Expected<Trace> empty = b.build();
  ASSERT_TRUE(empty.ok());
  Expected<Trace> back = read_trace_from_memory(write_trace_to_string(*empty), "empty.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  expect_same_trace(*empty, *back);
}

std::string arg_value(const Trace& t, const Event& e, std::string_view key) {
  for (const EventArg& arg : t.extra_args(e))
    if (arg.key == key) return std::string(arg.value_json);
  return {};
}

// PyTorch's args that the model does not hold are kept, compacted, and written back; modelled ones are not
// duplicated.
TEST(RoundTrip, PytorchArgsTheModelDoesNotHoldAreKept) {
  Expected<Trace> t = read_trace(std::string(GTV_TEST_DATA_DIR) + "/pytorch/two_gpus_streams.json.gz");
  ASSERT_TRUE(t.ok()) << t.error().message;
  bool op_seen = false, kernel_seen = false;
  for (const Lane& lane : t->lanes()) {
    for (const Event& e : lane.events) {
      for (const EventArg& arg : t->extra_args(e)) {
        EXPECT_NE(arg.key, "correlation");
        EXPECT_NE(arg.key, "device");
        EXPECT_NE(arg.key, "grid");
        EXPECT_NE(arg.key, "Ev Idx");
        EXPECT_NE(arg.key, "External id");
        EXPECT_EQ(arg.value_json.find('\n'), std::string_view::npos) << arg.value_json;  // compacted
        EXPECT_NE(arg.value_json.back(), ' ') << arg.key;
      }
      if (!op_seen && t->name(e) == "aten::linear") {
        op_seen = true;
        EXPECT_EQ(arg_value(*t, e, "Input Dims"), "[[256,512],[512,512],[512]]");
        EXPECT_EQ(arg_value(*t, e, "Input type"), "[\"float\",\"float\",\"float\"]");
        EXPECT_TRUE(t->external_id(e).has_value());  // kept beside the args, not among them
        EXPECT_FALSE(arg_value(*t, e, "Record function id").empty());
      }
      if (!kernel_seen && e.kind == EventKind::Kernel) {
        kernel_seen = true;
        EXPECT_FALSE(arg_value(*t, e, "warps per SM").empty());
        EXPECT_FALSE(arg_value(*t, e, "queued").empty());
        EXPECT_TRUE(t->external_id(e).has_value());
      }
    }
  }
  EXPECT_TRUE(op_seen);
  EXPECT_TRUE(kernel_seen);
}

// Kineto's "fwdbwd" pairs link a forward op to its backward op: read apart from the launch flows, and written back.
TEST(RoundTrip, ForwardBackwardLinksOfATrainingTrace) {
  Expected<Trace> t = read_trace(std::string(GTV_TEST_DATA_DIR) + "/pytorch/conv_training.json.gz");
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->backward_links().size(), 36u);  // 72 "fwdbwd" events, all paired
  for (const Flow& link : t->backward_links()) {
    EXPECT_EQ(link.kind, FlowKind::ForwardToBackward);
    EXPECT_EQ(t->event(link.from).kind, EventKind::CpuOp);
    EXPECT_NE(t->name(t->event(link.to)).find("Backward"), std::string_view::npos) << t->name(t->event(link.to));
  }
  for (const Flow& f : t->flows()) EXPECT_EQ(f.kind, FlowKind::LaunchToGpu);
  for (const std::string& note : t->metadata().notes) EXPECT_EQ(note.find("fwdbwd"), std::string::npos) << note;
  const auto nll = std::find_if(t->backward_links().begin(), t->backward_links().end(),
                                [&](const Flow& link) { return t->name(t->event(link.to)) == "NllLossBackward0"; });
  ASSERT_NE(nll, t->backward_links().end());
  const Flow first = *nll;
  ASSERT_TRUE(t->backward_link_of(first.from).has_value());
  EXPECT_EQ(*t->backward_link_of(first.to), first);
  EXPECT_FALSE(t->flow_of(first.to).has_value());  // not a launch
}

TEST(RoundTrip, NamesThatAreNotUtf8AreWrittenAsReplacementCharacters) {
  TraceBuilder b;
  const LaneIndex lane = b.lane(host_lane_key(1, 1));
  b.add_event(lane, ev(b, "ok \xc3\xa9 bad \xff\xc3 end \xed\xa0\x80", 0, 1, EventKind::CpuOp));
  Expected<Trace> t = b.build();
  ASSERT_TRUE(t.ok());
  Expected<Trace> back = read_trace_from_memory(write_trace_to_string(*t), "utf8.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  // Valid é kept; 0xff, a lone lead byte and an encoded surrogate (3 bytes) each become U+FFFD (EF BF BD).
  EXPECT_EQ(back->name(back->lane(0).events[0]),
            "ok \xc3\xa9 bad \xef\xbf\xbd\xef\xbf\xbd end \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
}

TEST(RoundTrip, WriteIntoMissingDirectoryFailsWithPath) {
  const Status s = write_trace(rich_trace(), "/nonexistent-dir/x/trace.json");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("/nonexistent-dir/x/trace.json"), std::string::npos) << s.error().message;
}

}  // namespace

// Kineto's External id (one per op, shared by its launches and their GPU work) is read, written back and read
// again unchanged; ops that share their other args still share one arg set's entries.
TEST(RoundTrip, ExternalIdsAreKeptAndWrittenBack) {
  const std::string text =
      R"({"traceEvents": [)"
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 5,)"
      R"( "args": {"External id": 7, "Record function id": 0}},)"
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 5,)"
      R"( "args": {"External id": 8, "Record function id": 0}},)"
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 20, "dur": 5,)"
      R"( "args": {"External id": -3}},)"
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::sub", "pid": 1, "tid": 1, "ts": 30, "dur": 5,)"
      R"( "args": {"External id": "x9"}},)"
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 1, "tid": 1, "ts": 40, "dur": 5}]})";
  Expected<Trace> t = read_trace_from_memory(text, "ext.json");
  ASSERT_TRUE(t.ok()) << t.error().message;
  auto ids_of = [](const Trace& trace) {
    std::vector<std::string> out;
    for (const Event& e : trace.lanes()[0].events) {
      const auto id = trace.external_id(e);
      out.push_back(std::string(trace.name(e)) + "=" + (id ? std::to_string(*id) : "none") + "/" +
                    arg_value(trace, e, "Record function id") + arg_value(trace, e, "External id"));
    }
    return out;
  };
  // A string is no number: kept as an extra arg, as it was written.
  const std::vector<std::string> expected = {"aten::mm=7/0", "aten::mm=8/0", "aten::add=-3/", "aten::sub=none/\"x9\"",
                                             "aten::relu=none/"};
  EXPECT_EQ(ids_of(*t), expected);
  Expected<Trace> back = read_trace_from_memory(write_trace_to_string(*t), "back.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(ids_of(*back), expected);
}

// Two rank files merged into one run keep every op's args and External id, and the run (ranks, devices, clock)
// is written into the gtv section and read back as it was.
TEST(RoundTrip, AMergedRunOfRanksKeepsArgsAndItsRanks) {
  auto rank_text = [](int rank) {
    return std::string(R"({"distributedInfo": {"backend": "nccl", "rank": )") + std::to_string(rank) +
           R"(, "world_size": 2}, "baseTimeNanoseconds": 1000, "traceEvents": [)"
           R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 5, "tid": 5, "ts": 1, "dur": 5,)"
           R"( "args": {"External id": )" +
           std::to_string(40 + rank) +
           R"(, "Input Dims": [[2, 3]]}},)"
           R"({"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "pid": 0, "tid": 7,)"
           R"( "ts": 10, "dur": 5, "args": {"device": 0, "stream": 7}}]})";
  };
  Expected<Trace> r0 = read_trace_from_memory(rank_text(0), "r0.json");
  Expected<Trace> r1 = read_trace_from_memory(rank_text(1), "r1.json");
  ASSERT_TRUE(r0.ok() && r1.ok());
  const std::vector<RankFile> files{{&*r0, "r0.json"}, {&*r1, "r1.json"}};
  Expected<RankMerge> merged = merge_ranks(files);
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  const Trace& run = merged->trace;
  auto op_of_rank = [](const Trace& t, std::int64_t pid) {
    const Lane& lane = t.lane(*t.find_lane(host_lane_key(pid, 5)));
    return std::to_string(t.external_id(lane.events[0]).value_or(-1)) + " " +
           arg_value(t, lane.events[0], "Input Dims");
  };
  EXPECT_EQ(op_of_rank(run, 5), "40 [[2,3]]");
  EXPECT_EQ(op_of_rank(run, 10'000'005), "41 [[2,3]]");
  Expected<Trace> back = read_trace_from_memory(write_trace_to_string(run), "run.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->metadata().ranks, run.metadata().ranks);
  EXPECT_EQ(back->metadata().clock, run.metadata().clock);
  EXPECT_EQ(back->metadata().distributed, run.metadata().distributed);
  EXPECT_EQ(back->lane(*back->find_lane(gpu_lane_key(1, 7))).name, "rank 1 · GPU 0 · stream 7");
  EXPECT_EQ(op_of_rank(*back, 10'000'005), "41 [[2,3]]");
}

}  // namespace gtv::io
