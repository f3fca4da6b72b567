// reduce(summarize(each rank)) against the analysis of the merged run, field by field: the ranks, the world, the
// clock alignment and every straggler value (the event references aside: a summary keeps none), and the cross-rank
// report in text, Markdown and JSON. On every bundled multi-rank recording and on generated runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <string>
#include <vector>

#include "generated_run.h"
#include "gtv/analysis/report.h"
#include "gtv/io/trace_file.h"
#include "gtv/model/rank_merge.h"
#include "gtv/ranks/reduce.h"
#include "gtv/ranks/summary_file.h"
#include "gtv/whatif/predict.h"

namespace gtv::ranks {
namespace {

const std::string kData = GTV_TEST_DATA_DIR;
const std::string kResources = kData + "/../../resources/traces";

Trace load(const std::string& path) {
  Expected<Trace> t = io::read_trace(path);
  if (!t) throw std::runtime_error(t.error().message);
  return std::move(t).value();
}

// Through the file format and back: what reduce sees is what a .gtvsum holds.
std::vector<RankSummary> through_file(const std::vector<RankSummary>& summaries) {
  Expected<std::vector<RankSummary>> back = read_summary_bytes(summary_file_bytes(summaries), "test.gtvsum");
  if (!back) throw std::runtime_error(back.error().message);
  return std::move(back).value();
}

void expect_equal(const analysis::Stragglers& a, const analysis::Stragglers& b) {
  EXPECT_EQ(a.ranks, b.ranks);
  EXPECT_EQ(a.count_differences, b.count_differences);
  EXPECT_EQ(a.by_sequence, b.by_sequence);
  EXPECT_EQ(a.clock_residual_ns, b.clock_residual_ns);
  EXPECT_EQ(a.clock_inconsistent, b.clock_inconsistent);
  EXPECT_EQ(a.headline, b.headline);
  EXPECT_EQ(a.lines, b.lines);
  EXPECT_EQ(a.clock.kinds, b.clock.kinds);
  EXPECT_EQ(a.clock.collectives, b.clock.collectives);
  EXPECT_EQ(a.clock.residual_ns, b.clock.residual_ns);
  ASSERT_EQ(a.clock.ranks.size(), b.clock.ranks.size());
  for (std::size_t r = 0; r < a.clock.ranks.size(); ++r) {
    EXPECT_EQ(a.clock.ranks[r].offset_ns, b.clock.ranks[r].offset_ns) << "rank index " << r;
    EXPECT_EQ(a.clock.ranks[r].uncertainty_ns, b.clock.ranks[r].uncertainty_ns) << "rank index " << r;
  }
  ASSERT_EQ(a.per_rank.size(), b.per_rank.size());
  for (std::size_t r = 0; r < a.per_rank.size(); ++r) {
    const analysis::RankWaits &x = a.per_rank[r], &y = b.per_rank[r];
    EXPECT_EQ(x.rank, y.rank);
    EXPECT_EQ(x.arrived_last, y.arrived_last);
    EXPECT_EQ(x.caused_ns, y.caused_ns);
    EXPECT_EQ(x.waited_ns, y.waited_ns);
    EXPECT_EQ(x.clock_offset_ns, y.clock_offset_ns);
    EXPECT_EQ(x.clock_uncertainty_ns, y.clock_uncertainty_ns);
  }
  ASSERT_EQ(a.collectives.size(), b.collectives.size());
  for (std::size_t i = 0; i < a.collectives.size(); ++i) {
    const analysis::CollectiveArrivals &x = a.collectives[i], &y = b.collectives[i];
    SCOPED_TRACE("collective " + std::to_string(i));
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.ordinal, y.ordinal);
    EXPECT_EQ(x.seq, y.seq);
    EXPECT_EQ(x.on_gpu, y.on_gpu);
    EXPECT_EQ(x.arrival_ns, y.arrival_ns);
    EXPECT_EQ(x.end_ns, y.end_ns);
    EXPECT_EQ(x.wait_ns, y.wait_ns);
    EXPECT_EQ(x.transfer_ns, y.transfer_ns);
    EXPECT_EQ(x.root, y.root);
    EXPECT_EQ(x.root_inferred, y.root_inferred);
    EXPECT_EQ(x.analysed, y.analysed);
    EXPECT_EQ(x.last, y.last);
    EXPECT_EQ(x.spread_ns, y.spread_ns);
    EXPECT_EQ(x.culprit, y.culprit);
    EXPECT_EQ(x.wait_caused_ns, y.wait_caused_ns);
    EXPECT_EQ(x.clock_inconsistent, y.clock_inconsistent);
  }
}

// The merged run's analysis against the reduction; pids_kept: the summaries come from a merged run, whose rank
// table (host pids included) they carry.
void expect_equal(const analysis::Report& merged, const RankReport& reduced, bool pids_kept) {
  const analysis::TraceSummary &m = merged.summary, &r = reduced.summary;
  EXPECT_EQ(m.distributed, r.distributed);
  EXPECT_EQ(m.clock, r.clock);
  EXPECT_EQ(m.origin_unix_ns, r.origin_unix_ns);
  EXPECT_EQ(m.start_ns, r.start_ns);
  EXPECT_EQ(m.end_ns, r.end_ns);
  ASSERT_EQ(m.ranks.size(), r.ranks.size());
  for (std::size_t i = 0; i < m.ranks.size(); ++i) {
    RankInfo expected = m.ranks[i];
    if (!pids_kept) expected.pids.clear();
    EXPECT_EQ(expected, r.ranks[i]) << "rank " << m.ranks[i].rank;
  }
  expect_equal(merged.stragglers, reduced.stragglers);
  // The critical path across ranks is reduce's own part (step_paths_test.cpp); without it, analyze's report.
  RankReport without_paths = reduced;
  without_paths.step_paths = {};
  without_paths.balanced_ranks.reset();
  without_paths.balanced_ranks_error.clear();
  for (analysis::Format f : {analysis::Format::Text, analysis::Format::Markdown, analysis::Format::Json})
    EXPECT_EQ(analysis::format_ranks(merged, f, analysis::Listing::All, std::string(kReducedBasis)),
              format_rank_report(without_paths, f, analysis::Listing::All));
}

// The balanced-ranks prediction of the reduction against `gtv-cli whatif MERGED --change balanced-ranks`: the same
// window, point, band, path and sentences, or the same reason it does not apply. True when it predicted.
bool expect_balanced_equal(const Trace& merged, const RankReport& reduced) {
  const std::array<whatif::Change, 1> change{whatif::Change{whatif::ChangeKind::BalancedRanks, {}, {}}};
  const Expected<whatif::Prediction> expected = whatif::predict(merged, change);
  if (!expected) {
    EXPECT_FALSE(reduced.balanced_ranks.has_value());
    if (reduced.stragglers.ranks.size() >= 2) {
      EXPECT_EQ(expected.error().message, reduced.balanced_ranks_error);
    }
    return false;
  }
  EXPECT_TRUE(reduced.balanced_ranks_error.empty()) << reduced.balanced_ranks_error;
  if (!reduced.balanced_ranks) {
    ADD_FAILURE() << "the reduction has no balanced-ranks prediction; the merged run predicts "
                  << expected->predicted_ns << " ns";
    return false;
  }
  const whatif::Prediction &e = *expected, &r = *reduced.balanced_ranks;
  EXPECT_EQ(e.window, r.window);
  EXPECT_EQ(e.whole_trace, r.whole_trace);
  EXPECT_EQ(e.recorded_ns, r.recorded_ns);
  EXPECT_EQ(e.replayed_ns, r.replayed_ns);
  EXPECT_EQ(e.predicted_ns, r.predicted_ns);
  EXPECT_EQ(e.low_ns, r.low_ns);
  EXPECT_EQ(e.high_ns, r.high_ns);
  EXPECT_EQ(e.path.size(), r.path.size());
  for (std::size_t i = 0; i < std::min(e.path.size(), r.path.size()); ++i) {
    EXPECT_EQ(e.path[i].what, r.path[i].what);
    EXPECT_EQ(e.path[i].ns, r.path[i].ns);
  }
  EXPECT_EQ(e.applied, r.applied);
  EXPECT_EQ(e.assumptions, r.assumptions);
  EXPECT_EQ(e.warnings, r.warnings);
  for (analysis::Format f : {analysis::Format::Text, analysis::Format::Json})
    EXPECT_EQ(whatif::format_prediction(e, change, f), whatif::format_prediction(r, change, f));
  return true;
}

// Per-rank files: merged and analysed, against their summaries reduced.
bool check_rank_files(const std::vector<const Trace*>& traces, const std::vector<std::string>& names,
                      const RankMergeOptions& options) {
  std::vector<RankFile> files;
  std::vector<RankSummary> summaries;
  for (std::size_t i = 0; i < traces.size(); ++i) {
    files.push_back({traces[i], names[i]});
    for (RankSummary& s : summarize(*traces[i], names[i])) summaries.push_back(std::move(s));
  }
  const Expected<RankMerge> merged = merge_ranks(files, options);
  EXPECT_TRUE(merged.ok()) << merged.error().message;
  const Expected<RankReport> reduced = reduce(through_file(summaries), options);
  EXPECT_TRUE(reduced.ok()) << reduced.error().message;
  if (!merged || !reduced) return false;
  EXPECT_EQ(merged->warnings, reduced->warnings);
  expect_equal(analysis::analyze(merged->trace, analysis::Parallelism::Serial), *reduced, false);
  return expect_balanced_equal(merged->trace, *reduced);
}

TEST(ReduceEquality, GlooRankFilesOnTheWallClock) {
  const Trace r0 = load(kData + "/pytorch/ddp_gloo_rank0.json.gz"),
              r1 = load(kData + "/pytorch/ddp_gloo_rank1.json.gz");
  check_rank_files({&r0, &r1}, {"ddp_gloo_rank0.json.gz", "ddp_gloo_rank1.json.gz"}, {});
}

// The bundled rank files of a Gloo run with and without a straggler: reduce predicts balanced-ranks as the what-if
// of their merged run does, to the nanosecond.
TEST(ReduceEquality, BundledGlooRankFilesPredictBalancedRanksAlike) {
  for (const std::string name : {"ddp-gloo", "ddp-gloo-straggler"}) {
    SCOPED_TRACE(name);
    const std::string base = kResources + "/pytorch-h200x1/" + name;
    const Trace r0 = load(base + ".rank0.json.gz"), r1 = load(base + ".rank1.json.gz");
    EXPECT_TRUE(check_rank_files({&r0, &r1}, {name + ".rank0.json.gz", name + ".rank1.json.gz"}, {}));
  }
}

TEST(ReduceEquality, GlooRankFilesOnTheCollectivesWithAShiftByHand) {
  const Trace r0 = load(kData + "/pytorch/ddp_gloo_rank0.json.gz"),
              r1 = load(kData + "/pytorch/ddp_gloo_rank1.json.gz");
  RankMergeOptions options;
  options.clock = ClockMethod::Collectives;
  options.manual_shift_ns[1] = -250'000;
  // Given in the other order: the ranks come from the files' distributedInfo, not their order.
  check_rank_files({&r1, &r0}, {"b.json.gz", "a.json.gz"}, options);
}

// Every bundled recording: a merged run reduces to its own analysis; a lone rank to nothing across ranks.
TEST(ReduceEquality, EveryBundledRecording) {
  std::size_t merged_runs = 0, predicted = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(kResources)) {
    const std::string path = entry.path().string();
    if (!path.ends_with(".json.gz")) continue;
    SCOPED_TRACE(path);
    const Trace trace = load(path);
    const std::vector<RankSummary> summaries = through_file(summarize(trace, path));
    const Expected<RankReport> reduced = reduce(summaries);
    ASSERT_TRUE(reduced.ok()) << reduced.error().message;
    const analysis::Report report = analysis::analyze(trace, analysis::Parallelism::Serial);
    if (trace.metadata().ranks.size() >= 2) {
      ++merged_runs;
      expect_equal(report, *reduced, true);
      predicted += expect_balanced_equal(trace, *reduced) ? 1 : 0;
    } else {
      EXPECT_TRUE(reduced->summary.ranks.empty());
      EXPECT_TRUE(reduced->stragglers.collectives.empty());
      EXPECT_EQ(
          analysis::format_ranks(report, analysis::Format::Text, analysis::Listing::Capped, std::string(kReducedBasis)),
          format_rank_report(*reduced, analysis::Format::Text));
    }
  }
  EXPECT_GE(merged_runs, 3u);  // resources/traces/cpu: ddp-gloo2, ddp-gloo2-straggler, ddp-gloo4-straggler
  EXPECT_GE(predicted, 3u);
}

