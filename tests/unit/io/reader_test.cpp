// The reader on the small hand-written traces in tests/data/edge (expected values worked out by hand from the
// files, see the comments).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <thread>

#include "gtv/io/trace_file.h"
#include "test_util.h"

namespace gtv::io {
namespace {

std::string edge(const char* name) { return std::string(GTV_TEST_DATA_DIR) + "/edge/" + name; }

const Lane& lane_of(const Trace& t, const LaneKey& key) {
  const auto index = t.find_lane(key);
  EXPECT_TRUE(index.has_value());
  return t.lane(index.value_or(0));
}

TEST(Reader, BareArrayWithoutClosingBracket) {
  Expected<Trace> t = read_trace(edge("bare_array_unterminated.json"));
  ASSERT_TRUE(t.ok()) << t.error().message;
  const Lane& lane = lane_of(*t, host_lane_key(1, 2));
  ASSERT_EQ(lane.events.size(), 2u);
  EXPECT_EQ(lane.events[0].start_ns, 10'000);
  EXPECT_EQ(lane.events[0].duration_ns, 5'000);
  EXPECT_EQ(lane.events[1].start_ns, 20'500);
  EXPECT_EQ(lane.events[1].duration_ns, 250);
  EXPECT_EQ(t->metadata().source_tool, "Chrome trace");
  EXPECT_EQ(t->metadata().origin_unix_ns, 0);
}

TEST(Reader, AbsoluteEpochMicrosecondsKeepNanoseconds) {
  Expected<Trace> t = read_trace(edge("absolute_epoch_us.json"));
  ASSERT_TRUE(t.ok()) << t.error().message;
  const Lane& lane = lane_of(*t, host_lane_key(9, 9));
  ASSERT_EQ(lane.events.size(), 2u);
  EXPECT_EQ(lane.events[0].start_ns, 1'790'857'026'123'456'789);
  EXPECT_EQ(lane.events[1].start_ns, 1'790'857'026'123'457'123);
  EXPECT_EQ(lane.events[1].duration_ns, 1);
}

TEST(Reader, BeginEndCountersMetadataFlowsAndSkips) {
  ReadStats stats;
  ReadOptions options;
  options.stats = &stats;
  Expected<Trace> t = read_trace(edge("begin_end_and_friends.json"), options);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(stats.array_elements, 24u);
  EXPECT_EQ(t->event_count(), 8u);
  EXPECT_EQ(t->lanes().size(), 3u);  // (1,1), the "Spans" lane, GPU 0 stream 7; no lane for the unclosed 'B'
  const Lane& main = lane_of(*t, host_lane_key(1, 1));
  EXPECT_EQ(main.name, "main thread");
  EXPECT_EQ(main.sort_index, -3);
  ASSERT_EQ(main.events.size(), 3u);
  EXPECT_EQ(t->name(main.events[0]), "outer");  // B 100 .. E 150
  EXPECT_EQ(main.events[0].duration_ns, 50'000);
  EXPECT_EQ(t->name(main.events[1]), "inner");  // B 110 .. E 120
  EXPECT_EQ(main.events[1].duration_ns, 10'000);
  EXPECT_EQ(main.events[1].depth, 1);
  EXPECT_EQ(main.events[2].kind, EventKind::Runtime);  // old category "Runtime"
  const Lane& gpu = lane_of(*t, gpu_lane_key(0, 7));
  ASSERT_EQ(gpu.events.size(), 3u);
  const MemcpyDetail* copy = t->memcpy_detail(gpu.events[0]);
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(*copy, (MemcpyDetail{4096, CopyKind::HostToDevice, MemoryKind::Pageable, MemoryKind::Device, -1}));
  const KernelDetail* kernel = t->kernel_detail(gpu.events[1]);
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(*kernel, (KernelDetail{{4, 2, 1}, {128, 1, 1}, 32, 1024, 97, 12}));
  const MemsetDetail* memset = t->memset_detail(gpu.events[2]);
  ASSERT_NE(memset, nullptr);
  EXPECT_EQ(*memset, (MemsetDetail{64, MemoryKind::Device, 0}));
  // The ac2g pair (end listed before start) joins the launch at 200 us to the kernel at 250 us.
  ASSERT_EQ(t->flows().size(), 1u);
  EXPECT_EQ(t->flows()[0].correlation_id, 42u);
  EXPECT_EQ(t->name(t->event(t->flows()[0].from)), "launch");
  EXPECT_EQ(t->name(t->event(t->flows()[0].to)), "gemm");
  ASSERT_EQ(t->counters().size(), 3u);
  EXPECT_EQ(t->counters()[0].name, "Memory/allocated");
  EXPECT_EQ(t->counters()[1].name, "Memory/reserved");
  EXPECT_EQ(t->counters()[1].samples, (std::vector<CounterSample>{{130'000, 4096.5}}));
  EXPECT_EQ(t->counters()[2].name, "Load");
  EXPECT_EQ(t->counters()[2].samples, (std::vector<CounterSample>{{140'001, 0.5}}));
  ASSERT_EQ(t->processes().size(), 2u);
  EXPECT_EQ(t->processes()[0].name, "trainer");
  EXPECT_EQ(t->processes()[1].name, "Spans");  // a string pid keeps its text as the process name
  const Lane& spans = t->lane(*t->find_lane(host_lane_key(t->processes()[1].pid, t->lanes()[1].key.tid)));
  EXPECT_EQ(spans.name, "Trace tick");
  EXPECT_EQ(spans.events.size(), 2u);
  EXPECT_EQ(spans.events[0].kind, EventKind::Instant);
  // Skipped: unmatched E, unclosed B, phases P and b, unknown M, a fwdbwd flow, an ac2g start without end.
  EXPECT_EQ(stats.events_skipped, 7u);
  EXPECT_EQ(stats.skipped["events with unknown phase"], 2u);
  EXPECT_EQ(stats.skipped["'E' events without a matching 'B'"], 1u);
  EXPECT_EQ(t->metadata().notes.size(), 6u);  // one note per reason
}

TEST(Reader, DistributedInfoNamesTheRankAndSurvivesAWrite) {
  const std::string json = R"({"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": 1,
    "world_size": 4, "pg_count": 1}, "traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 1, "tid": 7, "ts": 10.0, "dur": 2.0}]})";
  Expected<Trace> t = read_trace_from_memory(json, "rank1.json");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->metadata().distributed.rank, 1);
  EXPECT_EQ(t->metadata().distributed.world_size, 4);
  EXPECT_EQ(t->metadata().distributed.backend, "nccl");
  Expected<Trace> again = read_trace_from_memory(write_trace_to_string(*t), "again.json");
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->metadata().distributed, t->metadata().distributed);
}

// A file that says rank 5 of a world of 2 contradicts itself: refused, not read as a file without a rank (which a
// merge would then number by the order of the files).
TEST(Reader, ARankOutsideItsWorldIsRefused) {
  const std::string json = R"({"distributedInfo": {"rank": 5, "world_size": 2}, "traceEvents": []})";
  Expected<Trace> t = read_trace_from_memory(json, "bad_rank.json");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("bad_rank.json"), std::string::npos) << t.error().message;
  EXPECT_NE(t.error().message.find("rank 5 of world size 2"), std::string::npos) << t.error().message;
  // A rank that is not a number is named as written, not as "rank -1".
  t = read_trace_from_memory(R"({"distributedInfo": {"rank": "one", "world_size": 2}, "traceEvents": []})", "s.json");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("'distributedInfo' says rank \"one\": ranks are integers from 0 to world size - 1"),
            std::string::npos)
      << t.error().message;
  const std::string no_rank = R"({"distributedInfo": {"backend": "gloo"}, "traceEvents": []})";
  t = read_trace_from_memory(no_rank, "no_rank.json");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->metadata().distributed.rank, -1);
}

TEST(Reader, AnOriginOutsideTheTimeRangeIsRefused) {
  for (const char* base : {"1e300", "-1e300", "18446744073709551615", "4611686018427387904"}) {
    const std::string json = std::string(R"({"baseTimeNanoseconds": )") + base + R"(, "traceEvents": []})";
    Expected<Trace> t = read_trace_from_memory(json, "origin.json");
    ASSERT_FALSE(t.ok()) << base;
    EXPECT_NE(t.error().message.find("outside the accepted time range"), std::string::npos) << t.error().message;
  }
  const std::string edge = R"({"baseTimeNanoseconds": 4611686018427387903, "traceEvents": []})";
  Expected<Trace> t = read_trace_from_memory(edge, "edge.json");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->metadata().origin_unix_ns, (std::int64_t{1} << 62) - 1);
}

// pytorch_memory_events.json: PyTorch's "[memory]" instants (profile_memory=True), four on GPU 0 and one on the
// CPU ("Device Id" -1); each carries the allocator's totals after it.
TEST(Reader, PyTorchMemoryEventsBecomeCounterSeriesPerDevice) {
  Expected<Trace> t = read_trace(edge("pytorch_memory_events.json"));
  ASSERT_TRUE(t.ok()) << t.error().message;
  auto series = [&](std::int64_t pid, std::string_view name) -> std::vector<CounterSample> {
    for (const CounterSeries& s : t->counters())
      if (s.pid == pid && s.name == name) return s.samples;
    ADD_FAILURE() << "no series " << name << " for pid " << pid;
    return {};
  };
  ASSERT_EQ(t->counters().size(), 4u);
  EXPECT_EQ(series(0, "allocated by PyTorch (bytes)"),
            (std::vector<CounterSample>{
                {1'005'000, 512.0}, {1'020'000, 1536.0}, {1'040'000, 20972032.0}, {1'070'000, 1536.0}}));
  EXPECT_EQ(series(0, "reserved by PyTorch (bytes)"),
            (std::vector<CounterSample>{
                {1'005'000, 2097152.0}, {1'020'000, 2097152.0}, {1'040'000, 23068672.0}, {1'070'000, 23068672.0}}));
  // CPU memory belongs to the process that allocated it.
  EXPECT_EQ(series(7, "allocated by PyTorch (bytes)"), (std::vector<CounterSample>{{1'030'000, 4096.0}}));
  EXPECT_EQ(series(7, "reserved by PyTorch (bytes)"), (std::vector<CounterSample>{{1'030'000, 0.0}}));
  // The events stay on their thread's lane, with their args (address, bytes).
  const Lane& host = lane_of(*t, host_lane_key(7, 7));
  EXPECT_EQ(std::count_if(host.events.begin(), host.events.end(),
                          [](const Event& e) { return e.kind == EventKind::Instant; }),
            5);
}

TEST(Reader, MemoryCountersSurviveARoundTripOnce) {
  Expected<Trace> t = read_trace(edge("pytorch_memory_events.json"));
  ASSERT_TRUE(t.ok()) << t.error().message;
  // The written file holds both the "[memory]" events and the series made from them: read back, the series must
  // come from the counter events alone, not twice.
  Expected<Trace> again = read_trace_from_memory(write_trace_to_string(*t), "round trip");
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->counters(), t->counters());
}

TEST(Reader, IntegerArgsGivenWithDecimalsAreRounded) {
  Expected<Trace> t = read_trace_from_memory(
      R"([{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 1, "pid": 0.0, "tid": 7.4,)"
      R"( "args": {"shared memory": 1024.5, "registers per thread": 3e1, "grid": [1.6, 2, 3], "correlation": 9}}])",
      "decimals.json");
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->lanes().size(), 1u);
  EXPECT_EQ(t->lanes()[0].key, gpu_lane_key(0, 7));
  const KernelDetail* k = t->kernel_detail(t->lanes()[0].events[0]);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->shared_memory_bytes, 1025);  // half away from zero
  EXPECT_EQ(k->registers_per_thread, 30);
  EXPECT_EQ(k->grid[0], 2);
  EXPECT_EQ(k->grid[1], 2);
  EXPECT_EQ(t->lanes()[0].events[0].correlation_id, 9u);
}

TEST(Reader, GzipIsDetectedByContentNotName) {
  const std::string dir = test::scratch_dir("gzip_by_content");
  const std::string plain = test::read_file(edge("absolute_epoch_us.json"));
  test::write_file(dir + "/compressed.json", test::gzip_bytes(plain));  // no .gz suffix
  test::write_file(dir + "/plain.json.gz", plain);                      // .gz suffix, not compressed
  for (const char* name : {"compressed.json", "plain.json.gz"}) {
    ReadStats stats;
    ReadOptions options;
    options.stats = &stats;
    Expected<Trace> t = read_trace(dir + "/" + name, options);
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_EQ(t->event_count(), 2u);
    EXPECT_EQ(stats.gzip, std::string(name) == "compressed.json");
  }
}

TEST(Reader, PipesAreReadWithoutMapping) {
  const std::string dir = test::scratch_dir("pipe");
  const std::string fifo = dir + "/trace.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string gz = test::gzip_bytes(test::read_file(edge("absolute_epoch_us.json")));
  std::thread writer([&] { test::write_file(fifo, gz); });
  Expected<Trace> t = read_trace(fifo);
  writer.join();
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->event_count(), 2u);
  EXPECT_EQ(t->lane(0).events[0].start_ns, 1'790'857'026'123'456'789);
}

// About 2.7 MiB of events: several 1 MiB chunks; with tricky names, cut inside strings that contain "}," and
// "},{" on purpose.
constexpr int kManyChunksEvents = 20'000;
std::string many_chunks_json(bool tricky_names = true) {
  const std::string name = tricky_names ? "op},{\\\"x\\\"}, " : "op ";
  std::string json = "{\"traceEvents\": [";
  for (int i = 0; i < kManyChunksEvents; ++i) {
    json += (i ? ",\n" : "") + std::string("{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"") + name +
            std::to_string(i % 7) + "\", \"pid\": 1, \"tid\": " + std::to_string(i % 3) +
            ", \"ts\": " + std::to_string(i) + ".5, \"dur\": 0.25, \"args\": {\"Input Dims\": [[1, 2], [3]]}}";
  }
  return json + "]}";
}

TEST(Reader, ManyChunksGiveTheSameResultAsOne) {
  const std::string json = many_chunks_json();
  const int n = kManyChunksEvents;
  ASSERT_GT(json.size(), 2u << 20);
  Expected<Trace> t = read_trace_from_memory(json, "generated");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->event_count(), static_cast<std::size_t>(n));
  const Lane& lane = lane_of(*t, host_lane_key(1, 2));
  ASSERT_EQ(lane.events.size(), static_cast<std::size_t>(n / 3));
  EXPECT_EQ(lane.events.back().start_ns, 19'997'500);
  // Progress is reported per chunk, rising to 1; returning false cancels.
  struct Progress {
    std::vector<double> seen;
    bool keep_going = true;
  } progress;
  ReadOptions options;
  options.progress_context = &progress;
  options.progress = [](void* context, double fraction) {
    auto* p = static_cast<Progress*>(context);
    p->seen.push_back(fraction);
    return p->keep_going;
  };
  ASSERT_TRUE(read_trace_from_memory(json, "generated", options).ok());
  ASSERT_GE(progress.seen.size(), 3u);
  EXPECT_TRUE(std::is_sorted(progress.seen.begin(), progress.seen.end()));
  EXPECT_GT(progress.seen.back(), 0.99);
  progress.keep_going = false;
  Expected<Trace> cancelled = read_trace_from_memory(json, "generated", options);
  ASSERT_FALSE(cancelled.ok());
  EXPECT_EQ(cancelled.error().message, "generated: reading cancelled");
  // Gzip: inflated and parsed as a stream; progress follows the compressed input.
  std::string big = json.substr(0, json.size() - 2);
  const std::string one_event = json.substr(17, json.find("}},", 17) + 2 - 17);
  while (big.size() < (40u << 20)) big += ",\n" + one_event;
  big += "]}";
  const std::string gz = test::gzip_bytes(big);
  progress.seen.clear();
  progress.keep_going = true;
  ASSERT_TRUE(read_trace_from_memory(gz, "big.json.gz", options).ok());
  ASSERT_FALSE(progress.seen.empty());
  EXPECT_TRUE(std::is_sorted(progress.seen.begin(), progress.seen.end()));
  EXPECT_LT(progress.seen.front(), 0.5);
  EXPECT_GT(progress.seen.back(), 0.99);                     // the last i with i % 3 == 2 is 19997
  EXPECT_EQ(t->name(lane.events.back()), "op},{\"x\"}, 5");  // 19997 % 7 == 5
}

// A mapped file is parsed from chunks read with pread on the worker threads, memory from chunks copied out of it:
// both must give the same trace (compared through the writer, which writes every field the model holds).
TEST(Reader, FileAndMemoryGiveTheSameTrace) {
  const std::string json = many_chunks_json(false);
  const std::string path = test::scratch_dir("FileAndMemoryGiveTheSameTrace") + "/many.json";
  test::write_file(path, json);
  ReadStats file_stats, memory_stats;
  ReadOptions file_options, memory_options;
  file_options.stats = &file_stats;
  memory_options.stats = &memory_stats;
  Expected<Trace> from_file = read_trace(path, file_options);
  Expected<Trace> from_memory = read_trace_from_memory(json, "many.json", memory_options);
  ASSERT_TRUE(from_file.ok()) << from_file.error().message;
  ASSERT_TRUE(from_memory.ok()) << from_memory.error().message;
  EXPECT_EQ(from_file->event_count(), static_cast<std::size_t>(kManyChunksEvents));
  EXPECT_EQ(write_trace_to_string(*from_file), write_trace_to_string(*from_memory));
  // On a multi-core machine the workers parsed the chunks (the last may be left to the reader when its end is not
  // within a chunk's reach), so both ways of getting a chunk's bytes were used.
  EXPECT_GE(file_stats.chunks, 5u);
  EXPECT_EQ(file_stats.chunks, memory_stats.chunks);
  if (std::thread::hardware_concurrency() > 1) {
    EXPECT_GE(file_stats.chunks_parsed_ahead + 1, file_stats.chunks);
    EXPECT_GE(memory_stats.chunks_parsed_ahead + 1, memory_stats.chunks);
  }
}

}  // namespace
}  // namespace gtv::io
