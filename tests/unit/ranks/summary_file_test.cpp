// The .gtvsum file: what is written is read back exactly, and every damaged file is refused with a line naming it.
#include "gtv/ranks/summary_file.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <limits>

#include "generated_run.h"

namespace gtv::ranks {
namespace {

std::string gzip_text(const std::string& text) {
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, static_cast<uLong>(text.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

RankSummary sample() {
  RankSummary s;
  s.source = "/runs/7/rank3 \"quoted\"\\path\n.json.gz";
  s.source_tool = "PyTorch Profiler (Kineto)";
  s.distributed = {3, 8, "nccl"};
  s.origin_unix_ns = 1'790'857'026'123'456'789;
  s.start_ns = -5;
  s.end_ns = 9'000'000'000;
  s.devices = {0, 3};
  Collective a{"AllReduce", 100, 250, EventRef{}, true, 17, "0", 1024, -1};
  Collective b{"Broadcast", 300, 320, EventRef{}, false, -1, "", -1, 2};
  s.collectives = {a, b, a};
  s.steps = {{"ProfilerStep#1", 0, 1000, 700, 200}, {"ProfilerStep#2", 1000, 3000, 700, 0}};
  s.collective_own_work_ns = {40, 0, 150};
  s.window = {10, 3500, {"timed loop", "eval"}, 3200, 2900, -1, 686, 1700};
  return s;
}

void expect_same(const RankSummary& a, const RankSummary& b) {
  EXPECT_EQ(a.source, b.source);
  EXPECT_EQ(a.source_tool, b.source_tool);
  EXPECT_EQ(a.distributed, b.distributed);
  EXPECT_EQ(a.origin_unix_ns, b.origin_unix_ns);
  EXPECT_EQ(a.start_ns, b.start_ns);
  EXPECT_EQ(a.end_ns, b.end_ns);
  EXPECT_EQ(a.devices, b.devices);
  EXPECT_EQ(a.from_merged_run, b.from_merged_run);
  EXPECT_EQ(a.merged_rank, b.merged_rank);
  EXPECT_EQ(a.merged_clock, b.merged_clock);
  EXPECT_EQ(a.collective_own_work_ns, b.collective_own_work_ns);
  EXPECT_EQ(std::tie(a.window.start_ns, a.window.end_ns, a.window.measurements, a.window.last_measurement_end_ns,
                     a.window.longest_own_work_ns, a.window.longest_own_work_device, a.window.longest_own_work_tid,
                     a.window.gpu_work_ns),
            std::tie(b.window.start_ns, b.window.end_ns, b.window.measurements, b.window.last_measurement_end_ns,
                     b.window.longest_own_work_ns, b.window.longest_own_work_device, b.window.longest_own_work_tid,
                     b.window.gpu_work_ns));
  ASSERT_EQ(a.steps.size(), b.steps.size());
  for (std::size_t i = 0; i < a.steps.size(); ++i) {
    const StepWork &x = a.steps[i], &y = b.steps[i];
    EXPECT_EQ(std::tie(x.name, x.start_ns, x.end_ns, x.gpu_busy_ns, x.communication_ns),
              std::tie(y.name, y.start_ns, y.end_ns, y.gpu_busy_ns, y.communication_ns));
  }
  ASSERT_EQ(a.collectives.size(), b.collectives.size());
  for (std::size_t i = 0; i < a.collectives.size(); ++i) {
    const Collective &x = a.collectives[i], &y = b.collectives[i];
    EXPECT_EQ(std::tie(x.kind, x.start_ns, x.end_ns, x.on_gpu, x.seq, x.group, x.elements, x.root),
              std::tie(y.kind, y.start_ns, y.end_ns, y.on_gpu, y.seq, y.group, y.elements, y.root));
  }
}

TEST(SummaryFile, RoundTripsEveryField) {
  RankSummary merged = sample();
  merged.from_merged_run = true;
  merged.merged_rank = RankInfo{3, "rank 3", {40, 10'000'040}, {5, 6}, {0, 3}, 1234, -56};
  merged.merged_clock = ClockAlignment{"collectives", "Ranks moved so that ...", 4500, 11};
  RankSummary unmeasured = sample();
  unmeasured.window.last_measurement_end_ns = std::numeric_limits<TimeNs>::min();
  unmeasured.window.measurements.clear();
  const std::vector<RankSummary> written{sample(), merged, unmeasured};
  const Expected<std::vector<RankSummary>> back = read_summary_bytes(summary_file_bytes(written), "x.gtvsum");
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->size(), 3u);
  for (std::size_t i = 0; i < written.size(); ++i) expect_same(written[i], (*back)[i]);
}

TEST(SummaryFile, IsGzipOfDocumentedJson) {
  const std::string json = summary_json(std::vector<RankSummary>{sample()});
  EXPECT_EQ(json.rfind("{\"format\":\"gtvsum\",\"version\":2,\"ranks\":[{\"source\":", 0), 0u) << json;
  EXPECT_NE(json.find("\"kinds\":[\"AllReduce\",\"Broadcast\"]"), std::string::npos) << json;
  EXPECT_NE(json.find("\"kind\":[0,1,0]"), std::string::npos) << json;
  EXPECT_NE(json.find("\"start_ns\":[100,300,100]"), std::string::npos) << json;
  EXPECT_NE(json.find("\"own_work_ns\":[40,0,150]"), std::string::npos) << json;
  EXPECT_NE(json.find("\"window\":{\"start_ns\":10,\"end_ns\":3500,\"measurements\":[\"timed loop\",\"eval\"],"
                      "\"last_measurement_end_ns\":3200,\"longest_own_work_ns\":2900,\"longest_own_work_device\":-1,"
                      "\"longest_own_work_tid\":686,\"gpu_work_ns\":1700}"),
            std::string::npos)
      << json;
  const Expected<std::vector<RankSummary>> back = read_summary_bytes(gzip_text(json), "x.gtvsum");
  ASSERT_TRUE(back.ok()) << back.error().message;
  // gpu_work_ns is optional: a summary written without it reads as 0.
  std::string without = json;
  without.erase(without.find(",\"gpu_work_ns\":1700"), std::string(",\"gpu_work_ns\":1700").size());
  const Expected<std::vector<RankSummary>> older = read_summary_bytes(gzip_text(without), "older.gtvsum");
  ASSERT_TRUE(older.ok()) << older.error().message;
  EXPECT_EQ((*older)[0].window.gpu_work_ns, 0);
  EXPECT_EQ((*back)[0].window.gpu_work_ns, 1700);
}

TEST(SummaryFile, EveryCutOfTheFileIsRefusedWithItsName) {
  const std::string bytes = summary_file_bytes(std::vector<RankSummary>{sample()});
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    const Expected<std::vector<RankSummary>> back = read_summary_bytes(bytes.substr(0, n), "cut.gtvsum");
    ASSERT_FALSE(back.ok()) << n;
    EXPECT_EQ(back.error().message.rfind("cut.gtvsum: ", 0), 0u) << back.error().message;
    EXPECT_EQ(back.error().message.find('\n'), std::string::npos);
  }
  const Expected<std::vector<RankSummary>> cut = read_summary_bytes(bytes.substr(0, bytes.size() - 10), "cut.gtvsum");
  EXPECT_NE(cut.error().message.find("truncated"), std::string::npos) << cut.error().message;
}

TEST(SummaryFile, RefusesOtherVersionsAndOtherFiles) {
  std::string json = summary_json(std::vector<RankSummary>{sample()});
  json.replace(json.find("\"version\":2"), 11, "\"version\":1");
  Expected<std::vector<RankSummary>> r = read_summary_bytes(gzip_text(json), "old.gtvsum");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "old.gtvsum: rank summary version 1; this gtv reads version 2 (summarize the trace "
            "again with this gtv)");
  r = read_summary_bytes("{\"format\":\"gtvsum\"}", "plain.gtvsum");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("gzip"), std::string::npos) << r.error().message;
  r = read_summary_bytes(gzip_text("{\"traceEvents\":[]}"), "trace.gtvsum");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "trace.gtvsum: not a gtv rank summary (no \"format\": \"gtvsum\")");
  r = read_summary_bytes(gzip_text("{\"format\":\"gtvsum\",\"version\":2,\"ranks\":[]}"), "empty.gtvsum");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "empty.gtvsum: a rank summary that holds no rank");
}

