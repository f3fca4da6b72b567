// Every bundled recording: the plan the changes edit, replayed unchanged, reproduces the recorded window exactly
// (the band counts this error, said to be 0 ns), and every change either predicts or says why it does not apply.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "gtv/io/trace_file.h"
#include "gtv/whatif/predict.h"

namespace gtv::whatif {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> bundled_recordings() {
  const fs::path traces = fs::path(GTV_TEST_DATA_DIR).parent_path().parent_path() / "resources" / "traces";
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(traces))
    if (e.is_regular_file() && e.path().string().ends_with(".json.gz")) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(WhatifBundled, UnchangedPlanReplaysEveryRecordingExactlyAndEveryChangeAnswers) {
  const std::vector<fs::path> traces = bundled_recordings();
  ASSERT_GE(traces.size(), 20u);
  const char* const kChanges[] = {"streams",
                                  "pinned",
                                  "graphs",
                                  "no-launch-blocking",
                                  "processes",
                                  "placement=0,0,0",
                                  "no-sync=cudaDeviceSynchronize"};
  for (const fs::path& path : traces) {
    SCOPED_TRACE(path.string());
    Expected<Trace> trace = io::read_trace(path.string());
    ASSERT_TRUE(trace.ok()) << trace.error().message;
    for (const char* text : kChanges) {
      SCOPED_TRACE(text);
      const std::vector<Change> changes = {*parse_change(text)};
      Expected<Prediction> p = predict(*trace, changes);
      if (!p) {
        // A refusal is one line that names the change.
        EXPECT_TRUE(p.error().message.starts_with(std::string(text) + ": ")) << p.error().message;
        EXPECT_EQ(p.error().message.find('\n'), std::string::npos);
        continue;
      }
      EXPECT_EQ(p->replayed_ns, p->recorded_ns);
      EXPECT_GT(p->predicted_ns, 0);
      EXPECT_LE(p->low_ns, p->predicted_ns);
      EXPECT_GE(p->high_ns, p->predicted_ns);
      EXPECT_FALSE(p->applied.empty());
      EXPECT_FALSE(p->assumptions.empty());
    }
  }
}

}  // namespace
}  // namespace gtv::whatif