// An all-reduce kernel of rank `device` with PyTorch's sequence number and process group in its args.
void sequenced_all_reduce(TraceBuilder& b, std::int64_t device, TimeNs start_ns, TimeNs duration_ns, int seq) {
  Event e =
      analysis::testing::make_event(b, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                                    start_ns, duration_ns, EventKind::Kernel);
  const std::string number = std::to_string(seq);
  const EventArg args[] = {{"Seq", number}, {"Process Group Name", "\"0\""}};
  e.args = b.add_args(args);
  b.add_kernel(b.lane(gpu_lane_key(device, 7)), e, KernelDetail{});
}

// Sequence numbers that contradict the order the ranks ran their collectives in: both the merge and the reduction
// match by order and warn alike.
TEST(ReduceEquality, SequenceNumbersNotUsedAreWarnedOfAlike) {
  std::vector<Trace> files;
  for (std::int64_t r = 0; r < 2; ++r) {
    TraceBuilder b;
    b.metadata().origin_unix_ns = 1'790'857'026'000'000'000;
    b.metadata().distributed = {r, 2, "nccl"};
    const std::vector<int> order = r == 0 ? std::vector<int>{1, 2, 3} : std::vector<int>{2, 1, 3};
    for (std::size_t k = 0; k < order.size(); ++k)
      sequenced_all_reduce(b, r, 1'000'000 * static_cast<TimeNs>(k + 1) + r * 10'000, 200'000, order[k]);
    files.push_back(analysis::testing::build(b));
  }
  const std::vector<RankFile> rank_files{{&files[0], "a.json"}, {&files[1], "b.json"}};
  const Expected<RankMerge> merged = merge_ranks(rank_files);
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  ASSERT_FALSE(merged->warnings.empty());
  EXPECT_EQ(merged->warnings.back(),
            "collectives are matched by process group, kind, size and order (the trace's sequence numbers were not "
            "used: sequence number 2 in group 0: rank 1 ran it before a collective that rank 0 ran earlier)");
  check_rank_files({&files[0], &files[1]}, {"a.json", "b.json"}, {});
}

