#include "rank_verdicts.h"

#include "gtv/base/printable.h"

namespace gtv::cli {
namespace {

struct RankVerdict {
  std::int64_t rank = 0;
  const FileVerdict* file = nullptr;
};

// The ranks of the report in rank order, each with its file's verdict.
std::vector<RankVerdict> in_rank_order(const ranks::RankReport& report, std::span<const FileVerdict> verdicts) {
  std::vector<RankVerdict> out;
  for (const RankInfo& info : report.summary.ranks)
    for (const FileVerdict& v : verdicts)
      if (v.source == info.source) {
        out.push_back({info.rank, &v});
        break;
      }
  return out;
}

const std::string kTitle = "Each rank's own verdict";
const std::string kBasis =
    "From each rank's own trace alone, as `gtv-cli analyze RANK_FILE` gives it: not across ranks, its times on that "
    "rank's own clock. ";

std::string basis_line(analysis::Listing listing) {
  if (listing == analysis::Listing::All) return kBasis + "Every line of each verdict.";
  return kBasis + "The first " + std::to_string(kRankVerdictLines) + " lines of each verdict (--all: every line).";
}

std::string text_or_markdown(const std::vector<RankVerdict>& ranks, analysis::Format format,
                             analysis::Listing listing) {
  const bool text = format == analysis::Format::Text;
  std::string out = text ? "\n" + kTitle + "\n" + std::string(kTitle.size(), '-') + "\n" : "\n## " + kTitle + "\n\n";
  const std::string bullet = text ? "  " : "- ";
  out += bullet + basis_line(listing) + "\n";
  const std::size_t shown = analysis::listed_count(ranks.size(), listing, analysis::kMaxListedEntries);
  for (std::size_t i = 0; i < shown; ++i) {
    const RankVerdict& r = ranks[i];
    const std::vector<std::string>& lines = r.file->lines;
    const std::size_t n = listing == analysis::Listing::All ? lines.size() : std::min(lines.size(), kRankVerdictLines);
    std::string rank = "rank " + std::to_string(r.rank);
    if (!text) rank.insert(0, "**").append("**");
    out += bullet + rank + " (" + printable(r.file->source) + "):";
    if (n == 0) out += " its analysis has no verdict";
    for (std::size_t k = 0; k < n; ++k) out += (k == 0 || !text ? " " : "\n    ") + printable(lines[k]);
    out += "\n";
  }
  const std::string left = analysis::left_out_line(ranks.size(), shown, "rank", "ranks",
                                                   "gtv-cli analyze --per-rank --all lists them; --format json has "
                                                   "every one");
  if (!left.empty()) out += bullet + left + "\n";
  return out;
}

std::string json_value(const std::vector<RankVerdict>& ranks) {
  std::string out = "[";
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const RankVerdict& r = ranks[i];
    out += std::string(i == 0 ? "" : ",") + "\n    {\n      \"rank\": " + std::to_string(r.rank) +
           ",\n      \"source\": " + json_quoted(r.file->source) + ",\n      \"verdict\": [";
    for (std::size_t k = 0; k < r.file->lines.size(); ++k)
      out += std::string(k == 0 ? "" : ",") + "\n        " + json_quoted(r.file->lines[k]);
    out += r.file->lines.empty() ? "]\n    }" : "\n      ]\n    }";
  }
  return out + (ranks.empty() ? "]" : "\n  ]");
}

}  // namespace

std::string with_rank_verdicts(const std::string& report_text, const ranks::RankReport& report,
                               std::span<const FileVerdict> verdicts, analysis::Format format,
                               analysis::Listing listing) {
  const std::vector<RankVerdict> ranks = in_rank_order(report, verdicts);
  if (format != analysis::Format::Json) return report_text + text_or_markdown(ranks, format, listing);
  // Into the report's top-level object, as its last field.
  const std::size_t close = report_text.rfind('}');
  if (close == std::string::npos) return report_text;
  std::size_t before = close;
  while (before > 0 && (report_text[before - 1] == '\n' || report_text[before - 1] == ' ')) --before;
  return report_text.substr(0, before) + ",\n  \"ranks_own_verdict\": " + json_value(ranks) + "\n}\n";
}

}  // namespace gtv::cli
