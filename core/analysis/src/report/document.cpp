#include "report/document.h"

#include <algorithm>

#include "gtv/base/printable.h"

namespace gtv::analysis::detail {
namespace {

// Every piece of a report may hold names from the trace file; none may act on the terminal or end a line.
std::vector<std::string> printable_cells(const std::vector<std::string>& cells) {
  std::vector<std::string> out;
  out.reserve(cells.size());
  for (const auto& cell : cells) out.push_back(printable(cell));
  return out;
}

Table printable_table(const Table& t) {
  Table out{printable_cells(t.header), t.right_aligned, {}, printable(t.note)};
  out.rows.reserve(t.rows.size());
  for (const auto& row : t.rows) out.rows.push_back(printable_cells(row));
  return out;
}

Section printable_section(const Section& s) {
  Section out{printable(s.title), printable_cells(s.lines), {}};
  for (const Table& t : s.tables) out.tables.push_back(printable_table(t));
  return out;
}

Document printable_document(const Document& doc) {
  Document out{printable(doc.title), printable_cells(doc.verdict), printable(doc.basis), {}};
  for (const Section& s : doc.sections) out.sections.push_back(printable_section(s));
  return out;
}

std::string pad(const std::string& cell, std::size_t width, bool right) {
  const std::string fill(width > cell.size() ? width - cell.size() : 0, ' ');
  return right ? fill + cell : cell + fill;
}

std::string text_table(const Table& t, const std::string& indent) {
  std::vector<std::size_t> width(t.header.size(), 0);
  for (std::size_t c = 0; c < t.header.size(); ++c) width[c] = t.header[c].size();
  for (const auto& row : t.rows)
    for (std::size_t c = 0; c < row.size() && c < width.size(); ++c) width[c] = std::max(width[c], row[c].size());
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out = indent;
    for (std::size_t c = 0; c < width.size(); ++c) {
      const bool right = c < t.right_aligned.size() && t.right_aligned[c];
      out += pad(c < cells.size() ? cells[c] : "", width[c], right);
      if (c + 1 < width.size()) out += "  ";
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(t.header);
  for (const auto& row : t.rows) out += line(row);
  if (!t.note.empty()) out += indent + t.note + "\n";
  return out;
}

std::string md_cell(const std::string& cell) {
  std::string out;
  for (const char c : cell) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string md_table(const Table& t) {
  std::string out = "|";
  for (const auto& h : t.header) out += " " + md_cell(h) + " |";
  out += "\n|";
  for (std::size_t c = 0; c < t.header.size(); ++c)
    out += c < t.right_aligned.size() && t.right_aligned[c] ? "---:|" : "---|";
  out += "\n";
  for (const auto& row : t.rows) {
    out += "|";
    for (std::size_t c = 0; c < t.header.size(); ++c) out += " " + md_cell(c < row.size() ? row[c] : "") + " |";
    out += "\n";
  }
  if (!t.note.empty()) out += "\n" + t.note + "\n";
  return out;
}

}  // namespace

std::string render_text(const Document& unsafe) {
  const Document doc = printable_document(unsafe);
  std::string out = doc.title + "\n" + std::string(doc.title.size(), '=') + "\n\n";
  for (const auto& v : doc.verdict) out += v + "\n";
  if (!doc.basis.empty()) out += (doc.verdict.empty() ? "" : "\n") + doc.basis + "\n";
  for (const Section& s : doc.sections) {
    out += "\n" + s.title + "\n" + std::string(s.title.size(), '-') + "\n";
    for (const auto& l : s.lines) out += "  " + l + "\n";
    for (const Table& t : s.tables) {
      if (!s.lines.empty() || &t != &s.tables.front()) out += "\n";
      out += text_table(t, "  ");
    }
  }
  return out;
}

std::string render_markdown(const Document& unsafe) {
  const Document doc = printable_document(unsafe);
  std::string out = "# " + doc.title + "\n\n";
  for (const auto& v : doc.verdict) out += "**" + v + "**\n\n";
  if (!doc.basis.empty()) out += doc.basis + "\n\n";
  for (const Section& s : doc.sections) {
    out += "## " + s.title + "\n\n";
    for (const auto& l : s.lines) out += "- " + l + "\n";
    if (!s.lines.empty()) out += "\n";
    for (const Table& t : s.tables) out += md_table(t) + "\n";
  }
  while (out.size() > 1 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n') out.pop_back();
  return out;
}

}  // namespace gtv::analysis::detail
