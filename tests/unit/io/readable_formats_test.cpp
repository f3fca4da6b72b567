#include "gtv/io/readable_formats.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "gtv/io/trace_file.h"

namespace gtv::io {
namespace {

TEST(ReadableFormats, PatternsAndWordsNameEveryFormat) {
  EXPECT_EQ(readable_name_patterns(), "*.json *.json.gz *.sqlite *.sqlite.gz *.gz");
  EXPECT_EQ(readable_suffixes_in_words(), ".json, .json.gz, .sqlite or .sqlite.gz");
}

TEST(ReadableFormats, StemDropsDirectoriesAndTheLongestSuffix) {
  EXPECT_EQ(trace_stem("resources/traces/h200x1/streams.json.gz"), "streams");
  EXPECT_EQ(trace_stem("/tmp/report1.sqlite"), "report1");
  EXPECT_EQ(trace_stem("report1.sqlite.gz"), "report1");
  EXPECT_EQ(trace_stem("rank0.json"), "rank0");
  EXPECT_EQ(trace_stem("old.gz"), "old");
  EXPECT_EQ(trace_stem("notes.txt"), "notes.txt");
  EXPECT_EQ(trace_stem(".json"), ".json");  // a name that is only a suffix keeps it
}

// Each format the list names is one the reader opens: a fixture of each.
TEST(ReadableFormats, EveryListedFormatOpens) {
  namespace fs = std::filesystem;
  const fs::path data = GTV_TEST_DATA_DIR;
  for (const fs::path& file : {data / "nsys" / "two_gpus_kineto.json", data / "pytorch" / "one_gpu_basic.json.gz",
                               data / "nsys" / "two_gpus.sqlite"}) {
    const Expected<Trace> t = read_trace(file.string());
    EXPECT_TRUE(t.ok()) << file << ": " << (t.ok() ? "" : t.error().message);
  }
}

}  // namespace
}  // namespace gtv::io
