#pragma once
// A report as sections of lines and tables, rendered as plain text (to read aloud or print) or Markdown, so
// both formats always hold the same content.
#include <string>
#include <vector>

namespace gtv::analysis::detail {

struct Table {
  std::vector<std::string> header;
  std::vector<bool> right_aligned;  // per column; numbers read better aligned right
  std::vector<std::vector<std::string>> rows;
  std::string note;  // e.g. "12 more kernels not shown"
};

struct Section {
  std::string title;
  std::vector<std::string> lines;  // bullets in Markdown
  std::vector<Table> tables;
};

struct Document {
  std::string title;
  std::vector<std::string> verdict;  // first, in plain words
  std::string basis;                 // after the verdict, plain: what the report was computed from; may be empty
  std::vector<Section> sections;
};

[[nodiscard]] std::string render_text(const Document& doc);
[[nodiscard]] std::string render_markdown(const Document& doc);

}  // namespace gtv::analysis::detail
