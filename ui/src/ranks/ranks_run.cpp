#include "gtv/ui/ranks_run.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <system_error>

#include "gtv/ranks/summary_file.h"

namespace gtv::ui {
namespace {

namespace fs = std::filesystem;

bool has_summary_suffix(const fs::path& p) { return p.extension() == ".gtvsum"; }

// The summary's source as given to summarize: used as it is when it exists (absolute, or relative to here), else
// beside the summary (summaries gathered with their rank files), else as it is.
std::string locate_source(const std::string& source, const std::string& summary_file) {
  if (source.empty()) return {};
  std::error_code ec;
  const fs::path given(source);
  if (fs::exists(given, ec)) return fs::absolute(given, ec).string();
  if (given.is_relative() && !summary_file.empty()) {
    const fs::path beside = fs::path(summary_file).parent_path() / given;
    if (fs::exists(beside, ec)) return beside.string();
    const fs::path by_name = fs::path(summary_file).parent_path() / given.filename();
    if (fs::exists(by_name, ec)) return by_name.string();
  }
  return source;
}

}  // namespace

bool is_ranks_input(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(path, ec) || has_summary_suffix(fs::path(path));
}

Expected<RanksRun> load_ranks_run(const std::vector<std::string>& paths, const RankMergeOptions& options) {
  RanksRun run;
  for (const std::string& path : paths) {
    std::error_code ec;
    if (!fs::is_directory(path, ec)) {
      run.summary_files.push_back(path);
      continue;
    }
    std::vector<std::string> found;
    for (const fs::directory_entry& entry : fs::directory_iterator(path, ec))
      if (entry.is_regular_file(ec) && has_summary_suffix(entry.path())) found.push_back(entry.path().string());
    if (ec) return Error{path + ": cannot list the folder (" + ec.message() + ")"};
    if (found.empty())
      return Error{path + ": no rank summaries (*.gtvsum) in the folder; gtv-cli summarize makes them"};
    std::sort(found.begin(), found.end());
    run.summary_files.insert(run.summary_files.end(), found.begin(), found.end());
  }
  if (run.summary_files.empty()) return Error{"no rank summaries given"};
  const fs::path first(paths.front());
  run.title = first.has_filename() ? first.filename().string() : first.parent_path().filename().string();
  std::vector<ranks::RankSummary> summaries;
  for (const std::string& file : run.summary_files) {
    Expected<std::vector<ranks::RankSummary>> read = ranks::read_summary_file(file);
    if (!read) return read.error();
    for (ranks::RankSummary& s : *read) summaries.push_back(std::move(s));
  }
  Expected<ranks::RankReport> report = ranks::reduce(summaries, options);
  if (!report) return report.error();
  run.report = std::move(report).value();
  if (run.report.stragglers.ranks.empty() || run.report.stragglers.collectives.empty())
    return Error{run.title + ": no collectives matched across ranks; nothing to show in a ranks overview"};
  // Each rank's summary by its number: the file's rank, the merged run's for a rank of one, else its place among
  // the files (as reduce numbers ranks whose files do not say).
  std::map<std::int64_t, ranks::RankSummary*> summary_of;
  for (std::size_t i = 0; i < summaries.size(); ++i) {
    ranks::RankSummary& s = summaries[i];
    const std::int64_t rank = s.from_merged_run         ? s.merged_rank.rank
                              : s.distributed.rank >= 0 ? s.distributed.rank
                                                        : static_cast<std::int64_t>(i);
    summary_of[rank] = &s;
  }
  std::map<std::int64_t, TimeNs> shift_of;
  for (const RankInfo& info : run.report.summary.ranks) shift_of[info.rank] = info.shift_ns;
  for (const std::int64_t rank : run.report.stragglers.ranks) {
    const auto summary = summary_of.find(rank);
    const auto shift = shift_of.find(rank);
    // A merged run's summaries are on its one clock already, and their source is the merged trace itself.
    const bool merged = summary != summary_of.end() && summary->second->from_merged_run;
    run.shift_ns.push_back(merged || shift == shift_of.end() ? 0 : shift->second);
    run.rank_files.push_back(
        summary == summary_of.end() ? std::string() : locate_source(summary->second->source, summary->second->file));
    run.rank_steps.push_back(summary == summary_of.end() ? std::vector<ranks::StepWork>()
                                                         : std::move(summary->second->steps));
  }
  return run;
}

}  // namespace gtv::ui
