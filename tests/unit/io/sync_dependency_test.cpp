// Dependency links in files: Kineto's "cuda_sync" events (tests/data/edge/kineto_cuda_sync.json, hand-written in
// Kineto's form) read into Trace::dependencies(), written as "gtv_dependency" flow pairs and read back unchanged.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gtv/io/trace_file.h"
#include "gtv/model/kineto_names.h"

namespace gtv::io {
namespace {

std::string sync_trace_path() { return std::string(GTV_TEST_DATA_DIR) + "/edge/kineto_cuda_sync.json"; }

std::string_view name_at(const Trace& t, EventRef ref) { return t.name(t.event(ref)); }

// The file: "producer" on stream 7 (correlation 1) before cudaEventRecord (2); cudaStreamWaitEvent (3) makes
// stream 22 wait, then "consumer" is launched there (4); cudaEventSynchronize (5) on the same event;
// cudaStreamSynchronize(stream 22) (6); cudaDeviceSynchronize (7).
void expect_the_four_links(const Trace& t) {
  ASSERT_EQ(t.dependencies().size(), 4u);
  const auto& d = t.dependencies();
  for (const Flow& link : d) EXPECT_EQ(link.kind, FlowKind::Dependency);
  EXPECT_EQ(name_at(t, d[0].from), "producer");
  EXPECT_EQ(name_at(t, d[0].to), "consumer");
  EXPECT_EQ(d[0].correlation_id, 3u);
  EXPECT_EQ(name_at(t, d[1].from), "producer");
  EXPECT_EQ(name_at(t, d[1].to), kineto::kSyncEventSynchronize);
  EXPECT_EQ(t.event(d[1].to).kind, EventKind::Sync);
  EXPECT_EQ(d[1].correlation_id, 5u);
  EXPECT_EQ(name_at(t, d[2].from), "consumer");
  EXPECT_EQ(name_at(t, d[2].to), kineto::kSyncStreamSynchronize);
  EXPECT_EQ(name_at(t, d[3].from), "consumer");  // of all of GPU 0's work, it ends last
  EXPECT_EQ(name_at(t, d[3].to), kineto::kSyncContextSynchronize);
}

TEST(SyncDependencies, KinetoCudaSyncEventsBecomeDependencyLinks) {
  Expected<Trace> t = read_trace(sync_trace_path());
  ASSERT_TRUE(t.ok()) << t.error().message;
  expect_the_four_links(*t);
  EXPECT_EQ(t->flows().size(), 2u);  // the two launches only
  EXPECT_TRUE(t->metadata().notes.empty());
  // Looked up from either end; the producer is waited for twice.
  const EventRef producer = t->dependencies()[0].from;
  EXPECT_EQ(t->dependencies_of(producer).size(), 2u);
  // The consumer waits for the producer, and both host synchronizations after it wait for the consumer.
  const std::vector<Flow> of_consumer = t->dependencies_of(t->dependencies()[0].to);
  ASSERT_EQ(of_consumer.size(), 3u);
  EXPECT_EQ(of_consumer[0].to, t->dependencies()[2].to);  // those starting at it first
  EXPECT_EQ(of_consumer[2], t->dependencies()[0]);
}

TEST(SyncDependencies, WrittenAsGtvDependencyFlowsAndReadBackUnchanged) {
  Expected<Trace> t = read_trace(sync_trace_path());
  ASSERT_TRUE(t.ok()) << t.error().message;
  const std::string written = write_trace_to_string(*t);
  EXPECT_NE(written.find(R"("ph":"s","id":1,"pid":0,"tid":7,"ts":20.000,"cat":"gtv_dependency")"), std::string::npos)
      << written;
  EXPECT_NE(written.find(R"("bp":"e","args":{"correlation":3,"gtv_lane":"gpu"})"), std::string::npos) << written;
  Expected<Trace> back = read_trace_from_memory(written, "again.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  expect_the_four_links(*back);
  EXPECT_EQ(back->dependencies(), t->dependencies());
  EXPECT_TRUE(back->metadata().notes.empty());
  // A second trip writes the same text.
  EXPECT_EQ(write_trace_to_string(*back), written);
}

TEST(SyncDependencies, AWaitWithoutItsEventRecordOrOnAnUnknownStreamHasNoLink) {
  const std::string json = R"({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 1,
     "args": {"device": 0, "stream": 7, "correlation": 1}},
    {"ph": "X", "cat": "cuda_sync", "name": "Event Sync", "pid": 0, "tid": -1, "ts": 5, "dur": 1,
     "args": {"wait_on_stream": -1, "wait_on_cuda_event_record_corr_id": -1, "stream": -1, "correlation": 3,
              "device": 0}},
    {"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0, "tid": 9, "ts": 7, "dur": 1,
     "args": {"stream": 9, "correlation": 4, "device": 0}}]})";
  Expected<Trace> t = read_trace_from_memory(json, "no_links.json");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_TRUE(t->dependencies().empty());
}

}  // namespace
}  // namespace gtv::io
