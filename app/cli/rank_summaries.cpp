#include "rank_summaries.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <ostream>
#include <sstream>
#include <thread>

#include "gtv/analysis/report.h"
#include "gtv/ranks/reduce.h"
#include "load.h"
#include "rank_verdicts.h"

namespace gtv::cli {
namespace {

struct FileResult {
  bool done = false;
  bool ok = false;
  std::string err;  // what reading the file said on stderr: warnings, or its one-line error
  std::vector<ranks::RankSummary> summaries;
  std::vector<std::string> verdict;
};

// Reads and summarizes one file (and analyses it, with_verdict); the trace is gone when this returns. The analysis
// runs serially: the files' threads are the parallelism.
void summarize_one(const std::string& path, bool with_verdict, FileResult& result) {
  std::ostringstream out;
  std::ostringstream err;
  try {
    const std::optional<Trace> trace = load_trace_or_report(path, Io{out, err});
    if (trace) result.summaries = ranks::summarize(*trace, path);
    if (trace && with_verdict) result.verdict = analysis::analyze(*trace, analysis::Parallelism::Serial).verdict;
    result.ok = trace.has_value();
  } catch (const std::exception& e) {  // out of memory, say: this file's error, not the process's end
    result.summaries.clear();
    result.ok = false;
    err << "gtv-cli: " << path << ": " << e.what() << "\n";
  }
  result.err = err.str();
  result.done = true;
}

}  // namespace

unsigned default_summary_jobs() { return std::clamp(std::thread::hardware_concurrency(), 1u, kMaxDefaultJobs); }

std::optional<RankFiles> summarize_files_or_report(const std::vector<std::string>& paths, unsigned jobs,
                                                   bool with_verdicts, Io io) {
  if (paths.empty()) return RankFiles{};
  std::vector<FileResult> results(paths.size());
  // Files are taken in order, so when file k fails every file before it has been taken and will finish: the first
  // unreadable file in the given order is always found, whichever thread gets there first.
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  auto work = [&] {
    while (!failed.load()) {
      const std::size_t i = next.fetch_add(1);
      if (i >= paths.size()) return;
      summarize_one(paths[i], with_verdicts, results[i]);
      if (!results[i].ok) failed.store(true);
    }
  };
  const std::size_t threads = std::clamp<std::size_t>(jobs, 1, paths.size());
  {
    std::vector<std::jthread> pool;
    pool.reserve(threads - 1);
    for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
  }
  RankFiles out;
  for (std::size_t i = 0; i < results.size(); ++i) {
    FileResult& r = results[i];
    if (!r.done) break;  // not taken: a file before it failed
    io.err << r.err;
    if (!r.ok) return std::nullopt;
    for (ranks::RankSummary& s : r.summaries) out.summaries.push_back(std::move(s));
    r.summaries = {};
    if (with_verdicts) out.verdicts.push_back({paths[i], std::move(r.verdict)});
  }
  return out;
}

int print_reduction(std::span<const ranks::RankSummary> summaries, const RankMergeOptions& options,
                    analysis::Format format, analysis::Listing listing, Io io, std::span<const FileVerdict> verdicts) {
  const Expected<ranks::RankReport> report = ranks::reduce(summaries, options);
  if (!report) return input_error(report.error().message, io);
  for (const std::string& warning : report->warnings) io.err << "gtv-cli: warning: " << warning << "\n";
  if (report->summary.ranks.empty())
    io.err << "gtv-cli: note: " << summaries.front().source << " is one rank: nothing to compare across ranks\n";
  const std::string text = ranks::format_rank_report(*report, format, listing);
  io.out << (verdicts.empty() ? text : with_rank_verdicts(text, *report, verdicts, format, listing));
  return kExitOk;
}

}  // namespace gtv::cli
