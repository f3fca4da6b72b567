// Long lists in the text and Markdown forms: a trace with hundreds of GPUs, streams, processes and threads shows the
// first kMaxListedEntries of each list and one line saying how many more there are; Listing::All and JSON show all.
#include <gtest/gtest.h>

#include <string>

#include "gtv/analysis/report.h"
#include "gtv/analysis/summary.h"
#include "trace_helpers.h"

namespace gtv::analysis {
using namespace testing;

namespace {

constexpr int kGpus = 200;
constexpr int kProcesses = 120;
constexpr int kThreadsOfFirstProcess = 80;
constexpr int kCategories = 60;

// kGpus GPUs with one 500 ns kernel each on stream 7, one after another; kProcesses processes with one thread each,
// the first with kThreadsOfFirstProcess threads; kCategories categories besides "kernel" and "cuda_runtime".
Trace crowded_trace() {
  TraceBuilder b;
  for (int gpu = 0; gpu < kGpus; ++gpu) kernel(b, gpu, 7, "k", 1000 * gpu, 500);
  for (int pid = 1; pid <= kProcesses; ++pid) host_call(b, pid, 1, "cudaLaunchKernel", pid, 1);
  for (int tid = 2; tid <= kThreadsOfFirstProcess; ++tid) host_call(b, 1, tid, "cudaLaunchKernel", tid, 1);
  for (int c = 0; c < kCategories; ++c)
    b.add_other(b.lane(host_lane_key(1, 1)), make_event(b, "x", 500 + c, 1, EventKind::Other),
                "category_" + std::to_string(100 + c));
  return build(b);
}

std::size_t count_of(const std::string& text, const std::string& piece) {
  std::size_t n = 0;
  for (std::size_t at = text.find(piece); at != std::string::npos; at = text.find(piece, at + piece.size())) ++n;
  return n;
}

bool has(const std::string& text, const std::string& piece) { return text.find(piece) != std::string::npos; }

}  // namespace

TEST(Listing, CountsAndCutLines) {
  EXPECT_EQ(grouped_count(0), "0");
  EXPECT_EQ(grouped_count(999), "999");
  EXPECT_EQ(grouped_count(99950), "99,950");
  EXPECT_EQ(grouped_count(1234567), "1,234,567");
  EXPECT_EQ(listed_count(200, Listing::Capped, 50), 50u);
  EXPECT_EQ(listed_count(50, Listing::Capped, 50), 50u);
  EXPECT_EQ(listed_count(7, Listing::Capped, 50), 7u);
  EXPECT_EQ(listed_count(200, Listing::All, 50), 200u);
  EXPECT_EQ(left_out_line(50, 50, "GPU", "GPUs", "x"), "");
  EXPECT_EQ(left_out_line(51, 50, "GPU", "GPUs", "x"), "... and 1 more GPU (x)");
  EXPECT_EQ(left_out_line(100000, 50, "GPU", "GPUs", "x"), "... and 99,950 more GPUs (x)");
}

TEST(Listing, InfoShowsTheFirstEntriesOfEachListAndCountsTheRest) {
  const TraceSummary s = summarize(crowded_trace());
  ASSERT_EQ(s.gpus.size(), std::size_t(kGpus));
  ASSERT_EQ(s.processes.size(), std::size_t(kProcesses));
  const std::string text = format_summary_text(s);
  const std::string where = " (gtv-cli info --all lists them; --json has every one)\n";
  // The headings count every entry; the lists stop at kMaxListedEntries, in index / pid / tid / name order.
  EXPECT_TRUE(has(text, "GPUs (200):\n")) << text;
  EXPECT_TRUE(has(text, "Processes (120):\n"));
  EXPECT_EQ(count_of(text, "\n  GPU "), kMaxListedEntries);
  EXPECT_TRUE(has(text, "\n  GPU 49: 1 stream(s)"));
  EXPECT_FALSE(has(text, "\n  GPU 50:"));
  EXPECT_TRUE(has(text, "\n  ... and 150 more GPUs" + where)) << text;
  EXPECT_EQ(count_of(text, "\n  process "), kMaxListedEntries);
  EXPECT_TRUE(has(text, "\n  ... and 70 more processes" + where));
  EXPECT_TRUE(has(text, "\n  process 1: 80 thread(s)\n"));
  EXPECT_TRUE(has(text, "\n    thread 50 \""));
  EXPECT_FALSE(has(text, "\n    thread 51 \""));
  EXPECT_TRUE(has(text, "\n    ... and 30 more threads" + where));
  EXPECT_TRUE(has(text, "\n  category_149: 1\n"));  // 50 of the 62 categories, by name
  EXPECT_FALSE(has(text, "category_150"));
  EXPECT_TRUE(has(text, "\n  ... and 12 more categories" + where));
  EXPECT_EQ(count_of(text, "... and "), 4u);

  const std::string markdown = format_summary(s, Format::Markdown);
  EXPECT_EQ(count_of(markdown, "\n- GPU "), kMaxListedEntries);
  EXPECT_TRUE(has(markdown, "\n- ... and 150 more GPUs" + where)) << markdown;

  const std::string all = format_summary_text(s, Listing::All);
  EXPECT_EQ(count_of(all, "\n  GPU "), std::size_t(kGpus));
  EXPECT_EQ(count_of(all, "\n  process "), std::size_t(kProcesses));
  EXPECT_EQ(count_of(all, "\n    thread "), std::size_t(kProcesses - 1 + kThreadsOfFirstProcess));
  EXPECT_TRUE(has(all, "category_159"));
  EXPECT_FALSE(has(all, "... and "));
  EXPECT_EQ(format_summary(s, Format::Markdown, Listing::All).find("... and "), std::string::npos);

  const std::string json = format_summary_json(s);
  EXPECT_EQ(count_of(json, "\"index\":"), std::size_t(kGpus));
  EXPECT_EQ(count_of(json, "\"pid\":"), std::size_t(kProcesses));
  EXPECT_EQ(count_of(json, "\"tid\":"), std::size_t(kProcesses - 1 + kThreadsOfFirstProcess));
  EXPECT_EQ(json, format_summary(s, Format::Json, Listing::Capped));
}

TEST(Listing, ReportShowsTheFirstGpusAndStreamsButCountsThemAll) {
  const Report r = analyze(crowded_trace());
  ASSERT_EQ(r.busy.gpus.size(), std::size_t(kGpus));
  const std::string text = format_report(r, Format::Text);
  const std::string where = " (gtv-cli analyze --all lists them; --format json has every one)\n";
  // Figures over every GPU, whatever the tables show.
  EXPECT_TRUE(has(text, "on 120 process(es) and 200 GPU(s)")) << text;
  EXPECT_TRUE(has(text, "The 200 GPUs never ran at the same time"));
  EXPECT_TRUE(has(text, "Sum of per-GPU busy time: 100.0 us;"));
  // GPU busy table, stream table, the per-GPU idle lines and the queue table: 50 each, in index order.
  EXPECT_EQ(count_of(text, "\n  ... and 150 more GPUs" + where), 3u);     // busy table, streams of each GPU, idle lines
  EXPECT_EQ(count_of(text, "\n  ... and 150 more streams" + where), 2u);  // busy streams, launch queues
  EXPECT_TRUE(has(text, "\n  GPU 49 was idle for "));
  EXPECT_FALSE(has(text, "\n  GPU 50 was idle for "));
  EXPECT_TRUE(has(text, "\n  49   unknown  500 ns"));
  EXPECT_FALSE(has(text, "\n  50   unknown  500 ns"));

  const std::string markdown = format_report(r, Format::Markdown);
  EXPECT_TRUE(has(markdown, "\n- ... and 150 more GPUs" + where)) << markdown;  // idle lines
  EXPECT_TRUE(has(markdown, "|\n\n... and 150 more GPUs" + where));             // busy table
  EXPECT_FALSE(has(markdown, "| 50 | unknown |"));

  const std::string all = format_report(r, Format::Text, Listing::All);
  EXPECT_FALSE(has(all, "... and ")) << all;
  EXPECT_FALSE(has(all, "not shown."));
  EXPECT_TRUE(has(all, "\n  GPU 199 was idle for "));
  EXPECT_TRUE(has(all, "\n  199  unknown  500 ns"));
  EXPECT_EQ(count_of(all, " was idle for "), std::size_t(kGpus));

  const std::string json = format_report(r, Format::Json);
  EXPECT_EQ(json, format_report(r, Format::Json, Listing::All));
  EXPECT_EQ(count_of(json, "\"activity_count\":"), std::size_t(2 * kGpus));  // busy per GPU and per stream
  EXPECT_EQ(count_of(json, "\"max_depth\":"), std::size_t(kGpus));           // launch queue per stream
  EXPECT_EQ(count_of(json, "\"index\":"), std::size_t(kGpus));               // the summary's GPUs
}

TEST(Listing, RankedTablesShowTheTopRowsUnlessAll) {
  TraceBuilder b;
  for (int k = 0; k < 20; ++k) kernel(b, 0, 7, "kernel_" + std::to_string(k), 1000 * k, 100 + k);
  const Report r = analyze(build(b));
  const std::string capped = format_report(r, Format::Text);
  EXPECT_TRUE(has(capped, "5 more kernels not shown.")) << capped;
  EXPECT_FALSE(has(capped, "kernel_0 "));  // the shortest, ranked last
  const std::string all = format_report(r, Format::Text, Listing::All);
  EXPECT_FALSE(has(all, "not shown."));
  EXPECT_TRUE(has(all, "kernel_0 "));
}

}  // namespace gtv::analysis
