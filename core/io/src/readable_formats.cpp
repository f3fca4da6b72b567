#include "gtv/io/readable_formats.h"

namespace gtv::io {

std::string readable_name_patterns() {
  std::string out;
  for (const ReadableFormat& f : kReadableFormats)
    for (const std::string_view suffix : f.suffixes) out += (out.empty() ? "*" : " *") + std::string(suffix);
  return out + " *.gz";
}

std::string readable_suffixes_in_words() {
  std::string out;
  std::size_t count = 0, total = 0;
  for (const ReadableFormat& f : kReadableFormats) total += f.suffixes.size();
  for (const ReadableFormat& f : kReadableFormats)
    for (const std::string_view suffix : f.suffixes) {
      ++count;
      out += (count == 1 ? "" : count == total ? " or " : ", ") + std::string(suffix);
    }
  return out;
}

std::string trace_stem(std::string_view path) {
  const std::size_t slash = path.find_last_of('/');
  std::string name(slash == std::string_view::npos ? path : path.substr(slash + 1));
  std::size_t longest = 0;
  const auto consider = [&](std::string_view suffix) {
    if (suffix.size() > longest && name.size() > suffix.size() && std::string_view(name).ends_with(suffix))
      longest = suffix.size();
  };
  for (const ReadableFormat& f : kReadableFormats)
    for (const std::string_view suffix : f.suffixes) consider(suffix);
  consider(".gz");
  name.resize(name.size() - longest);
  return name;
}

}  // namespace gtv::io