bool check_generated(const testing::RunSpec& spec, ClockMethod clock) {
  const testing::GeneratedRun g = testing::generate_run(spec);
  std::vector<const Trace*> traces;
  std::vector<std::string> names;
  for (int r = 0; r < spec.ranks; ++r) {
    traces.push_back(&g.files[r]);
    names.push_back("rank" + std::to_string(r) + ".json");
  }
  RankMergeOptions options;
  options.clock = clock;
  return check_rank_files(traces, names, options);
}

TEST(ReduceEquality, GeneratedEightRanksOnTheCollectives) {
  EXPECT_TRUE(check_generated({.delay_ns = 200 * testing::kUs, .seed = 7}, ClockMethod::Collectives));
}
TEST(ReduceEquality, GeneratedEightRanksOnTheWallClock) {
  // Clocks 50 ms apart on the wall clock: the clocks contradict the waits, and both say so alike.
  check_generated({.seed = 8}, ClockMethod::WallClock);
}
TEST(ReduceEquality, GeneratedThirtyTwoRanks) {
  EXPECT_TRUE(check_generated({.ranks = 32, .steps = 20, .straggler = 30, .seed = 10}, ClockMethod::Collectives));
}
TEST(ReduceEquality, GeneratedRanksNumberedByFileOrder) {
  check_generated({.ranks = 4, .steps = 10, .straggler = 2, .seed = 3, .say_ranks = false}, ClockMethod::Collectives);
}

}  // namespace
}  // namespace gtv::ranks
