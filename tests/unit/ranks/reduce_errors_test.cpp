// Summaries that are not the ranks of one run are refused, each with one line naming the files.
#include <gtest/gtest.h>

#include "generated_run.h"
#include "gtv/ranks/reduce.h"

namespace gtv::ranks {
namespace {

std::vector<RankSummary> generated(int ranks) {
  const testing::GeneratedRun g = testing::generate_run({.ranks = ranks, .steps = 5, .straggler = 1, .seed = 2});
  std::vector<RankSummary> out;
  for (int r = 0; r < ranks; ++r) out.push_back(summarize(g.files[r], "rank" + std::to_string(r) + ".json").front());
  return out;
}

std::string error_of(const std::vector<RankSummary>& s, const RankMergeOptions& options = {}) {
  const Expected<RankReport> r = reduce(s, options);
  return r.ok() ? "(reduced)" : r.error().message;
}

TEST(ReduceErrors, ARankTwice) {
  std::vector<RankSummary> s = generated(3);
  s[2].distributed.rank = 1;
  EXPECT_EQ(error_of(s), "rank1.json and rank2.json are both rank 1");
}

TEST(ReduceErrors, WorldSizesDisagree) {
  std::vector<RankSummary> s = generated(3);
  s[2].distributed.world_size = 4;
  EXPECT_EQ(error_of(s), "world sizes disagree: rank0.json says 3, rank2.json says 4");
}

TEST(ReduceErrors, ARankOutsideItsWorldAndSomeWithoutRanks) {
  std::vector<RankSummary> s = generated(3);
  s[1].distributed.rank = 7;
  EXPECT_EQ(error_of(s), "rank1.json is rank 7 but the world size is 3");
  s = generated(3);
  s[1].distributed.rank = -1;
  EXPECT_EQ(error_of(s).rfind("rank0.json says its rank (distributedInfo) but rank1.json does not", 0), 0u);
}

TEST(ReduceErrors, RecordingsHoursApart) {
  std::vector<RankSummary> s = generated(2);
  s[1].origin_unix_ns += 5 * 3600 * kNsPerS;
  EXPECT_EQ(error_of(s), "rank1.json starts 5.0 h after rank0.json: recordings of different runs?");
  RankMergeOptions allowed;
  allowed.allow_far_apart = true;
  EXPECT_EQ(error_of(s, allowed), "(reduced)");
}

TEST(ReduceErrors, MergedRunsMixedWithRankFilesOrWithEachOther) {
  std::vector<RankSummary> s = generated(3);
  for (RankSummary& x : s) {
    x.from_merged_run = true;
    x.merged_rank.rank = x.distributed.rank;
    x.source = "run.json.gz";
  }
  EXPECT_EQ(error_of(s), "(reduced)");
  RankMergeOptions collectives;
  collectives.clock = ClockMethod::Collectives;
  EXPECT_EQ(error_of(s, collectives).rfind("run.json.gz is a merged run, its clocks already aligned", 0), 0u);
  std::vector<RankSummary> other = s;
  other[2].source = "other.json.gz";
  EXPECT_EQ(error_of(other), "run.json.gz and other.json.gz are ranks of two different merged runs");
  std::vector<RankSummary> mixed = s;
  mixed[1].from_merged_run = false;
  mixed[1].source = "rank1.json";
  EXPECT_EQ(error_of(mixed),
            "run.json.gz is a merged run and rank1.json a rank's own file: reduce the summaries of one or the other");
  EXPECT_EQ(error_of({}), "no rank summaries to reduce");
}

TEST(ReduceErrors, MissingRanksAreWarnedOfNotRefused) {
  std::vector<RankSummary> s = generated(4);
  s.erase(s.begin() + 2);
  const Expected<RankReport> r = reduce(s);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_FALSE(r->warnings.empty());
  EXPECT_EQ(r->warnings.front(),
            "world size 4, but no file for rank 2; collectives wait for ranks this view does not show");
}

TEST(ReduceErrors, ShiftsForRanksNoFileHolds) {
  RankMergeOptions options;
  options.manual_shift_ns[9] = 1000;
  EXPECT_EQ(error_of(generated(2), options), "a shift is given for rank 9, which no file holds");
}

}  // namespace
}  // namespace gtv::ranks