TEST(SummaryFile, RefusesDamagedTables) {
  const std::string json = summary_json(std::vector<RankSummary>{sample()});
  const auto damaged = [&](const std::string& from, const std::string& to) {
    std::string j = json;
    const std::size_t at = j.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    j.replace(at, from.size(), to);
    const Expected<std::vector<RankSummary>> r = read_summary_bytes(gzip_text(j), "bad.gtvsum");
    EXPECT_FALSE(r.ok()) << to;
    return r.ok() ? std::string() : r.error().message;
  };
  EXPECT_EQ(damaged("\"kind\":[0,1,0]", "\"kind\":[0,1]"),
            "bad.gtvsum: ranks[0].collectives: the columns do not all have count (3) rows");
  EXPECT_EQ(damaged("\"kind\":[0,1,0]", "\"kind\":[0,7,0]"),
            "bad.gtvsum: ranks[0].collectives: row 1 names a kind or group the tables lack");
  EXPECT_EQ(damaged("\"end_ns\":[250,320,250]", "\"end_ns\":[250,20,250]"),
            "bad.gtvsum: ranks[0].collectives: row 1 ends before it starts or lies outside [-2^62, 2^62) ns");
  EXPECT_EQ(damaged("\"gpu_busy_ns\":[700,700]", "\"gpu_busy_ns\":[700,9000]"),
            "bad.gtvsum: ranks[0].steps: row 1 is not a span inside [-2^62, 2^62) ns with busy and communication "
            "times inside it");
  EXPECT_EQ(damaged("\"communication_ns\":[200,0]", "\"communication_ns\":[200]"),
            "bad.gtvsum: ranks[0].steps: the columns do not all have count (2) rows");
  EXPECT_EQ(damaged("\"start_ns\":[100,300,100]", "\"start_ns\":[100,300,-100]"),
            "bad.gtvsum: ranks[0].collectives: row 2 lies outside the rank's span (start_ns, end_ns)");
  EXPECT_EQ(damaged("\"origin_unix_ns\":1790857026123456789", "\"origin_unix_ns\":-9223372036854775807"),
            "bad.gtvsum: ranks[0].origin_unix_ns: outside [-2^62, 2^62) ns");
  EXPECT_EQ(damaged("\"own_work_ns\":[40,0,150]", "\"own_work_ns\":[40,0,151]"),
            "bad.gtvsum: ranks[0].collectives: row 2 has own work outside [0, its length]");
  EXPECT_EQ(damaged("\"longest_own_work_ns\":2900", "\"longest_own_work_ns\":9000"),
            "bad.gtvsum: ranks[0].window: not a span inside [-2^62, 2^62) ns with the measurement's end, the own "
            "work and the GPU work inside it");
  EXPECT_EQ(damaged("\"gpu_work_ns\":1700", "\"gpu_work_ns\":-1"),
            "bad.gtvsum: ranks[0].window: not a span inside [-2^62, 2^62) ns with the measurement's end, the own "
            "work and the GPU work inside it");
  EXPECT_EQ(damaged("\"world_size\":8", "\"world_size\":\"8\""),
            "bad.gtvsum: ranks[0].world_size is missing or not an integer");
}

TEST(SummaryFile, ReadsFromDiskAndNamesMissingFiles) {
  const std::string path = std::string(GTV_BINARY_DIR) + "/summary_file_test.gtvsum";
  ASSERT_TRUE(write_summary_file(std::vector<RankSummary>{sample()}, path).ok());
  const Expected<std::vector<RankSummary>> back = read_summary_file(path);
  ASSERT_TRUE(back.ok()) << back.error().message;
  expect_same(sample(), back->front());
  const Expected<std::vector<RankSummary>> missing = read_summary_file(path + ".nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, path + ".nope: cannot open");
  EXPECT_FALSE(read_summary_file(GTV_BINARY_DIR).ok());
}

}  // namespace
}  // namespace gtv::ranks
