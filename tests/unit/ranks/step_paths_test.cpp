// Each step's critical path across ranks, on generated runs with a planted straggler: the straggler bounds every
// step, its work and its part of the all-reduce are the planted ones, and each step's links run without gap or
// overlap from its start to its end.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "generated_run.h"
#include "gtv/ranks/reduce.h"
#include "gtv/ranks/summary_file.h"

namespace gtv::ranks {
namespace {

using testing::kUs;

std::vector<RankSummary> summaries_of(const testing::GeneratedRun& g) {
  std::vector<RankSummary> out;
  for (std::size_t r = 0; r < g.files.size(); ++r)
    for (RankSummary& s : summarize(g.files[r], "rank" + std::to_string(r) + ".json")) out.push_back(std::move(s));
  // Through the file format: what reduce sees is what a .gtvsum holds.
  Expected<std::vector<RankSummary>> back = read_summary_bytes(summary_file_bytes(out), "run.gtvsum");
  if (!back) throw std::runtime_error(back.error().message);
  return std::move(back).value();
}

RankReport reduced(const std::vector<RankSummary>& summaries) {
  RankMergeOptions options;
  options.clock = ClockMethod::Collectives;
  Expected<RankReport> r = reduce(summaries, options);
  if (!r) throw std::runtime_error(r.error().message);
  return std::move(r).value();
}

// The straggler bounds every step with the planted work: it computes 1 ms +/- 50 us plus the delay before each
// all-reduce, whose part then runs 200-203 us after its arrival (it arrives last); the links are contiguous.
void expect_straggler_bounds_every_step(const RankReport& report, const testing::RunSpec& spec) {
  const StepPaths& p = report.step_paths;
  ASSERT_EQ(p.steps.size(), static_cast<std::size_t>(spec.steps));
  // Every matched collective is in one step, in order; a step's collective links name its own collectives.
  std::vector<std::size_t> held;
  for (const StepPath& step : p.steps) held.insert(held.end(), step.collectives.begin(), step.collectives.end());
  ASSERT_EQ(held.size(), report.stragglers.collectives.size());
  for (std::size_t i = 0; i < held.size(); ++i) EXPECT_EQ(held[i], i);
  for (const StepPath& step : p.steps) {
    SCOPED_TRACE(step.name);
    for (const PathLink& l : step.links)
      if (l.kind == LinkKind::Collective) {
        EXPECT_NE(std::find(step.collectives.begin(), step.collectives.end(), static_cast<std::size_t>(l.collective)),
                  step.collectives.end());
      }
    EXPECT_EQ(step.bounding_rank, spec.straggler);
    EXPECT_GE(step.bounding_work_ns, 950 * kUs + spec.delay_ns);
    ASSERT_FALSE(step.links.empty());
    EXPECT_EQ(step.links.front().start_ns, step.start_ns);
    EXPECT_EQ(step.links.back().end_ns, step.end_ns);
    TimeNs total = 0;
    for (std::size_t i = 0; i < step.links.size(); ++i) {
      const PathLink& l = step.links[i];
      EXPECT_GT(l.end_ns, l.start_ns);
      if (i > 0) {
        EXPECT_EQ(l.start_ns, step.links[i - 1].end_ns) << "link " << i;
      }
      total += l.end_ns - l.start_ns;
    }
    EXPECT_EQ(total, step.end_ns - step.start_ns);
    // The step's all-reduce on the chain: the straggler's part, 200-203 us.
    std::size_t all_reduces = 0;
    for (const PathLink& l : step.links) {
      if (l.kind != LinkKind::Collective) continue;
      if (report.stragglers.collectives[static_cast<std::size_t>(l.collective)].kind != "AllReduce") continue;
      ++all_reduces;
      EXPECT_EQ(l.rank, spec.straggler);
      EXPECT_GE(l.end_ns - l.start_ns, 200 * kUs);
      EXPECT_LE(l.end_ns - l.start_ns, 203 * kUs);
    }
    EXPECT_EQ(all_reduces, 1u);
  }
}

TEST(StepPaths, StepsByTheCollectivesEveryRankWaitsFor) {
  const testing::RunSpec spec{.ranks = 8, .steps = 20, .straggler = 3, .seed = 5};
  const RankReport report = reduced(summaries_of(testing::generate_run(spec)));
  EXPECT_EQ(report.step_paths.basis, StepBasis::Collectives);
  EXPECT_TRUE(report.step_paths.basis_note.empty());
  expect_straggler_bounds_every_step(report, spec);

  const std::string text = format_rank_report(report, analysis::Format::Text);
  EXPECT_NE(text.find("\nCritical path across ranks\n--------------------------\n"), std::string::npos);
  EXPECT_NE(text.find("Bounding rank: rank 3 in 20 of 20 steps."), std::string::npos);
  EXPECT_NE(text.find("the summaries mark no profiler steps"), std::string::npos);
  const std::string json = format_rank_report(report, analysis::Format::Json);
  EXPECT_NE(json.find("\"critical_path_across_ranks\": {\n    \"basis\": \"collectives\""), std::string::npos);
  EXPECT_NE(json.find("\n  },\n  \"balanced_ranks\": {"), std::string::npos);
  EXPECT_TRUE(json.ends_with("\n}\n"));
}

TEST(StepPaths, StepsByTheProfilerStepsTheRanksMark) {
  const testing::RunSpec spec{.ranks = 6, .steps = 15, .straggler = 4, .delay_ns = 500 * kUs, .seed = 9};
  std::vector<RankSummary> summaries = summaries_of(testing::generate_run(spec));
  // Each rank marks its steps from the end of its previous all-reduce (its first activity for the first) to the end
  // of the next, on its own clock.
  for (RankSummary& s : summaries) {
    TimeNs start = s.start_ns;
    for (const Collective& c : s.collectives) {
      if (c.kind != "AllReduce") continue;
      s.steps.push_back({"ProfilerStep#" + std::to_string(s.steps.size()), start, c.end_ns, 0, 0});
      start = c.end_ns;
    }
  }
  const RankReport report = reduced(summaries);
  EXPECT_EQ(report.step_paths.basis, StepBasis::ProfilerSteps);
  expect_straggler_bounds_every_step(report, spec);
  EXPECT_EQ(report.step_paths.steps[7].name, "ProfilerStep#7");

  // A rank that marks one step fewer: the collectives every rank waits for make the steps, and the report says why.
  summaries[2].steps.pop_back();
  const RankReport by_collectives = reduced(summaries);
  EXPECT_EQ(by_collectives.step_paths.basis, StepBasis::Collectives);
  EXPECT_EQ(by_collectives.step_paths.basis_note,
            "the ranks mark different numbers of profiler steps (rank 0 15, rank 1 15, rank 2 14, rank 3 15, rank 4 "
            "15, rank 5 15)");
  expect_straggler_bounds_every_step(by_collectives, spec);
}

TEST(StepPaths, OneRankHasNothingAcrossRanks) {
  const testing::GeneratedRun g = testing::generate_run({.ranks = 2, .steps = 3});
  const std::vector<RankSummary> one = summarize(g.files[0], "rank0.json");
  const Expected<RankReport> report = reduce(one);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->step_paths.basis, StepBasis::None);
  EXPECT_EQ(format_rank_report(*report, analysis::Format::Text).find("Critical path"), std::string::npos);
}

}  // namespace
}  // namespace gtv::ranks
