#include "rank_summaries.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <ostream>
#include <sstream>
#include <thread>

#include "gtv/ranks/reduce.h"
#include "load.h"

namespace gtv::cli {
namespace {

struct FileResult {
  bool done = false;
  bool ok = false;
  std::string err;  // what reading the file said on stderr: warnings, or its one-line error
  std::vector<ranks::RankSummary> summaries;
};

// Reads and summarizes one file; the trace is gone when this returns.
void summarize_one(const std::string& path, FileResult& result) {
  std::ostringstream out;
  std::ostringstream err;
  try {
    const std::optional<Trace> trace = load_trace_or_report(path, Io{out, err});
    if (trace) result.summaries = ranks::summarize(*trace, path);
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

std::optional<std::vector<ranks::RankSummary>> summarize_files_or_report(const std::vector<std::string>& paths,
                                                                         unsigned jobs, Io io) {
  if (paths.empty()) return std::vector<ranks::RankSummary>{};
  std::vector<FileResult> results(paths.size());
  // Files are taken in order, so when file k fails every file before it has been taken and will finish: the first
  // unreadable file in the given order is always found, whichever thread gets there first.
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  auto work = [&] {
    while (!failed.load()) {
      const std::size_t i = next.fetch_add(1);
      if (i >= paths.size()) return;
      summarize_one(paths[i], results[i]);
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
  std::vector<ranks::RankSummary> out;
  for (FileResult& r : results) {
    if (!r.done) break;  // not taken: a file before it failed
    io.err << r.err;
    if (!r.ok) return std::nullopt;
    for (ranks::RankSummary& s : r.summaries) out.push_back(std::move(s));
    r.summaries = {};
  }
  return out;
}

int print_reduction(std::span<const ranks::RankSummary> summaries, const RankMergeOptions& options,
                    analysis::Format format, analysis::Listing listing, Io io) {
  const Expected<ranks::RankReport> report = ranks::reduce(summaries, options);
  if (!report) return input_error(report.error().message, io);
  for (const std::string& warning : report->warnings) io.err << "gtv-cli: warning: " << warning << "\n";
  if (report->summary.ranks.empty())
    io.err << "gtv-cli: note: " << summaries.front().source << " is one rank: nothing to compare across ranks\n";
  io.out << ranks::format_rank_report(*report, format, listing);
  return kExitOk;
}

}  // namespace gtv::cli
