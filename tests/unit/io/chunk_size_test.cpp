// ReadOptions::chunk_bytes (for tests and fuzzing): tiny chunks cut traceEvents into many pieces, through the cut
// search and the prefetcher, and must give exactly the trace the default chunk size gives.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "gtv/io/trace_file.h"
#include "test_util.h"

namespace gtv::io {
namespace {

constexpr std::size_t kTinyChunkBytes = 64;

// Events whose names contain "}," and "},{" so that the quick cuts land inside strings.
std::string tricky_json(int events) {
  std::string json = "{\"traceEvents\": [";
  for (int i = 0; i < events; ++i) {
    json += (i ? ",\n" : "") + std::string(R"({"ph": "X", "cat": "cpu_op", "name": "op},{\"x\"}, )") +
            std::to_string(i % 5) + R"(", "pid": 1, "tid": )" + std::to_string(i % 3) + R"(, "ts": )" +
            std::to_string(i) + R"(, "dur": 0.5})";
  }
  return json + "]}";
}

void expect_same_with_tiny_chunks(const std::string& bytes, const std::string& name) {
  ReadStats default_stats, tiny_stats;
  ReadOptions default_options, tiny_options;
  default_options.stats = &default_stats;
  tiny_options.stats = &tiny_stats;
  tiny_options.chunk_bytes = kTinyChunkBytes;
  const Expected<Trace> by_default = read_trace_from_memory(bytes, name, default_options);
  const Expected<Trace> tiny = read_trace_from_memory(bytes, name, tiny_options);
  ASSERT_TRUE(by_default.ok()) << by_default.error().message;
  ASSERT_TRUE(tiny.ok()) << tiny.error().message;
  EXPECT_EQ(write_trace_to_string(*by_default), write_trace_to_string(*tiny)) << name;
  EXPECT_EQ(default_stats.array_elements, tiny_stats.array_elements) << name;
  // The setting is honoured: a few hundred bytes of events already take several chunks.
  if (default_stats.json_bytes > 8 * kTinyChunkBytes) {
    EXPECT_GT(tiny_stats.chunks, default_stats.chunks) << name;
  }
}

TEST(ChunkSize, TinyChunksReadTheFixturesAsTheDefaultDoes) {
  const std::string data = GTV_TEST_DATA_DIR;
  for (const char* name :
       {"edge/absolute_epoch_us.json", "edge/bare_array_unterminated.json", "edge/begin_end_and_friends.json",
        "pytorch/one_gpu_basic.json.gz", "pytorch/two_gpus_streams.json.gz"}) {
    expect_same_with_tiny_chunks(test::read_file(data + "/" + name), name);
  }
}

TEST(ChunkSize, TinyChunksCutAroundStringsThatLookLikeBoundaries) {
  const std::string json = tricky_json(300);
  expect_same_with_tiny_chunks(json, "tricky.json");
  expect_same_with_tiny_chunks(test::gzip_bytes(json), "tricky.json.gz");
}

TEST(ChunkSize, TinyChunksFromAFileGiveTheSameTrace) {
  const std::string json = tricky_json(300);
  const std::string path = test::scratch_dir("TinyChunksFromAFileGiveTheSameTrace") + "/tricky.json";
  test::write_file(path, json);
  ReadOptions options;
  options.chunk_bytes = kTinyChunkBytes;
  const Expected<Trace> from_file = read_trace(path, options);
  const Expected<Trace> by_default = read_trace_from_memory(json, path);
  ASSERT_TRUE(from_file.ok()) << from_file.error().message;
  ASSERT_TRUE(by_default.ok()) << by_default.error().message;
  EXPECT_EQ(write_trace_to_string(*from_file), write_trace_to_string(*by_default));
}

TEST(ChunkSize, AnErrorNamesTheSameEventWithTinyChunks) {
  std::string json = tricky_json(40);
  // The last event's 'ts' becomes a string.
  const std::size_t ts = json.rfind("\"ts\": ") + 6;
  json.replace(ts, json.find(',', ts) - ts, "\"late\"");
  ReadOptions tiny;
  tiny.chunk_bytes = kTinyChunkBytes;
  const Expected<Trace> by_default = read_trace_from_memory(json, "bad.json");
  const Expected<Trace> with_tiny = read_trace_from_memory(json, "bad.json", tiny);
  ASSERT_FALSE(by_default.ok());
  ASSERT_FALSE(with_tiny.ok());
  EXPECT_EQ(by_default.error().message, with_tiny.error().message);
}

}  // namespace
}  // namespace gtv::io

namespace gtv::io {

// The fuzz targets cap the prefetcher at one worker thread: the trace is the same, and no more threads are asked
// for than the cap (whether the one worker gets to a chunk before the reading thread does is up to the scheduler).
TEST(ChunkSize, PrefetchWorkersAreCappedWhenAsked) {
  const std::string json = tricky_json(3000);
  ReadStats free_stats, capped_stats;
  ReadOptions free_options, capped_options;
  free_options.chunk_bytes = capped_options.chunk_bytes = kTinyChunkBytes;
  free_options.stats = &free_stats;
  capped_options.stats = &capped_stats;
  capped_options.max_prefetch_workers = 1;
  const Expected<Trace> free_read = read_trace_from_memory(json, "free.json", free_options);
  const Expected<Trace> capped_read = read_trace_from_memory(json, "capped.json", capped_options);
  ASSERT_TRUE(free_read.ok()) << free_read.error().message;
  ASSERT_TRUE(capped_read.ok()) << capped_read.error().message;
  EXPECT_EQ(write_trace_to_string(*free_read), write_trace_to_string(*capped_read));
  EXPECT_LE(capped_stats.prefetch_workers, 1u);
  if (std::thread::hardware_concurrency() > 1) {
    EXPECT_GE(free_stats.prefetch_workers, 2u);  // min(cores, 4) without the cap
    EXPECT_EQ(capped_stats.prefetch_workers, 1u);
  }
}

}  // namespace gtv::io
