#pragma once
// Output formats shared by every report, and the number formatting that keeps reports deterministic.
#include <cstddef>
#include <string>
#include <string_view>

#include "gtv/base/expected.h"

namespace gtv::analysis {

enum class Format { Text, Markdown, Json };

// How much of a long table or list the text and Markdown forms show; JSON lists every GPU, stream, process and
// thread either way. A trace may name 100,000 GPUs or lanes, and printing each one takes tens of MB and seconds.
enum class Listing {
  Capped,  // the first kMaxListedEntries GPUs, streams, processes, threads or categories of each list (in the
           // list's own order), the top rows of each ranked table, then one line saying how many were left out
  All,     // every entry (gtv-cli info --all, gtv-cli analyze --all)
};

// 50: one process sees at most 8-16 GPUs with a handful of streams each (compute, NCCL, copies), so even the table
// of every stream of every GPU stays under it, and every bundled recording lists in full (their largest lists: 8
// threads of one process, 5 processes, 5 streams); 50 rows still fit in a terminal's scrollback at a glance.
inline constexpr std::size_t kMaxListedEntries = 50;

// How many of total entries a listing shows: all of them, or at most cap.
[[nodiscard]] constexpr std::size_t listed_count(std::size_t total, Listing listing, std::size_t cap) {
  return listing == Listing::All || total < cap ? total : cap;
}

// The line after a cut list: "... and 99,950 more GPUs (gtv-cli analyze --all lists them; --format json has every
// one)", where where_all says where the rest is; empty when nothing was left out. one and many name an entry
// ("GPU", "GPUs").
[[nodiscard]] std::string left_out_line(std::size_t total, std::size_t shown, std::string_view one,
                                        std::string_view many, std::string_view where_all);

// 1234567 -> "1,234,567".
[[nodiscard]] std::string grouped_count(std::size_t count);

// "text", "markdown" (or "md"), "json"; anything else is an error naming the accepted values.
[[nodiscard]] Expected<Format> format_from_string(std::string_view text);

// Fixed decimals, never locale-dependent, never "-0.00".
[[nodiscard]] std::string fixed(double value, int decimals);
// 0.4937 -> "49%" (decimals = 0) or "49.4%".
[[nodiscard]] std::string percent(double ratio, int decimals = 0);

}  // namespace gtv::analysis
