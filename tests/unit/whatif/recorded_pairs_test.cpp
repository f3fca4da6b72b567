// The table of recorded pairs: every recording it names is bundled, every change list parses, and a pair is found
// by its recorded run and changes (and only by exactly those).
#include "gtv/whatif/recorded_pairs.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace gtv::whatif {
namespace {

namespace fs = std::filesystem;

std::string traces_dir() {
  return (fs::path(GTV_TEST_DATA_DIR).parent_path().parent_path() / "resources" / "traces").string();
}

TEST(RecordedPairs, EveryRecordingIsBundledAndEveryChangeListParses) {
  EXPECT_EQ(scored_pairs().size(), 9u);
  for (const auto pairs : {scored_pairs(), further_pairs(), profiler_pairs()}) {
    for (const RecordedPair& p : pairs) {
      SCOPED_TRACE(std::string(p.from) + " -> " + std::string(p.to));
      EXPECT_TRUE(fs::is_regular_file(recording_path(traces_dir(), p.from)));
      EXPECT_TRUE(fs::is_regular_file(recording_path(traces_dir(), p.to)));
      Expected<std::vector<Change>> changes = parse_changes(p.changes);
      ASSERT_TRUE(changes.ok()) << changes.error().message;
      EXPECT_FALSE(changes->empty());
    }
  }
}

TEST(RecordedPairs, FoundByRecordedRunAndChanges) {
  const RecordedPair* p = find_recorded_pair("h200x1/sequential", "streams");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(std::string_view(p->to), "h200x1/streams");
  const RecordedPair* further = find_recorded_pair("h200x2/sequential", "streams");
  ASSERT_NE(further, nullptr);
  EXPECT_EQ(std::string_view(further->to), "h200x2/streams");
  EXPECT_EQ(find_recorded_pair("h200x1/sequential", "pinned"), nullptr);
  EXPECT_EQ(find_recorded_pair("h200x1/streams", "streams"), nullptr);
}

TEST(RecordedPairs, ParseChangesSplitsOnSpacesAndNamesTheBadOne) {
  Expected<std::vector<Change>> two = parse_changes("placement=0,0,0  streams");
  ASSERT_TRUE(two.ok());
  ASSERT_EQ(two->size(), 2u);
  EXPECT_EQ((*two)[0].kind, ChangeKind::Placement);
  EXPECT_EQ((*two)[1].kind, ChangeKind::Streams);
  Expected<std::vector<Change>> bad = parse_changes("streams faster");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("faster"), std::string::npos) << bad.error().message;
  EXPECT_EQ(recording_path("/t", "h200x1/streams"), "/t/h200x1/streams.json.gz");
}

}  // namespace
}  // namespace gtv::whatif
