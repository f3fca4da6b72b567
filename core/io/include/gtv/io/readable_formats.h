#pragma once
// The formats gtv reads, in one list that every front end takes its words and file patterns from: the open dialogs,
// drag and drop, the help texts and the CLI's usage. The reader itself never goes by the name (trace_format.h looks
// at the first bytes); these names are what a file chooser filters on and what a label strips.
#include <array>
#include <string>
#include <string_view>

namespace gtv::io {

struct ReadableFormat {
  std::string_view name;                     // "Chrome / Kineto JSON"
  std::array<std::string_view, 2> suffixes;  // the usual file names: plain, then gzip
};

inline constexpr std::array<ReadableFormat, 2> kReadableFormats = {{
    {"Chrome / Kineto JSON (PyTorch profiler, gtv)", {".json", ".json.gz"}},
    {"Nsight Systems SQLite export (nsys export --type sqlite)", {".sqlite", ".sqlite.gz"}},
}};

// "*.json *.json.gz *.sqlite *.sqlite.gz *.gz": every suffix as a file-chooser pattern, then any gzip.
[[nodiscard]] std::string readable_name_patterns();
// ".json, .json.gz, .sqlite or .sqlite.gz": for sentences.
[[nodiscard]] std::string readable_suffixes_in_words();
// The file name without its directories and the longest readable suffix (".gz" alone too): the run's name in
// labels and titles ("streams" for traces/streams.json.gz, "report1" for report1.sqlite).
[[nodiscard]] std::string trace_stem(std::string_view path);

}  // namespace gtv::io
